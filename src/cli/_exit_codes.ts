/**
 * The exit codes of the command line, what each means, and the code a finished run exits with.
 * Re-exported by `_common.ts`.
 *
 * @module
 */

/**
 * Exit codes a pipeline can branch on. One table: {@linkcode EXIT_MEANINGS} says what each means
 * (printed by `--help` and in docs/USAGE.md).
 *
 * - `ok` 0: the run completed and no call is waiting for an approval (`call`: the call succeeded);
 * - `failed` 1: failed in general (`call`: a tool error or a denial; a run: an end not listed below);
 * - `usage` 2: a usage or configuration error, before anything ran;
 * - `approvalRequired` 3: the run completed, but at least one call ended `approval_required`; the
 *   grants that let exactly those calls through are printed (and in `approvals/pending.jsonl`);
 * - `modelFailed` 4: the model provider failed (end reason `model_error`);
 * - `turnLimit` 5: the run reached `agent.max_turns` (end reason `max_turns`) or
 *   `limits.max_total_tokens` (end reason `max_total_tokens`);
 * - `tampered` 6, `incomplete` 7: `verify` found the run folder changed, or not sealed (killed?);
 * - `outputInvalid` 8: the run completed, but its final answer is not JSON matching
 *   `--output-schema`;
 * - `interrupted` 130: SIGINT (128 + 2, as shells report it);
 * - `terminated` 143: SIGTERM (128 + 15).
 */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  approvalRequired: 3,
  modelFailed: 4,
  turnLimit: 5,
  tampered: 6,
  incomplete: 7,
  outputInvalid: 8,
  interrupted: 130,
  terminated: 143,
} as const;

/** One exit code. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What each exit code means, in the order of {@linkcode EXIT}; `--help` prints this table. */
export const EXIT_MEANINGS: readonly { code: ExitCode; meaning: string }[] = [
  { code: EXIT.ok, meaning: "completed; no call is waiting for an approval (call: it succeeded)" },
  {
    code: EXIT.failed,
    meaning: "failed (call: a tool error or a denial; run: an end not listed here)",
  },
  { code: EXIT.usage, meaning: "usage or configuration error; nothing ran" },
  {
    code: EXIT.approvalRequired,
    meaning: "approval required: a call ended approval_required; re-run with the printed grants",
  },
  { code: EXIT.modelFailed, meaning: "the model failed (end reason model_error)" },
  {
    code: EXIT.turnLimit,
    meaning: "a limit was reached: agent.max_turns (max_turns) or limits.max_total_tokens",
  },
  { code: EXIT.tampered, meaning: "verify: the run folder was tampered with (or wrong signature)" },
  { code: EXIT.incomplete, meaning: "verify: the run is incomplete, not sealed (killed?)" },
  {
    code: EXIT.outputInvalid,
    meaning: "the final answer is not JSON matching --output-schema (output_schema_errors)",
  },
  { code: EXIT.interrupted, meaning: "interrupted by SIGINT; the run folder records the abort" },
  { code: EXIT.terminated, meaning: "terminated by SIGTERM; the run folder records the abort" },
];

/** The {@linkcode EXIT_MEANINGS} table as help text lines. */
export const EXIT_HELP: string = "Exit status:\n" +
  EXIT_MEANINGS.map((entry) => `  ${String(entry.code).padStart(3)}  ${entry.meaning}`).join("\n") +
  "\n";

/**
 * The exit code of a finished run: the end reason decides; a completed run with calls that ended
 * `approval_required` exits {@linkcode EXIT.approvalRequired}; an abort exits with the code of the
 * signal that caused it (SIGTERM 143, otherwise 130).
 *
 * @param endReason The agent loop's end reason (`completed`, `max_turns`, `model_error`,
 *   `aborted`, `aborted_tools`; any other is `failed`).
 * @param pendingApprovals How many calls ended `approval_required`.
 * @param signal The signal that aborted the run, or null.
 * @example
 * ```ts
 * import { EXIT, runExitCode } from "./_exit_codes.ts";
 * console.assert(runExitCode("completed", 0, null) === EXIT.ok);
 * console.assert(runExitCode("completed", 1, null) === EXIT.approvalRequired);
 * console.assert(runExitCode("aborted_tools", 0, "SIGTERM") === EXIT.terminated);
 * ```
 */
export function runExitCode(
  endReason: string,
  pendingApprovals: number,
  signal: Deno.Signal | null,
): ExitCode {
  switch (endReason) {
    case "completed":
      return pendingApprovals > 0 ? EXIT.approvalRequired : EXIT.ok;
    case "model_error":
      return EXIT.modelFailed;
    case "max_turns":
    case "max_total_tokens":
      return EXIT.turnLimit;
    case "aborted":
    case "aborted_tools":
      return signal === "SIGTERM" ? EXIT.terminated : EXIT.interrupted;
    default:
      return EXIT.failed;
  }
}
