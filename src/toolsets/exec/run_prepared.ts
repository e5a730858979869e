/**
 * Runs a resolved command for a tool handler inside the Worker: builds the child's environment
 * from the allowlist, the isolation plan and the limits, runs it confined, and turns the outcome
 * into a ToolOutcome. Shared by exec.run_command, skills.run_script and declarative tools.
 *
 * @module
 */

import * as nodePath from "node:path";
import {
  buildChildEnvironment,
  CALL_MARKER_ENV,
  callMarker,
  type CommandOutcome,
  confinementPlan,
  DEFAULT_ENV_ALLOWLIST,
  gitSafeEnvironment,
  type IsolationPlan,
  killGroupWithProgram,
  type ProtectedPathWatch,
  runConfined,
  runViewsFolder,
  withSafeDiffOptions,
} from "../../exec/mod.ts";
import { Redactor } from "../../audit/mod.ts";
import type { CommandScope } from "../../policy/mod.ts";
import type { ExecContext, ToolContext } from "../../tools/mod.ts";
import { quarantinePlanted, runWatch } from "./_run_watch.ts";
import { failure, success, type ToolOutcome } from "../../result/mod.ts";
import { readOnlyHint } from "./_read_only_hint.ts";
import { refuseUnsafeRepository } from "./_git_config_verdicts.ts";

/** Per-call limits of a command tool. */
export interface CommandLimits {
  /**
   * Timeout the model requested, in ms: it may lower the tool's configured time, never raise it
   * (a higher value is lowered to it). @default the tool's configured time
   */
  timeoutMs?: number | undefined;
  /**
   * The tool's own configured time in ms (a declarative tool's `timeout_ms`), its default and
   * ceiling; capped by `tools.max_timeout_ms`. @default `tools.default_timeout_ms`
   */
  toolMaxTimeoutMs?: number | undefined;
  /** The tool definition's stream caps in bytes, if lower than the config's. */
  stdoutLimitBytes?: number | undefined;
  stderrLimitBytes?: number | undefined;
  /** Standard input for the child (declarative tools send their JSON input). */
  stdin?: string | undefined;
  /** Extra exact environment names (declarative tools' env_allowlist), within the run's allowlist. */
  environmentNames?: readonly string[] | undefined;
  /**
   * The policy treats the call as read-only (a `readonly` declarative tool): under bubblewrap every
   * root is mounted read-only. A known-safe argv (`command.readOnly`) is read-only without it.
   * @default false
   */
  readOnly?: boolean | undefined;
}

/**
 * Runs `command` and describes the result: ok on exit 0; `exit_nonzero` with a stderr summary;
 * `timeout` with `details.timed_out`; `aborted` with `details.aborted`, `partial`, `abort_reason`;
 * `io_error` when the program could not start.
 */
