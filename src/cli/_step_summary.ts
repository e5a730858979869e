/**
 * The GitHub Actions step summary file (`GITHUB_STEP_SUMMARY`): checked before a run starts,
 * appended to when it ends.
 *
 * @module
 */

import { UsageError } from "./_common.ts";

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
  const path = env(STEP_SUMMARY_VARIABLE);
  if (path === undefined || path === "") return null;
  try {
    const file = await Deno.open(path, { append: true, create: true });
    file.close();
  } catch (error: unknown) {
    throw new UsageError(
      `Cannot use ${STEP_SUMMARY_VARIABLE} "${path}": ${reasonOf(error)}; point the variable at ` +
        "a file this process can append to, or unset it",
    );
  }
  return path;
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
  try {
    await Deno.writeTextFile(path, text, { append: true });
  } catch (error: unknown) {
    warn(
      `kagent-run: Cannot append the step summary to ${STEP_SUMMARY_VARIABLE} "${path}": ` +
        `${reasonOf(error)}; the run folder holds the result`,
    );
  }
}

function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.charAt(0).toLowerCase() + text.slice(1);
}
