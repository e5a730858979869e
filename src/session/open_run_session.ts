/**
 * Opens a run: the composition root. Creates `runs/<id>/`, writes `policy.json`, `run.json` and
 * the `run.started` event, starts the tool Worker, and wires the runtime.
 *
 * @module
 */

import * as nodePath from "node:path";
import { ArtifactStore, AuditRecorder, Redactor, type RunFolder } from "../audit/mod.ts";
import { ApprovalGate } from "../approval/mod.ts";
import type { LoadedConfig } from "../config/mod.ts";
import { domainFolders, startOrphanWatchdog, sweepMarked } from "../exec/mod.ts";
import type { PolicyDecision } from "../policy/mod.ts";
import { HookRunner, prepareHooks } from "../hooks/mod.ts";
import { openMarkerSweep, ToolRuntime } from "../runtime/mod.ts";
import { HostAllowlist } from "../config/mod.ts";
import { NET_FETCH_TOOL, NetFetchTool } from "../toolsets/net/mod.ts";
import { ToolWorker } from "../worker/mod.ts";
import { violationMessage } from "../mcp_client/mod.ts";
import { describeTool, type ExecContext, type RegisteredTool } from "../tools/mod.ts";
import { commandResolution, commandsRun, execContext } from "./command_wiring.ts";
import { quarantineAtClose } from "./close_quarantine.ts";
import { environmentReader } from "./environment.ts";
import { checkGrants } from "./grant_check.ts";
import { type PreparedPolicy, preparePolicy } from "./prepare_policy.ts";
import { startedWorker, workerOptions } from "./tool_worker_start.ts";
import type { SessionOptions } from "./session_options.ts";
import { type SessionRun, sessionRun } from "./session_run.ts";
import { checkResumedPolicy, recordStart, type RunStart } from "./run_start_records.ts";
import { createRunFolder, recordStartFailure } from "./start_up_failure.ts";
import { telemetrySnapshot } from "../telemetry/mod.ts";
import { signingKey } from "./signing_key.ts";
import { combineMainThreadTools, createChildRunFolder, requestAgent } from "./session_agent.ts";

