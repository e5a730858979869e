/**
 * Runs a resolved command for a tool handler inside the Worker: builds the child's environment
 * from the allowlist, the isolation plan and the limits, runs it confined, and turns the outcome
 * into a ToolOutcome. Shared by exec.run_command, skills.run_script and declarative tools.
 *
 * @module
 */

import * as nodePath from "node:path";
import { buildChildEnvironment, DEFAULT_ENV_ALLOWLIST } from "../../exec/child_environment.ts";
import { type CommandOutcome, type IsolationPlan, runConfined } from "../../exec/spawn_confined.ts";
import { Redactor } from "../../audit/redactor.ts";
import type { CommandScope } from "../../policy/policy_rule.ts";
import type { ExecContext, ToolContext } from "../../tools/tool_definition.ts";
import { failure, success, type ToolOutcome } from "../../tools/tool_result.ts";

/**
 * git configuration forced in git safe mode (`tools.git_safe_mode`, default on), passed through
 * `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` (git-config(1), "ENVIRONMENT"), which
 * rank above every config file: no hooks, no fsmonitor, no pager, no external diff or textconv
 * helper from the repository, no `ext::` transport, no credential prompts.
 */
export const GIT_SAFE_CONFIG: readonly [string, string][] = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["core.pager", "cat"],
  ["diff.external", ""],
  ["diff.noprefix", "false"],
  ["core.sshCommand", "ssh -oBatchMode=yes"],
  ["protocol.ext.allow", "never"],
  ["credential.helper", ""],
  ["core.askPass", ""],
];

/** Per-call limits of a command tool. */
export interface CommandLimits {
  /** Requested timeout in ms (never above the tool's or the config's maximum). */
  timeoutMs?: number | undefined;
  /** The tool definition's own ceiling in ms, if lower than the config's. */
  toolMaxTimeoutMs?: number | undefined;
  /** The tool definition's stream caps in bytes, if lower than the config's. */
  stdoutLimitBytes?: number | undefined;
  stderrLimitBytes?: number | undefined;
  /** Standard input for the child (declarative tools send their JSON input). */
  stdin?: string | undefined;
  /** Extra exact environment names (declarative tools' env_allowlist), within the run's allowlist. */
  environmentNames?: readonly string[] | undefined;
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
  const timeoutMs = Math.min(
    limits.timeoutMs ?? exec.default_timeout_ms,
    limits.toolMaxTimeoutMs ?? exec.max_timeout_ms,
    exec.max_timeout_ms,
  );
  const names = limits.environmentNames === undefined
    ? exec.environment_names
    : exec.environment_names.filter((name) =>
      limits.environmentNames?.includes(name) || isBaseName(name)
    );
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
    extra: nodePath.basename(command.path) === "git" && exec.git_safe_mode
      ? gitSafeEnvironment()
      : {},
  });
  await Deno.mkdir(exec.home, { recursive: true }).catch(() => {});
  await Deno.mkdir(exec.tmp_dir, { recursive: true }).catch(() => {});
  const redactor = new Redactor({ secrets: exec.secrets });
  const outcome = await runConfined({
    program: command.path,
    args: command.argv.slice(1),
    cwd: command.cwd.real,
    env,
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
    artifact: {
      artifactsDir: exec.artifacts_dir,
      runDir: exec.run_dir,
      maxBytes: exec.max_artifact_bytes,
    },
    redact: (text) => redactor.redactText(text),
    isolation: isolationPlan(exec, context),
    setsidPath: exec.setsid_path,
    killPath: exec.kill_path,
    signal: context.signal,
  });
  return describe(command, outcome, timeoutMs);
}

function isBaseName(name: string): boolean {
  return DEFAULT_ENV_ALLOWLIST.includes(name);
}

function gitSafeEnvironment(): Record<string, string> {
  const env: Record<string, string> = {
    GIT_CONFIG_COUNT: String(GIT_SAFE_CONFIG.length),
    GIT_PAGER: "cat",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    // No ~/.gitconfig either: a global config could name filters or helpers that run code.
    GIT_CONFIG_GLOBAL: "/dev/null",
  };
  GIT_SAFE_CONFIG.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

function isolationPlan(exec: ExecContext, context: ToolContext): IsolationPlan {
  if (exec.isolation !== "bwrap" || exec.bwrap_path === null) return { mode: "none" };
  return {
    mode: "bwrap",
    bwrapPath: exec.bwrap_path,
    writablePaths: [...new Set([...context.guard.allWriteRoots, exec.home, exec.tmp_dir])],
    // Read roots, skill folders and the allowlisted programs stay visible (read-only) when they sit
    // in the hidden home.
    readablePaths: [
      ...new Set([
        ...context.guard.readRoots,
        ...exec.skill_dirs,
        ...exec.script_programs.map((program) => program.path),
      ]),
    ],
    hiddenPaths: exec.hidden_paths,
    network: false,
  };
}

/** The command line as a person reads it (quoted where needed). */
export function displayArgv(argv: readonly string[]): string {
  return argv.map((argument) =>
    /^[\w@%+=:,./-]+$/.test(argument) ? argument : JSON.stringify(argument)
  ).join(" ");
}

function describe(command: CommandScope, outcome: CommandOutcome, timeoutMs: number): ToolOutcome {
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
      }`,
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
