/**
 * The step outputs a run leaves for later steps of a GitHub Actions job: `run_id`, `run_dir`,
 * `end_reason`, `calls`, `denied` and `approval_required`, appended to the file `$GITHUB_OUTPUT`
 * names in the multiline-safe form (`name<<delimiter`, the value, the delimiter; docs.github.com
 * "Workflow commands for GitHub Actions", "Multiline strings"), the way `@actions/core` writes them.
 * Each value comes from the sealed run's summary (`readRunSummary`) and is redacted with the run's
 * redactor.
 *
 * @module
 */

import type { Redactor } from "../audit/mod.ts";
import type { RunSummary } from "../report/mod.ts";
import { appendRunnerFile, checkRunnerFile } from "./_runner_file.ts";

/** The variable GitHub Actions sets to the step's output file. */
export const GITHUB_OUTPUT_VARIABLE = "GITHUB_OUTPUT";

/**
 * The names of the outputs, in the order written: the run's id and absolute folder, its end reason
 * (`completed`, `max_turns`, `model_error`, `aborted`, `aborted_tools`), how many calls got a
 * result, how many of those were denied, and how many ended `approval_required` (`0` when none).
 */
export const GITHUB_OUTPUT_NAMES = [
  "run_id",
  "run_dir",
  "end_reason",
  "calls",
  "denied",
  "approval_required",
] as const;

/** One output's name. */
export type GithubOutputName = (typeof GITHUB_OUTPUT_NAMES)[number];

/**
 * The outputs of a finished run, each value redacted (a run folder under a secret-named path shows
 * `[REDACTED:<kind>]`, as everywhere else).
 *
 * @param summary The sealed run's summary.
 * @param redactor The run's redactor.
 * @returns Every name of {@linkcode GITHUB_OUTPUT_NAMES} with its value as text (`end_reason`
 * empty when the run recorded none).
 */
export function githubOutputs(
  summary: RunSummary,
  redactor: Redactor,
): Record<GithubOutputName, string> {
  const redact = (text: string) => redactor.redactText(text);
  return {
    run_id: redact(summary.run_id),
    run_dir: redact(summary.run_dir),
    end_reason: redact(summary.end_reason ?? ""),
    calls: String(summary.counts.calls),
    denied: String(summary.counts.denied),
    approval_required: String(summary.pending.length),
  };
}

/**
 * Formats outputs for the `$GITHUB_OUTPUT` file: for each, `name<<delimiter`, the value, the
 * delimiter, one a line, so a value may hold newlines. The delimiter is `ghadelimiter_` and a
 * random UUID, as `@actions/core` uses.
 *
 * @param outputs Names (letters, digits, `_`, `-`) and their values.
 * @param delimiter The delimiter. @default `ghadelimiter_<random UUID>`
 * @returns The text to append.
 * @throws {RangeError} When a name is not a valid output name, or a value holds the delimiter.
 * @example
 * ```ts
 * import { formatGithubOutput } from "./_github_output.ts";
 * const text = formatGithubOutput({ end_reason: "completed" }, "EOF");
 * console.assert(text === "end_reason<<EOF\ncompleted\nEOF\n");
 * ```
 */
export function formatGithubOutput(
  outputs: Record<string, string>,
  delimiter = `ghadelimiter_${crypto.randomUUID()}`,
): string {
  return Object.entries(outputs).map(([name, value]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) {
      throw new RangeError(`Cannot write the output "${name}": not a valid output name`);
    }
    if (value.includes(delimiter) || name.includes(delimiter)) {
      throw new RangeError(
        `Cannot write the output "${name}": its value contains the delimiter "${delimiter}"`,
      );
    }
    return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }).join("");
}

/**
 * Checks, before the run starts, that the `$GITHUB_OUTPUT` file can be appended to (creating it
 * when missing, as the runner does): a run must not do its work and then fail to hand its outputs
 * on.
 *
 * @param env Reads the environment.
 * @returns The file's path, or null when the variable is unset or empty.
 * @throws {UsageError} naming `GITHUB_OUTPUT`, the path, the reason and what to change.
 * @example
 * ```ts
 * import { checkGithubOutput } from "./_github_output.ts";
 * console.assert((await checkGithubOutput(() => undefined)) === null);
 * ```
 */
export async function checkGithubOutput(
  env: (name: string) => string | undefined,
): Promise<string | null> {
  return await checkRunnerFile(GITHUB_OUTPUT_VARIABLE, env);
}

/**
 * Appends the run's outputs to the `$GITHUB_OUTPUT` file. The run is over and recorded by then, so
 * a failure only prints a line through `warn` and does not change the exit status.
 *
 * @param path The file from {@linkcode checkGithubOutput}.
 * @param summary The sealed run's summary.
 * @param redactor The run's redactor.
 * @param warn Prints one line (without its newline).
 */
export async function appendGithubOutput(
  path: string,
  summary: RunSummary,
  redactor: Redactor,
  warn: (line: string) => void,
): Promise<void> {
  await appendRunnerFile(
    GITHUB_OUTPUT_VARIABLE,
    path,
    formatGithubOutput(githubOutputs(summary, redactor)),
    "the step outputs",
    warn,
  );
}