export async function runPrepared(
  command: CommandScope,
  context: ToolContext,
  limits: CommandLimits = {},
): Promise<ToolOutcome> {
  const exec = context.exec;
  if (exec === undefined) {
    return failure(
      "internal_error",
      "Cannot run a command: command tools are not enabled in this Worker",
    );
  }
  // Seed rule: the model may lower the configured time, never raise it.
  const configured = Math.min(
    limits.toolMaxTimeoutMs ?? exec.default_timeout_ms,
    exec.max_timeout_ms,
  );
  const timeoutMs = Math.min(limits.timeoutMs ?? configured, configured);
  const names = limits.environmentNames === undefined
    ? exec.environment_names
    : exec.environment_names.filter((name) =>
      limits.environmentNames?.includes(name) || isBaseName(name)
    );
  const gitSafe = nodePath.basename(command.path) === "git" && exec.git_safe_mode;
  const env = buildChildEnvironment({
    names,
    read: (name) => {
      try {
        return Deno.env.get(name);
      } catch {
        return undefined;
      }
    },
    overrides: { HOME: exec.home, TMPDIR: exec.tmp_dir },
    extra: {
      ...(gitSafe ? gitSafeEnvironment() : {}),
      // Never a folder the agent can write: a planted bin/gzip cannot shadow the real one.
      PATH: exec.search_path,
      // Inherited by every descendant, so the main thread finds and kills those that left the
      // call's process group (isolation none, after each call) and, at the run's end, whatever
      // outlived it (under bubblewrap: a namespace whose kill an abort cut short).
      [CALL_MARKER_ENV]: callMarker(context.run.run_id, context.tool_call_id),
    },
  });
  await Deno.mkdir(exec.home, { recursive: true }).catch(() => {});
  await Deno.mkdir(exec.tmp_dir, { recursive: true }).catch(() => {});
  const readOnly = limits.readOnly === true || command.readOnly === true;
  const profile = isolationPlan(exec, context, command, readOnly);
  if (!profile.ok) {
    return failure(
      "sandbox_violation",
      `Cannot run "${displayArgv(command.argv)}": cannot build its sandbox: ${profile.reason}`,
      { rule: "sandbox:command-profile", layer: "sandbox" },
    );
  }
  const isolation = profile.plan;
  const redactor = new Redactor({ secrets: exec.secrets });
  const base = {
    cwd: command.cwd.real,
    env,
    artifact: {
      artifactsDir: exec.artifacts_dir,
      runDir: exec.run_dir,
      maxBytes: exec.max_artifact_bytes,
    },
    // Knows where its replacements fall: streams are redacted exactly across every cut.
    redact: redactor.forStreams(),
    isolation,
    setsidPath: exec.setsid_path,
    killPath: exec.kill_path,
    signal: context.signal,
  };
  let args = command.argv.slice(1);
  if (gitSafe) {
    const refusal = await refuseUnsafeRepository(command, base, exec.isolation === "bwrap");
    if (refusal !== null) return refusal;
    args = withSafeDiffOptions(command.argv).slice(1);
  }
  const outcome = await runConfined({
    ...base,
    program: command.path,
    args,
    ...(limits.stdin === undefined ? {} : { stdin: limits.stdin }),
    timeoutMs,
    stdoutLimitBytes: Math.min(
      limits.stdoutLimitBytes ?? exec.stdout_limit_bytes,
      exec.stdout_limit_bytes,
    ),
    stderrLimitBytes: Math.min(
      limits.stderrLimitBytes ?? exec.stderr_limit_bytes,
      exec.stderr_limit_bytes,
    ),
    // Isolation none: the runtime kills the group on the main thread, in-process (no `kill`).
    killGroupAfterExit: false,
  });
  const left = outcome.process_group_id;
  let result: ToolOutcome;
  try {
    result = await afterCommand(
      command,
      outcome,
      timeoutMs,
      profile.watched,
      context,
      profile.watch,
      readOnly,
    );
  } catch (error: unknown) {
    if (left !== null) await killGroupWithProgram(exec.kill_path, left).catch(() => false);
    throw error;
  }
  return left === null ? result : { ...result, processGroupId: left };
}

/** Moves out what the command planted at protected paths, then describes the outcome. */
async function afterCommand(
  command: CommandScope,
  outcome: CommandOutcome,
  timeoutMs: number,
  watched: string[],
  context: ToolContext,
  watch: ProtectedPathWatch,
  readOnly: boolean,
): Promise<ToolOutcome> {
  const planted = await quarantinePlanted(
    displayArgv(command.argv),
    command.cwd.display,
    watched,
    context,
    watch,
  );
  return planted ?? describe(command, outcome, timeoutMs, readOnly);
}

function isBaseName(name: string): boolean {
  return DEFAULT_ENV_ALLOWLIST.includes(name);
}

/**
 * The confinement of one command: none (isolation "none", chosen explicitly), or the commands
 * domain's bubblewrap plan (`confinementPlan`: the mount profile of `command_profile.ts` built from
 * what the run's watch knows of the tree, the other domains' folders hidden). Not artifacts/: the
 * Worker writes command streams there, the command itself never does.
 */
function isolationPlan(
  exec: ExecContext,
  context: ToolContext,
  command: CommandScope,
  readOnly: boolean,
):
  | { ok: true; plan: IsolationPlan; watched: string[]; watch: ProtectedPathWatch }
  | { ok: false; reason: string } {
  // Under both modes: a new .git at any depth is quarantined after the command.
  const watch = runWatch(exec, context.guard);
  if ("reason" in watch) return { ok: false, reason: watch.reason };
  if (exec.isolation !== "bwrap" || exec.bwrap_path === null) {
    return { ok: true, plan: { mode: "none" }, watched: [], watch };
  }
  const guard = context.guard;
  const profile = confinementPlan({
    domain: { kind: "commands" },
    runDir: exec.run_dir,
    profile: {
      bwrapPath: exec.bwrap_path,
      system: exec.system_mounts,
      writeRoots: guard.allWriteRoots,
      readRoots: guard.readRoots,
      protectedPaths: guard.protectedPaths,
      writableExceptions: guard.writableExceptions,
      programFolders: exec.program_folders,
      skillDirs: exec.skill_dirs,
      home: exec.home,
      tmpDir: exec.tmp_dir,
      sensitiveMatch: (path) => guard.sensitiveMatch(path),
      unmasked: approvedSensitivePaths(command),
      gitWrite: exec.git_write,
      network: exec.network,
      processLimit: exec.process_limit,
      scanExclusions: guard.walkExclusions,
      tree: watch.facts,
      mountFolder: runViewsFolder(exec.run_dir),
      readOnly,
    },
  });
  if (!profile.ok) return profile;
  return { ok: true, plan: profile.plan, watched: profile.watched, watch };
}

