/**
 * One way to assemble a run (issue 26): the model provider, the session (run folder, policy, tool
 * Worker, runtime), the agent and task tools with their task store, the network boundary's
 * record, and — for a run with a task — the agent loop with its system prompt, dynamic system,
 * spans and `run.completed`. `kagent-run run` and `resume`, each child agent, each worker step,
 * `kagent-run mcp` and `kagent-run call` assemble their runs here and nowhere else
 * (`tests/assembly_architecture_test.ts`).
 *
 * @module
 */

import {
  type AgentOutcome,
  type ModelMessage,
  type ModelProvider,
  type ResumeStart,
  type RunContext,
  ScriptProvider,
} from "../agent/mod.ts";
import type { ApprovalGate, Grant } from "../approval/mod.ts";
import { type AuditRecorder, preloadNativeSha256, Redactor } from "../audit/mod.ts";
import type { LoadedConfig, ModelConfig } from "../config/mod.ts";
import type { AllowedToolsList } from "../policy/mod.ts";
import type { MainThreadTools } from "../runtime/mod.ts";
import {
  openRunSession,
  recordStartFailure,
  type ResumeSegment,
  type RunSession,
  type SessionAgent,
  type SessionOptions,
} from "../session/mod.ts";
import { openTaskStore, type TaskStore } from "../tasks/mod.ts";
import { type RunServices, servicesSessionOptions } from "./run_services.ts";
import { type LoopOptions, runLoop } from "./run_loop.ts";
import { type CompletedExtra, recordRunCompleted } from "./run_records.ts";

/** The agent's run as its agent and task tools need it, once the session is open. */
export interface AgentRunParts {
  run_id: string;
  /** The run folder (absolute). */
  run_dir: string;
  recorder: AuditRecorder;
  approvals: ApprovalGate;
  /** Redacts with every secret of the run (what the model writes into tasks, too). */
  redactor: Pick<Redactor, "redactValue">;
  /** The agent's conversation so far (a fork copies it). */
  conversation: () => readonly ModelMessage[];
  /**
   * The policy hash grants of this tree name: the root run's (a child's printed grants are given
   * to the root run with `--approve`).
   */
  grant_policy_hash: string;
  /** The task store every agent of the tree shares. */
  store: TaskStore;
}

/** The agent and task tools of a run's agent: built before its session, attached once it is open. */
export interface RunAgentTools extends MainThreadTools {
  attach(run: AgentRunParts): void;
}

/** A sealed run that goes on as its next segment (`kagent-run resume`). */
export interface RunResume {
  /** The session's part: the folder, the sealed policy hash, the `run.resumed` fields. */
  session: ResumeSegment;
  /** The loop's part: where the recorded conversation goes on. */
  start: ResumeStart;
  /** Model answers the earlier segments used (a script plan goes on after them). */
  answers: number;
  /** Keeps the previous seal as `segments/<n>/manifest.json` (once the session is open). */
  keepPreviousSeal(): Promise<void>;
}

/** What differs between the runs of one process: the task, the agent, its narrowing. */
export interface RunRequest {
  /**
   * The task the model is given (recorded in `run.json`); null for a run without an agent loop
   * (`kagent-run mcp`, `call`): it then gets no model provider.
   */
  task: string | null;
  /** The agent's model. @default the config's `model` */
  model?: ModelConfig | null;
  /** Who runs: the main agent, a child agent, a worker. @default the main agent */
  agent?: SessionAgent;
  /** The run id, chosen beforehand (a worker's claim names it). @default one from the start time */
  runId?: string;
  /** Grants from `--approve` and `--approvals`. @default none */
  grants?: { grant: Grant; source: string }[];
  /** The parent's grants, read at each ask (a child agent). @default none */
  inheritedGrants?: () => readonly Grant[];
  /** `allowed_tools` lists that narrow the tool set (a child agent's). @default none */
  allowedTools?: AllowedToolsList[];
  /** Tools suggested to the agent: recorded, never a grant. @default none */
  suggestedTools?: string[];
  /** Tools about to be called: their validators compile while the Worker starts. */
  warmTools?: readonly string[];
  /**
   * The agent and task tools, attached with the task store once the session is open; false where
   * nothing runs child agents (`mcp`, a worker): they are not offered. @default none attached
   */
  agentTools?: RunAgentTools | false;
  /** The command (argv) whose re-run with grants each pending approval prints. @default none */
  replayCommand?: readonly string[];
  /** Continue a sealed run as its next segment. @default null: a new run */
  resume?: RunResume | null;
  /** Wraps the run's provider (the CLI's progress feed watches the model's turns). */
  watchProvider?: (provider: ModelProvider) => ModelProvider;
  /**
   * Record `network_boundary.measured` (the services' gateway channels and the process's own net
   * permission): the root run of a process. @default false
   */
  measureNetwork?: boolean;
}

