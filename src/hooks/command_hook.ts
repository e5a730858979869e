/**
 * Hooks that are programs: the call's {@linkcode HookInput} as JSON on stdin, run through
 * {@linkcode runConfined} (own process group, cleared environment, deadline, capped output), the
 * answer read strictly from stdout. Anything but a clean answer is a {@linkcode HookFailure}.
 *
 * Nothing a hook starts outlives it: its process group is killed when it ends (or at its deadline,
 * or when the run is interrupted: TERM, a grace, KILL), and every process still carrying the
 * hook's marker in its environment (`KAGENT_RUN_CALL=<run id>/hook-<uuid>`: one that left the
 * group with `setsid`, a double fork) is killed after it, through {@linkcode sweepMarked}.
 *
 * @module
 */

import { runConfined } from "../exec/mod.ts";
import {
  CALL_MARKER_ENV,
  callMarker,
  type ProcessEnvironmentReader,
  sweepMarked,
} from "../exec/mod.ts";
import {
  type HookAnswer,
  HookFailure,
  type HookInput,
  type PostToolUseHook,
  type PostToolUseInput,
  type PreToolUseHook,
} from "./hook_types.ts";
import { parseHookAnswer } from "./parse_hook_answer.ts";

/** How command hooks run; one per run, shared by every command hook. */
export interface CommandHookEnvironment {
  /** Absolute path of `setsid`. */
  setsidPath: string;
  /** Absolute path of `kill`. */
  killPath: string;
  /** Absolute path of `ps` (procps): what a hook leaves outside its group is found through it. */
  psPath: string;
  /**
   * `sh` and `grep`, which read the environments for that search in about a third of the time
   * `ps` takes (`ps` answers a round they fail). @default null: `ps` alone
   */
  environmentReader?: ProcessEnvironmentReader | null;
  /** Absolute real path of the working folder (the workspace). */
  cwd: string;
  /**
   * The whole environment: only PATH, HOME, TMPDIR and LANG are meant to be in it (each run adds
   * its marker, `KAGENT_RUN_CALL`).
   */
  env: Record<string, string>;
}

/** A configured command hook: argv with argv[0] resolved to `program` at start-up. */
export interface CommandHookSpec {
  /** The argv as configured; argv[0] names the hook in messages. */
  command: readonly string[];
  /** Absolute real path of argv[0], resolved at start-up. */
  program: string;
  /** Glob patterns over tool names. */
  tools: readonly string[];
  /** Deadline, in ms. */
  timeoutMs: number;
}

/** Standard output kept, in bytes; an answer longer than this is refused. */
const STDOUT_LIMIT_BYTES = 64 * 1024;
/** Standard error kept, in bytes (its first line goes into the failure reason). */
const STDERR_LIMIT_BYTES = 4 * 1024;
/** After TERM at the deadline, how long the group may take before KILL, in ms. */
const KILL_GRACE_MS = 1000;

/**
 * Runs a command hook once with `input` on stdin and answers its stdout, unparsed. Every process
 * the hook started is gone when this returns or throws.
 *
 * @throws {HookFailure} when it cannot start, times out, is killed, is interrupted, or exits
 *   non-zero.
 */
async function runCommandHook(
  spec: CommandHookSpec,
  environment: CommandHookEnvironment,
  input: HookInput,
  signal?: AbortSignal,
): Promise<string> {
  const marker = callMarker(input.run_id, `hook-${crypto.randomUUID()}`);
  try {
    return await runMarkedHook(spec, environment, input, marker, signal);
  } finally {
    await sweepMarked(marker, {
      psPath: environment.psPath,
      environmentReader: environment.environmentReader ?? null,
    });
  }
}

async function runMarkedHook(
  spec: CommandHookSpec,
  environment: CommandHookEnvironment,
  input: HookInput,
  marker: string,
  signal: AbortSignal | undefined,
): Promise<string> {
  const outcome = await runConfined({
    program: spec.program,
    args: spec.command.slice(1),
    cwd: environment.cwd,
    env: { ...environment.env, [CALL_MARKER_ENV]: marker },
    stdin: `${JSON.stringify(input)}\n`,
    timeoutMs: spec.timeoutMs,
    killGraceMs: KILL_GRACE_MS,
    stdoutLimitBytes: STDOUT_LIMIT_BYTES,
    stderrLimitBytes: STDERR_LIMIT_BYTES,
    artifact: null,
    isolation: { mode: "none" },
    setsidPath: environment.setsidPath,
    killPath: environment.killPath,
    ...(signal === undefined ? {} : { signal }),
  });
  if (outcome.spawn_error !== null) {
    throw new HookFailure(`it could not start: ${outcome.spawn_error}`);
  }
  if (outcome.timed_out) throw new HookFailure(`it timed out after ${spec.timeoutMs} ms`);
  if (outcome.aborted) throw new HookFailure("the run was interrupted while it ran");
  const stderr = firstLine(outcome.stderr.text);
  const said = stderr === "" ? "" : ` (stderr: "${stderr}")`;
  if (outcome.signal !== null) throw new HookFailure(`it was killed by ${outcome.signal}${said}`);
  if (outcome.exit_code !== 0) {
    throw new HookFailure(`it exited with status ${outcome.exit_code}${said}`);
  }
  if (outcome.stdout.truncated) {
    throw new HookFailure(`it printed more than ${STDOUT_LIMIT_BYTES} bytes`);
  }
  return outcome.stdout.text;
}

/**
 * A PreToolUse hook that runs a program.
 *
 * @example
 * ```ts ignore
 * const hook = commandPreToolUseHook(
 *   { command: ["/usr/local/bin/check"], program: "/usr/local/bin/check", tools: ["*"],
 *     timeoutMs: 10_000 },
 *   { setsidPath: "/usr/bin/setsid", killPath: "/usr/bin/kill", psPath: "/usr/bin/ps",
 *     cwd: "/work", env: {} },
 * );
 * ```
 */
export function commandPreToolUseHook(
  spec: CommandHookSpec,
  environment: CommandHookEnvironment,
): PreToolUseHook {
  return {
    name: spec.command[0] ?? spec.program,
    tools: spec.tools,
    async decide(input: HookInput, signal?: AbortSignal): Promise<HookAnswer> {
      const parsed = parseHookAnswer(await runCommandHook(spec, environment, input, signal));
      if (!parsed.ok) throw new HookFailure(parsed.reason);
      return parsed.answer;
    },
  };
}

/** A PostToolUse hook that runs a program; its stdout is ignored, a non-zero exit is a failure. */
export function commandPostToolUseHook(
  spec: CommandHookSpec,
  environment: CommandHookEnvironment,
): PostToolUseHook {
  return {
    name: spec.command[0] ?? spec.program,
    tools: spec.tools,
    async observe(input: PostToolUseInput): Promise<void> {
      await runCommandHook(spec, environment, input);
    },
  };
}

function firstLine(text: string): string {
  const line = (text.trim().split("\n", 1)[0] ?? "").trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