/** Sensitive files the arguments name (`sensitive` findings, asked for): not masked. */
function approvedSensitivePaths(command: CommandScope): string[] {
  return command.findings
    .filter((finding) => finding.kind === "sensitive")
    .map((finding) => finding.path)
    .filter((path): path is string => path !== undefined);
}

/** The command line as a person reads it (quoted where needed). */
export function displayArgv(argv: readonly string[]): string {
  return argv.map((argument) =>
    /^[\w@%+=:,./-]+$/.test(argument) ? argument : JSON.stringify(argument)
  ).join(" ");
}

function describe(
  command: CommandScope,
  outcome: CommandOutcome,
  timeoutMs: number,
  readOnly: boolean,
): ToolOutcome {
  const line = displayArgv([command.program, ...command.argv.slice(1)]);
  const where = command.cwd.display;
  const data = {
    argv: command.argv,
    program: command.path,
    cwd: where,
    exit_code: outcome.exit_code,
    signal: outcome.signal,
    duration_ms: outcome.duration_ms,
    timed_out: outcome.timed_out,
    isolation: outcome.isolation,
    stdout: {
      bytes: outcome.stdout.bytes,
      truncated: outcome.stdout.truncated,
      text: outcome.stdout.text,
    },
    stderr: {
      bytes: outcome.stderr.bytes,
      truncated: outcome.stderr.truncated,
      text: outcome.stderr.text,
    },
  };
  const artifacts = outcome.artifacts.map(({ ref, sha256, bytes, media_type }) => ({
    ref,
    sha256,
    bytes,
    media_type,
  }));
  const output = [
    outcome.stdout.text,
    outcome.stderr.text === "" ? "" : `[stderr]\n${outcome.stderr.text}`,
    outcome.artifacts.length === 0
      ? ""
      : `[full output: ${
        outcome.artifacts.map((artifact) =>
          `${artifact.stream} ${artifact.ref}${artifact.truncated ? " (cut)" : ""}`
        ).join(", ")
      }]`,
  ].filter((part) => part !== "").join("\n");
  const withOutput = (result: ToolOutcome): ToolOutcome => ({
    ...result,
    output: `${result.output}\n${output}`.trim(),
    data,
    artifacts,
  });
  if (outcome.spawn_error !== null) {
    return failure("io_error", `Cannot run "${line}" in "${where}": ${outcome.spawn_error}`, {
      argv: command.argv,
    });
  }
  if (outcome.aborted) {
    return withOutput(failure("aborted", `Cannot finish "${line}": the run was aborted`, {
      aborted: true,
      partial: true,
      abort_reason: "the run was interrupted",
      duration_ms: outcome.duration_ms,
    }));
  }
  if (outcome.timed_out) {
    return withOutput(
      failure(
        "timeout",
        `Cannot finish "${line}" in "${where}": it ran longer than ${timeoutMs} ms and was killed`,
        {
          timed_out: true,
          timeout_ms: timeoutMs,
          duration_ms: outcome.duration_ms,
        },
      ),
    );
  }
  if (outcome.exit_code !== 0) {
    const lastError = outcome.stderr.text.trim().split("\n").at(-1)?.slice(0, 200) ?? "";
    const status = outcome.signal !== null
      ? `signal ${outcome.signal}`
      : `exit ${outcome.exit_code}`;
    return withOutput(failure(
      "exit_nonzero",
      `Command "${line}" in "${where}" failed with ${status}${
        lastError === "" ? "" : `: ${lastError}`
      }${readOnlyHint(outcome, readOnly)}`,
      { exit_code: outcome.exit_code, signal: outcome.signal, stderr_tail: lastError },
    ));
  }
  return {
    ...success(
      `Ran "${line}" in "${where}" (exit 0, ${outcome.duration_ms} ms, ${outcome.stdout.bytes} bytes of output)`,
      output,
      data,
    ),
    artifacts,
  };
}