/** An assembled run: its open session, its provider, its loop and how to end it. */
export interface AssembledRun {
  config: LoadedConfig;
  session: RunSession;
  /** The agent's model provider; null for a run without a task. */
  provider: ModelProvider | null;
  /** Where the agent works (its run id, workspace, deliverables, scratch). */
  context: RunContext;
  /** Redacts with every secret of the run: the `audit.secret_env` values, MCP `${VAR}`s, files. */
  redactor: Redactor;
  /** The loop's conversation (a fork copies it). */
  conversation: ModelMessage[];
  /**
   * Runs the agent loop to its end: records the system prompt, builds the dynamic system, starts
   * the spans. A failure to record the start is recorded in `logs/errors.jsonl` and thrown.
   *
   * @throws {Error} when the run has no task (a bug of the caller).
   */
  loop(options: LoopOptions): Promise<AgentOutcome>;
  /** Records `run.completed` for the outcome, with `extra` fields (the output schema's check). */
  complete(outcome: AgentOutcome, extra?: CompletedExtra): Promise<void>;
  /**
   * Closes the task store it opened (before the seal: `tasks.sqlite` is then whole), then the
   * session (Worker, MCP servers, sweeps, seal). Safe to call twice.
   */
  close(): Promise<void>;
}

/**
 * Assembles a run: its provider first (a model that cannot be used starts nothing), then its
 * session, its agent tools and task store, and the records every run starts with.
 *
 * @throws what the provider's factory throws (before any folder exists), and what opening the
 *   session throws (`ConfigError`, recorded in the folder when there is one).
 * @example
 * ```ts ignore
 * const run = await assembleRun(config, services, { task: "Summarise README.md" });
 * try {
 *   await run.complete(await run.loop({ instructions: null, maxTurns: 10, agent: MAIN }));
 * } finally {
 *   await run.close();
 * }
 * ```
 */
