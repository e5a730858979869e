/**
 * Files a GitHub Actions runner names through a variable (`GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT`):
 * checked before a run starts, appended to when it ends.
 *
 * @module
 */

import { UsageError } from "./_common.ts";

/**
 * Checks, before the run starts, that the file `variable` names can be appended to (opening it for
 * appending, which creates it when missing, as the runner does): a run must not do its work and
 * then fail to report it.
 *
 * @param variable The variable's name, for the message.
 * @param env Reads the environment.
 * @returns The file's path, or null when the variable is unset or empty.
 * @throws {UsageError} naming the variable, the path, the reason and what to change.
 * @example
 * ```ts
 * import { checkRunnerFile } from "./_runner_file.ts";
 * console.assert((await checkRunnerFile("GITHUB_OUTPUT", () => undefined)) === null);
 * ```
 */
export async function checkRunnerFile(
  variable: string,
  env: (name: string) => string | undefined,
): Promise<string | null> {
  const path = env(variable);
  if (path === undefined || path === "") return null;
  try {
    const file = await Deno.open(path, { append: true, create: true });
    file.close();
  } catch (error: unknown) {
    throw new UsageError(
      `Cannot use ${variable} "${path}": ${reasonOf(error)}; point the variable at ` +
        "a file this process can append to, or unset it",
    );
  }
  return path;
}

/**
 * Appends `text` to the file. The run is over and recorded by then, so a failure only prints a
 * line through `warn` and does not change the exit status.
 *
 * @param variable The variable that named the file, for the message.
 * @param path The file from {@linkcode checkRunnerFile}.
 * @param what What is appended, for the message (`the step summary`).
 * @param warn Prints one line (without its newline).
 */
export async function appendRunnerFile(
  variable: string,
  path: string,
  text: string,
  what: string,
  warn: (line: string) => void,
): Promise<void> {
  try {
    await Deno.writeTextFile(path, text, { append: true });
  } catch (error: unknown) {
    warn(
      `kagent-run: Cannot append ${what} to ${variable} "${path}": ` +
        `${reasonOf(error)}; the run folder holds the result`,
    );
  }
}

function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.charAt(0).toLowerCase() + text.slice(1);
}
