/**
 * The end of a run as CI sees it, published once the run folder is sealed: the run's summary is
 * read back from the folder (`readRunSummary`), and every output is made from it: the answer (or
 * the `--output json` object, or the stream's `run.ended` line) on stdout, the annotations, the
 * GitHub step summary and the step outputs. What CI shows is what the folder proves.
 *
 * @module
 */

import type { Redactor } from "../audit/mod.ts";
import { readRunSummary, type RunSummary } from "../report/mod.ts";
import { annotations, reportJson, stepSummary } from "./_ci_output.ts";
import type { CommandIo } from "./_common.ts";
import { displayRunDir } from "./display_run_dir.ts";
import { appendGithubOutput } from "./_github_output.ts";
import type { RunFeed } from "./_run_feed.ts";
import type { OutputFormat } from "./_run_options.ts";
import { appendStepSummary } from "./_step_summary.ts";

/** Where and how a run's end is published. */
export interface RunEndContext {
  io: CommandIo;
  /** `--output`: `text` prints the answer, `json` the summary's object, `stream-json` `run.ended`. */
  output: OutputFormat;
  /** The run's feed (prints `run.ended` and closes the progress group). */
  feed: RunFeed;
  /** The run's redactor (every secret of the run), applied to everything printed once more. */
  redactor: Redactor;
  /** `$GITHUB_STEP_SUMMARY` (checked before the run), or null. */
  summaryFile: string | null;
  /** `$GITHUB_OUTPUT` (checked before the run), or null. */
  outputFile: string | null;
}

/**
 * Reads the sealed run in `runDir` and publishes its end: with `--output json` the summary's
 * object, with `stream-json` the `run.ended` line, else the final answer (under GitHub Actions
 * between `::stop-commands::` and a token the model cannot know) and the annotations; then the
 * step summary and the step outputs when their files are set. A step file that cannot be written
 * only prints a line (see `appendRunnerFile`).
 *
 * @param runDir The run folder, sealed (its session closed).
 * @param context See {@linkcode RunEndContext}.
 * @returns The summary published, or null when the folder could not be read back: the reason is
 * printed on stderr, nothing else is published, and the run must fail.
 */
export async function publishRunEnd(
  runDir: string,
  context: RunEndContext,
): Promise<RunSummary | null> {
  const { io, output, redactor } = context;
  let summary: RunSummary;
  try {
    summary = await readRunSummary(runDir);
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    io.stderr(
      `kagent-run: ${
        redactor.redactText(
          `Cannot publish the end of the run in "${displayRunDir(runDir)}": ${reason}`,
        )
      }\n`,
    );
    return null;
  }
  if (output === "json") io.stdout(`${reportJson(summary, redactor)}\n`);
  else if (output === "stream-json") context.feed.end(summary, redactor);
  else if (summary.final_text !== null) {
    const answer = redactor.redactText(summary.final_text);
    if (io.env("GITHUB_ACTIONS") === "true") {
      // The model's text is not workflow commands: a line of it such as `::error::` or
      // `::set-output` is printed between ::stop-commands:: and a token it cannot know.
      const token = crypto.randomUUID();
      io.stdout(`::stop-commands::${token}\n${answer}\n::${token}::\n`);
    } else io.stdout(`${answer}\n`);
  }
  // Under GitHub Actions: annotations (workflow commands are read from stdout, so not with
  // --output json, whose stdout must be the one JSON object) and the step summary.
  if (io.env("GITHUB_ACTIONS") === "true" && output === "text") {
    for (const line of annotations(summary, redactor)) io.stdout(`${line}\n`);
  }
  const warn = (line: string) => io.stderr(`${line}\n`);
  if (context.summaryFile !== null) {
    await appendStepSummary(context.summaryFile, stepSummary(summary, redactor), warn);
  }
  if (context.outputFile !== null) {
    await appendGithubOutput(context.outputFile, summary, redactor, warn);
  }
  return summary;
}
