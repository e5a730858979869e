/**
 * The GitHub Actions step summary file (`GITHUB_STEP_SUMMARY`): checked before a run starts,
 * appended to when it ends.
 *
 * @module
 */

import { appendRunnerFile, checkRunnerFile } from "./_runner_file.ts";

/** The variable GitHub Actions sets to the step summary file. */
export const STEP_SUMMARY_VARIABLE = "GITHUB_STEP_SUMMARY";

/**
 * Checks, before the run starts, that the step summary file can be appended to (opening it for
 * appending, which creates it when missing, as the runner does): a run must not do its work and
 * then fail to report it.
 *
 * @param env Reads the environment.
 * @returns The file's path, or null when the variable is unset or empty.
 * @throws {UsageError} naming `GITHUB_STEP_SUMMARY`, the path, the reason and what to change.
 * @example
 * ```ts
 * import { checkStepSummary } from "./_step_summary.ts";
 * console.assert((await checkStepSummary(() => undefined)) === null);
 * ```
 */
export async function checkStepSummary(
  env: (name: string) => string | undefined,
): Promise<string | null> {
  return await checkRunnerFile(STEP_SUMMARY_VARIABLE, env);
}

/**
 * Appends the run's summary to the step summary file. The run is over and recorded by then, so a
 * failure only prints a line on stderr (through `warn`) and does not change the exit status.
 *
 * @param path The file from {@linkcode checkStepSummary}.
 * @param text The Markdown summary.
 * @param warn Prints one line (without its newline).
 */
export async function appendStepSummary(
  path: string,
  text: string,
  warn: (line: string) => void,
): Promise<void> {
  await appendRunnerFile(STEP_SUMMARY_VARIABLE, path, text, "the step summary", warn);
}