/** An open run: everything a call or an agent needs, and how to close it. */
export interface RunSession extends PreparedPolicy {
  config: LoadedConfig;
  folder: RunFolder;
  recorder: AuditRecorder;
  runtime: ToolRuntime;
  /** Step 5's gate: its `pending` lists the calls that needed an approval nobody could give. */
  approvals: ApprovalGate;
  /** Stops the Worker and flushes the audit. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens a run: creates `runs/<id>/`, writes `policy.json` and the `run.started` event, starts the
 * tool Worker. A run that then fails to start says why in `logs/errors.jsonl` (or leaves no folder
 * when nothing can be written).
 *
 * @throws {ConfigError} when the runs folder cannot be used (naming `runs_dir`), a grant was made
 *   for another policy, or a hook or declarative tool is invalid.
 * @example
 * ```ts ignore
 * const session = await openRunSession(config, { task: "Summarise README.md" });
 * await session.close();
 * ```
 */
export async function openRunSession(
  config: LoadedConfig,
  options: SessionOptions = {},
): Promise<RunSession> {
  const now = options.now ?? (() => new Date());
  const parent = options.agent?.parent ?? null;
  const resumed = options.resume ?? null;
  const folder = resumed !== null
    ? resumed.folder
    : parent === null
    ? await createRunFolder(config, now(), options.runId)
    : await createChildRunFolder(config, parent.run_dir, now());
  try {
    return await openSessionIn(folder, config, options, now);
  } catch (error) {
    // A sealed run that is being continued is never written to (nor removed) by a refused start.
    if (resumed !== null) throw error;
    throw await recordStartFailure(folder, config, error, environmentReader(options.env));
  }
}

/** What a session is opened from, once its run folder exists. */
interface Opening extends RunStart {
  /** The one reader of environment variables. */
  read: ReturnType<typeof environmentReader>;
  /** The run folder's places, as the session's parts need them. */
  run: SessionRun;
}

/** {@linkcode openRunSession} once the run folder exists. */
async function openSessionIn(
  folder: RunFolder,
  config: LoadedConfig,
  options: SessionOptions,
  now: () => Date,
): Promise<RunSession> {
  const opening: Opening = {
    folder,
    config,
    options,
    now,
    read: environmentReader(options.env),
    run: sessionRun(folder),
  };
  const prepared = await preparePolicy(config, options, opening.run);
  try {
    return await wireSession(opening, prepared);
  } catch (error) {
    // No MCP server outlives a run that failed to start.
    await prepared.mcp?.close();
    throw error;
  }
}

/** {@linkcode openSessionIn} once the policy side is prepared (and MCP servers started). */
async function wireSession(opening: Opening, prepared: PreparedPolicy): Promise<RunSession> {
  const { config, run, folder, options } = opening;
  const exec = commandsRun(prepared.commands)
    ? execContext(prepared.commands, prepared.skillDirs, config, run, prepared.secrets)
    : null;
  // The tool Worker starts now, so that loading its modules overlaps the records written below;
  // it is awaited where it is needed (a failure is recorded there), and stopped when the start
  // fails before that.
  const starting = ToolWorker.start(workerOptions(prepared, exec, config, folder, options));
  starting.catch(() => {});
  try {
    return await wireStarting(opening, prepared, exec, starting);
  } catch (error) {
    void starting.then((worker) => worker.terminate(), () => {});
    throw error;
  }
}

/** {@linkcode wireSession} while the tool Worker starts. */
async function wireStarting(
  opening: Opening,
  prepared: PreparedPolicy,
  exec: ExecContext | null,
  starting: Promise<ToolWorker>,
): Promise<RunSession> {
  const { folder, config, options, now, read, run } = opening;
  // Hook programs resolve now, outside the workspace and every write root (ConfigError, exit 2).
  const configHooks = await prepareHooks(config, {
    forbiddenRoots: prepared.guard.allWriteRoots,
    cwd: prepared.guard.workspace,
    env: read,
    processTools: prepared.commands,
    domain: domainFolders(run.dir, { kind: "hooks" }),
  });
  checkResumedPolicy(options, prepared, config);
  const redactor = new Redactor({ secrets: prepared.secrets });
  const recorder = new AuditRecorder({
    folder,
    redactor,
    now,
    policyHash: prepared.policy.hash,
    signing: signingKey(config, read),
  });
  // The telemetry channel sits beside the snapshot, outside its hash: where the operator's
  // collector is changes no decision, so a grant replays with tracing on or off.
  await recorder.writePolicy({
    ...prepared.policy.snapshot(),
    telemetry: telemetrySnapshot(prepared.telemetry, config.audit),
  });
  await checkGrants(options.grants ?? [], prepared.policy.hash, recorder, config);
  await recordStart(opening, prepared, recorder, redactor);
  if (prepared.commands?.isolation.effective === "off") {
    await recorder.event("command_tools.disabled", { reason: prepared.commands.isolation.reason });
    await recorder.error({ source: "sandbox", message: prepared.commands.isolation.reason });
  }
  const recordToolListTotals = await recordMcpServers(prepared, recorder);
  if (prepared.sensitiveFileScanStopped !== null) {
    await recorder.error({
      source: "sandbox",
      message: `Cannot redact the values of every sensitive file: ` +
        `${prepared.sensitiveFileScanStopped}; the values past the bound are not redacted`,
    });
  }
  // The main thread would only wait for the Worker here: compile the named tools' argument
  // validators meanwhile (a first compile costs 10 – 25 ms).
  for (const name of options.warmTools ?? []) void prepared.registry.get(name)?.validate;
  const worker = await startedWorker(starting, recorder);
  const hooks = new HookRunner({
    preToolUse: [...configHooks.preToolUse, ...(options.hooks?.preToolUse ?? [])],
    postToolUse: [...configHooks.postToolUse, ...(options.hooks?.postToolUse ?? [])],
    recorder,
    runId: folder.id,
  });
  const approvals = new ApprovalGate({
    // A child agent's grants name the root run's policy: they are given to the root run
    // (`--approve`) and reach the child as inherited grants.
    policyHash: options.agent?.parent?.grant_policy_hash ?? prepared.policy.hash,
    runId: folder.id,
    runDir: nodePath.dirname(prepared.guard.writableExceptions[0] ?? folder.paths.workspace),
    locations: prepared.policy.locations,
    grants: (options.grants ?? []).map((entry) => entry.grant),
    approver: options.approver ?? null,
    ...(options.approvalTimeoutMs === undefined ? {} : { timeoutMs: options.approvalTimeoutMs }),
    recorder,
    redactor,
    environmentNames: prepared.commands?.environmentNames ?? [],
    agent: requestAgent(options, folder.id),
    ...(options.inheritedGrants === undefined ? {} : { inheritedGrants: options.inheritedGrants }),
  });
  // Isolation none: what a command left outside its process group is found by its marker.
  const psPath = exec?.isolation === "none" ? prepared.commands?.psPath ?? null : null;
  const reader = prepared.commands?.environmentReader ?? null;
  const sweep = psPath === null ? null : openMarkerSweep(folder.id, psPath, prepared.commands);
  // If this process dies without ending the run (kill -9), the watchdog sweeps the run's marker.
  const watchdog = psPath === null || reader === null || prepared.commands === null
    ? null
    : startOrphanWatchdog(folder.id, { setsidPath: prepared.commands.setsidPath, ...reader });
  const artifacts = new ArtifactStore({
    artifactsDir: folder.paths.artifacts,
    runDir: folder.dir,
    maxBytes: config.limits.max_artifact_bytes,
  });
  const mcp = prepared.mcp;
  const network = new HostAllowlist(config.network.hosts);
  const netFetch = prepared.registry.get(NET_FETCH_TOOL) === undefined ? null : new NetFetchTool({
    fetch: options.toolsFetch ?? null,
    admits: (hostname, port) => network.admits(hostname, port),
    // A redirect to another host: followed only when the policy allows that host outright.
    hostRefusal: (hostname: string, port: number): { rule: string; reason: string } | null => {
      const decision: PolicyDecision = runtime.policy.decide(
        describeTool((prepared.registry.get(NET_FETCH_TOOL) as RegisteredTool).definition),
        { paths: [], hosts: [{ hostname, port, scope: `${hostname}:${port}` }] },
      );
      return decision.decision === "allow" ? null : decision;
    },
    artifacts,
    timeoutMs: config.network.timeout_ms,
    maxRedirects: config.network.max_redirects,
    maxResponseBytes: config.network.max_response_bytes,
  });
  const runtime = new ToolRuntime({
    ...prepared,
    approvals,
    worker,
    recorder,
    redactor,
    artifacts,
    mainThreadTools: combineMainThreadTools(
      mcp === null ? null : {
        handles: (name) => mcp.handles(name),
        execute: (name, _id, args, signal) =>
          mcp.execute(name, args, signal, { artifacts, redactor }),
      },
      options.mainThreadTools ?? null,
      netFetch,
    ),
    network,
    commands: prepared.commands === null
      ? null
      : commandResolution(prepared.commands, exec, run.workspace),
    limits: {
      maxBytes: config.limits.max_argument_bytes,
      maxDepth: config.limits.max_argument_depth,
      maxOutputBytes: config.limits.max_output_bytes,
    },
    hooks: hooks.empty ? null : hooks,
    now,
    sweep,
    tracing: prepared.telemetry.enabled
      ? { runId: folder.id, redactor, content: config.audit.trace_content }
      : null,
  });
  let closed = false;
  return {
    ...prepared,
    config,
    folder,
    recorder,
    runtime,
    approvals,
    async close() {
      if (closed) return;
      closed = true;
      worker.terminate();
      await mcp?.close();
      await recordToolListTotals();
      // Whatever a command of this run left running ends with the run: under none what left the
      // call's group; under bubblewrap a namespace whose kill was cut short by an abort.
      const runPsPath = prepared.commands?.psPath ?? null;
      if (runPsPath !== null) {
        await sweepMarked(`${folder.id}/`, {
          psPath: runPsPath,
          environmentReader: reader,
          scanner: sweep?.scanner ?? null,
          prefix: true,
        });
      }
      sweep?.scanner?.close();
      await quarantineAtClose(prepared.guard, exec, recorder);
      await watchdog?.stop();
      await approvals.close();
      await recorder.close();
    },
  };
}

/**
 * Records each MCP server started (`mcp_server.started`) and each optional one that could not.
 *
 * @returns What records, when the run has closed the servers, the total of each server that sent
 *   `tools/list_changed` more than once.
 */
async function recordMcpServers(
  prepared: PreparedPolicy,
  recorder: AuditRecorder,
): Promise<() => Promise<void>> {
  for (const record of prepared.mcp?.records ?? []) {
    await recorder.event("mcp_server.started", { ...record });
    if (record.confinement.mode === "none") {
      await recorder.error({
        source: "mcp",
        message: `MCP server "${record.server}" runs unconfined (no bubblewrap), as the user: ` +
          record.confinement.reason,
      });
    }
  }
  for (const warning of prepared.mcp?.warnings ?? []) {
    await recorder.event("mcp_server.skipped", { server: warning.server, reason: warning.reason });
    await recorder.error({ source: "mcp", message: warning.reason });
  }
  // Each protected path a stdio server created: quarantined by the watch, recorded here (awaited
  // by the servers' close, before the recorder's).
  prepared.mcp?.onSandboxViolation(async (server, quarantined, found) => {
    await recorder.event("mcp_server.sandbox_violation", { server, quarantined, found });
    await recorder.error({ source: "mcp", message: violationMessage(server, quarantined) });
  });
  // Recorded, not acted on: the run's tool set stays as listed. A refused write is the
  // recorder's to report (the run's write-failure reporting), not this notification's. The first
  // of a server is recorded at once; the total, if more came, when the run closes the servers
  // (`recordToolListTotals`): one call sending 5,000 makes two lines, not 5,000.
  const counts = new Map<string, number>();
  prepared.mcp?.onToolListChanged((server) => {
    const count = (counts.get(server) ?? 0) + 1;
    counts.set(server, count);
    if (count === 1) {
      recorder.event("mcp_server.tools_changed", { server, count }).catch(() => undefined);
    }
  });
  return async () => {
    for (const [server, count] of counts) {
      if (count > 1) {
        await recorder.event("mcp_server.tools_changed", { server, count }).catch(() => undefined);
      }
    }
    counts.clear();
  };
}
