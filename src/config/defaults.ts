/**
 * Default values of the optional config keys. Each is what a config without the key gets.
 *
 * @module
 */

import { DEFAULT_SEARCH_TIME_BUDGET_MS } from "../sandbox/time_budget.ts";

/** `agent.max_turns`: model turns before the run stops. Range 1..1000. */
export const DEFAULT_MAX_TURNS = 50;

/** `agent.instructions`: the largest instructions file accepted, in bytes (64 KiB). */
export const MAX_INSTRUCTIONS_BYTES = 65_536;

/** `limits.*`, in bytes (levels of nesting for `max_argument_depth`, ms for the time budget). */
export const DEFAULT_LIMITS: Readonly<{
  /** Largest tool-call argument JSON text accepted: 1 MiB. */
  max_argument_bytes: number;
  /** Deepest nesting of arrays and objects in tool-call arguments. */
  max_argument_depth: number;
  /** Largest tool output kept inline in a result; above it the full output goes to an artifact. */
  max_output_bytes: number;
  /** Largest artifact stored; above it the artifact is cut and marked truncated: 100 MiB. */
  max_artifact_bytes: number;
  /** Longest one search or recursive listing runs, in ms (10 s); then it returns, truncated. */
  search_time_budget_ms: number;
}> = Object.freeze({
  max_argument_bytes: 1_048_576,
  max_argument_depth: 32,
  max_output_bytes: 65_536,
  max_artifact_bytes: 104_857_600,
  search_time_budget_ms: DEFAULT_SEARCH_TIME_BUDGET_MS,
});

/**
 * `limits.max_argument_depth`: the highest value a config may set (256 levels). Arguments are
 * parsed and walked without recursion, but they are also copied to the tool Worker (structured
 * clone), redacted and summarised, which recurse: V8's structured clone overflows its stack
 * somewhere between 1,000 and 5,000 levels, so a config cannot raise the limit near that.
 */
export const MAX_ARGUMENT_DEPTH = 256;

/**
 * `audit.secret_env`: environment variables whose values are always redacted from logs, results and
 * artifacts. The names listed in a config file are added to these.
 */
export const DEFAULT_SECRET_ENV: readonly string[] = Object.freeze([
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
]);

/** `runs_dir`: the folder, beside the config file, that holds one folder per run. */
export const DEFAULT_RUNS_DIR = "runs";

/** `tools.*` defaults: times in ms, sizes in bytes. */
export const DEFAULT_TOOLS: Readonly<{
  default_timeout_ms: number;
  max_timeout_ms: number;
  stdout_limit_bytes: number;
  stderr_limit_bytes: number;
  git_safe_mode: boolean;
  git_write: boolean;
  max_processes: number;
  interpreters: Readonly<Record<string, string>>;
}> = Object.freeze({
  default_timeout_ms: 120_000,
  max_timeout_ms: 600_000,
  stdout_limit_bytes: 65_536,
  stderr_limit_bytes: 16_384,
  git_safe_mode: true,
  /** `.git` stays read-only for commands. */
  git_write: false,
  /** Processes a confined command's user may run at once inside bubblewrap (`RLIMIT_NPROC`). */
  max_processes: 512,
  interpreters: Object.freeze({ ".sh": "sh", ".py": "python3" }),
});

/** `skills.dirs`: one folder beside the config file. */
export const DEFAULT_SKILL_DIRS: readonly string[] = Object.freeze(["skills"]);

/** `hooks.*[].timeout_ms` default and ceiling, in ms; `hooks.*[].tools` default. */
export const DEFAULT_HOOK: Readonly<{
  timeout_ms: number;
  max_timeout_ms: number;
  tools: readonly string[];
}> = Object.freeze({
  timeout_ms: 10_000,
  max_timeout_ms: 60_000,
  tools: Object.freeze(["*"]),
});