export async function assembleRun(
  config: LoadedConfig,
  services: RunServices,
  request: RunRequest,
): Promise<AssembledRun> {
  const model = request.model === undefined ? config.model : request.model;
  const runConfig = model === config.model ? config : { ...config, model };
  const provider = request.task === null ? null : await providerOf(model, services, request);
  const agentTools = request.agentTools === false ? null : request.agentTools ?? null;
  const session = await openRunSession(runConfig, sessionOptions(services, request, agentTools));
  let store: TaskStore | null = null;
  let ownStore = false;
  try {
    const redactor = new Redactor({ secrets: session.secrets });
    const conversation: ModelMessage[] = [];
    if (agentTools !== null) {
      ownStore = services.taskStore === null;
      store = services.taskStore ?? openTaskStore({
        // A config built in code (tests) may lack the tasks section: the run folder's file.
        config: config.tasks?.store ?? { kind: "sqlite" },
        runDir: session.folder.dir,
        env: services.env,
        ...(config.tasks === undefined ? {} : { leaseMs: config.tasks.lease_ms }),
      });
      agentTools.attach({
        run_id: session.folder.id,
        run_dir: session.folder.dir,
        recorder: session.recorder,
        approvals: session.approvals,
        redactor,
        conversation: () => conversation,
        grant_policy_hash: request.agent?.parent?.grant_policy_hash ?? session.policy.hash,
        store,
      });
    }
    // An agent's run lives for many calls and turns: hash natively from now on (audit/sha256.ts).
    if (request.task !== null) preloadNativeSha256();
    if (request.replayCommand !== undefined) {
      session.approvals.setReplayCommand([...request.replayCommand]);
    }
    await request.resume?.keepPreviousSeal();
    if (request.measureNetwork === true) await recordNetwork(session, services, runConfig);
    let closed = false;
    const context: RunContext = {
      run_id: session.folder.id,
      workspace: session.guard.workspace,
      deliverables: session.folder.paths.deliverables,
      scratch: session.folder.paths.workspace,
    };
    return {
      config: runConfig,
      session,
      provider,
      context,
      redactor,
      conversation,
      loop: (options) => {
        if (provider === null || request.task === null) {
          throw new Error("Bug: a run without a task has no agent loop");
        }
        return runLoop({
          config: runConfig,
          services,
          session,
          provider,
          context,
          conversation,
          task: request.task,
          resume: request.resume?.start ?? null,
        }, options);
      },
      complete: (outcome, extra) => recordRunCompleted(session.recorder, outcome, extra),
      async close() {
        if (closed) return;
        closed = true;
        try {
          if (ownStore) await store?.close();
        } finally {
          await session.close();
        }
      },
    };
  } catch (error) {
    if (ownStore) await store?.close().catch(() => {});
    await session.close();
    throw error;
  }
}

/** The provider of the run's model, watched, after the earlier segments' answers. */
async function providerOf(
  model: ModelConfig | null,
  services: RunServices,
  request: RunRequest,
): Promise<ModelProvider> {
  if (model === null) {
    throw new Error(`Cannot run an agent: there is no "model" for it in the config`);
  }
  const provider = await services.providerFor(model);
  // A script plan goes on where the earlier segments stopped.
  if (provider instanceof ScriptProvider) provider.skip(request.resume?.answers ?? 0);
  return request.watchProvider?.(provider) ?? provider;
}

/** The session's options: the services', then the request's. */
function sessionOptions(
  services: RunServices,
  request: RunRequest,
  agentTools: RunAgentTools | null,
): SessionOptions {
  return {
    ...servicesSessionOptions(services),
    // A resumed segment records the user's next message (`--task`), or none.
    task: request.resume ? request.resume.start.task : request.task,
    grants: request.grants ?? [],
    resume: request.resume?.session ?? null,
    ...(request.agent === undefined ? {} : { agent: request.agent }),
    ...(request.runId === undefined ? {} : { runId: request.runId }),
    ...(request.inheritedGrants === undefined ? {} : { inheritedGrants: request.inheritedGrants }),
    ...(request.allowedTools === undefined ? {} : { allowedTools: request.allowedTools }),
    ...(request.suggestedTools === undefined ? {} : { suggestedTools: request.suggestedTools }),
    ...(request.warmTools === undefined ? {} : { warmTools: request.warmTools }),
    ...(request.agentTools === false ? { agentTools: false } : {}),
    ...(agentTools === null ? {} : { mainThreadTools: agentTools }),
  };
}

/**
 * Records `network_boundary.measured`: the gateway's channels and the process's own net
 * permission, measured, not assumed ("granted" only when the process kept it). A refused write
 * is a start failure, recorded and thrown.
 */
async function recordNetwork(
  session: RunSession,
  services: RunServices,
  config: LoadedConfig,
): Promise<void> {
  const gateway = services.gateway;
  await session.recorder.event("network_boundary.measured", {
    model_hosts: gateway?.channels.model ?? [],
    memory_hosts: gateway?.channels.memory ?? [],
    mcp_hosts: gateway?.channels.mcp ?? [],
    tool_hosts: gateway?.channels.tools ?? [],
    tool_worker_net: session.workerPermissions.net,
    main_thread_net: Deno.permissions.querySync({ name: "net" }).state,
  }).catch(async (error) => {
    throw await recordStartFailure(session.folder, config, error, services.env);
  });
}
