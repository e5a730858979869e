/**
 * What a run leaves for CI: the final result as one JSON object (`--output json`), a Markdown step
 * summary appended to `$GITHUB_STEP_SUMMARY`, and `::error`/`::warning` annotations under GitHub
 * Actions (workflow commands, docs.github.com "Workflow commands for GitHub Actions"). Each is a
 * function of the sealed run's {@linkcode RunSummary} (`readRunSummary`), and each is redacted
 * with the run's redactor once more (the folder already is): a task, an answer or a summary that holds a secret shows
 * `[REDACTED:<kind>]`; grants name a secret-holding argv by its hash already.
 *
 * @module
 */

import { MIN_SECRET_LENGTH, type Redactor } from "../audit/mod.ts";
import {
  codeBlock,
  displayMarkdown,
  escapeHtml,
  escapeMarkdown,
  type RunSummary,
  type SummaryCall,
  type UsageJson,
} from "../report/mod.ts";
import { briefOf } from "../result/mod.ts";
import * as nodePath from "node:path";

/**
 * The `--output json` object, one line: {@linkcode RunSummary}'s facts under stable keys (those
 * before `summary_version` 1 unchanged), redacted.
 *
 * @param summary The sealed run's summary (`readRunSummary`).
 * @param redactor The run's redactor, applied to every value once more.
 */
export function reportJson(summary: RunSummary, redactor: Redactor): string {
  return JSON.stringify(redactor.redactValue({
    summary_version: summary.summary_version,
    run_id: summary.run_id,
    run_dir: summary.run_dir,
    end_reason: summary.end_reason,
    final_text: summary.final_text,
    error: summary.error,
    error_code: summary.error_code,
    error_details: summary.error_details,
    turns: summary.turns,
    ...summary.counts,
    duration_ms: summary.duration_ms,
    segments: summary.segments,
    usage: summary.usage,
    cost_usd: summary.cost_usd,
    ...(summary.output_schema
      ? {
        structured_output: summary.output_schema.value,
        output_schema_errors: summary.output_schema.errors,
      }
      : {}),
    deliverables: summary.deliverables,
    approvals_needed: summary.pending.map((entry) => entry.grant),
    replay: summary.replay,
  }));
}

/** Escapes a value for a workflow command's message (`%`, CR, LF). */
function escapeData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

/** A workflow command property value, escaped as the runner reads it (`:` and `,` too). */
function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
}

/**
 * `::add-mask::<value>` workflow commands for secret values, so that the GitHub Actions runner
 * hides them in every later log line. Values shorter than {@linkcode MIN_SECRET_LENGTH} are left
 * out (as the redactor does: too short to tell from ordinary text); a value with several lines is
 * masked line by line (a mask is one line), each also without its surrounding blanks.
 *
 * @param values Secret values, e.g. those of the config's `audit.secret_env` variables.
 * @returns One command a masked text, without duplicates, in the order found.
 * @example
 * ```ts
 * import { maskCommands } from "./_ci_output.ts";
 * console.assert(maskCommands(["s3cr3t-value", "short"])[0] === "::add-mask::s3cr3t-value");
 * ```
 */
export function maskCommands(values: readonly string[]): string[] {
  const masked = new Set<string>();
  for (const value of values) {
    for (const line of value.split(/\r?\n|\r/)) {
      for (const candidate of [line, line.trim()]) {
        if (candidate.length >= MIN_SECRET_LENGTH) masked.add(candidate);
      }
    }
  }
  return [...masked].map((text) => `::add-mask::${escapeData(text)}`);
}

/**
 * `::error` for failed (and skipped) calls and `::warning` for denied ones, one line each,
 * redacted and escaped as workflow commands.
 */
export function annotations(summary: RunSummary, redactor: Redactor): string[] {
  return summary.calls.flatMap((result) => {
    if (result.status === "completed") return [];
    const level = result.status === "denied" ? "warning" : "error";
    const text = escapeData(redactor.redactText(result.summary));
    // The tool's name is the model's (an unknown tool's too): escaped as a property value.
    return [`::${level} title=${escapeProperty(`kagent-run ${result.tool}`)}::${text}`];
  });
}

/**
 * The Markdown step summary: task, end reason, a table of calls, the calls waiting for an
 * approval with their grants, deliverables, the report files; redacted, every text escaped.
 */
export function stepSummary(summary: RunSummary, redactor: Redactor): string {
  // Redacted before it is cut: a cut secret would no longer be recognised. Cut before it is
  // escaped (a cut escape would escape the cell's end). The task, the model's tool names, paths
  // and summaries are text: escaped Markdown (no image or link, no HTML, no code span ended), so a
  // summary cannot show an image whose address carries what the model read.
  const cell = (text: string) => escapeMarkdown(redactor.redactText(text).slice(0, 160));
  const code = (text: string) => {
    const flat = text.replaceAll(/\r\n|\r|\n/g, " ");
    return /[`|]/.test(flat) ? escapeMarkdown(flat) : `\`${flat}\``;
  };
  const { counts } = summary;
  const segments = summary.segments > 1 ? ` over ${summary.segments} segments` : "";
  const lines = [
    `## kagent-run ${summary.run_id}`,
    "",
    `**Task:** ${cell(summary.task ?? "")}`,
    "",
    `**End:** ${summary.end_reason ?? "none recorded"} in ${
      ((summary.duration_ms ?? 0) / 1000).toFixed(2)
    } s${segments} — ` +
    `${counts.calls} tool calls, ${counts.denied} denied, ${counts.failed} failed`,
    ...errorLines(summary, redactor),
    "",
    usageLine(summary.usage, summary.cost_usd),
    ...answerLines(summary, redactor),
    "",
    "| # | tool | result | summary |",
    "| --- | --- | --- | --- |",
    ...summary.calls.map((result, index) =>
      `| ${index + 1} | ${code(result.tool)} | ${
        result.ok ? "ok" : result.error_type ?? "failed"
      } | ${cell(briefOf(result.display) ?? result.summary)} |`
    ),
    ...displayDetails(summary.calls),
  ];
  if (summary.pending.length > 0) {
    // What a reviewer judges before approving (the job of `kagent-run resume`): the call, its
    // arguments, why it asked.
    lines.push(
      "",
      "**Calls waiting for an approval:**",
      "",
      "| call | arguments | why it asked |",
      "| --- | --- | --- |",
      ...summary.pending.map((entry) =>
        `| ${code(entry.tool)} | ${cell(JSON.stringify(entry.arguments_summary) ?? "")} | ${
          cell(`${entry.reason} (rule ${entry.rule})`)
        } |`
      ),
    );
    lines.push("", "**Approvals needed** (re-run with these to allow exactly these calls):", "");
    for (const entry of summary.pending) {
      if (entry.approve_argument !== null) lines.push(`- ${code(entry.approve_argument)}`);
    }
    if (summary.replay !== null) {
      lines.push("", "The whole command, with every grant:", "", codeBlock(summary.replay, "sh"));
    }
  }
  if (summary.deliverables.length > 0) {
    lines.push(
      "",
      "**Deliverables:**",
      "",
      ...summary.deliverables.map((path) => `- ${code(path)}`),
    );
  }
  if (summary.report_files) {
    // A file on the runner: named, to be uploaded as a workflow artifact with the run folder.
    const relative = (path: string) => nodePath.relative(summary.run_dir, path);
    lines.push(
      "",
      `**Report:** \`${relative(summary.report_files.html)}\` and ` +
        `\`${relative(summary.report_files.markdown)}\` in the run folder \`${summary.run_dir}\` ` +
        "(upload the folder as a workflow artifact to read them)",
    );
  }
  return redactor.redactText(lines.join("\n") + "\n");
}

/** The step summary's line: `**Tokens:** 1200 in (200 cached), 300 out, 1500 in all; cost $0.0081`. */
export function usageLine(usage: UsageJson | null, cost: number | null): string {
  if (usage === null) return "**Tokens:** not reported by the model provider";
  const cached = usage.cache_read_input_tokens > 0
    ? ` (${usage.cache_read_input_tokens} cached)`
    : "";
  return `**Tokens:** ${usage.input_tokens} in${cached}, ${usage.output_tokens} out, ` +
    `${usage.total_tokens} in all${cost === null ? "" : `; cost $${cost.toFixed(4)}`}`;
}

/** Most characters of the final answer in a step summary; the rest is in the run folder. */
export const MAX_SUMMARY_ANSWER_CHARS = 8000;

/** The final answer as a fenced block (redacted, cut to {@linkcode MAX_SUMMARY_ANSWER_CHARS}). */
function answerLines(summary: RunSummary, redactor: Redactor): string[] {
  const answer = summary.final_text;
  if (answer === null || answer.trim() === "") return [];
  const redacted = redactor.redactText(answer);
  const cut = redacted.length > MAX_SUMMARY_ANSWER_CHARS
    ? `${redacted.slice(0, MAX_SUMMARY_ANSWER_CHARS)}\n… (${
      redacted.length - MAX_SUMMARY_ANSWER_CHARS
    } more characters in the run folder's events.jsonl)`
    : redacted;
  return ["", "**Answer:**", "", codeBlock(cut, "text")];
}

/** Most bytes of call details (display blocks) in a step summary: 256 KiB of GitHub's 1 MiB. */
export const MAX_SUMMARY_DETAILS_BYTES = 256 * 1024;

/**
 * Each call's display blocks other than its brief (diffs, commands, tables, excerpts, blocks of
 * unknown types as JSON), in a collapsed `<details>` a call, until
 * {@linkcode MAX_SUMMARY_DETAILS_BYTES}; the rest are counted in a last line.
 */
function displayDetails(calls: readonly SummaryCall[]): string[] {
  const lines: string[] = [];
  let bytes = 0;
  let left = 0;
  calls.forEach((result, index) => {
    const blocks = result.display.filter((block) => block.type !== "brief");
    if (blocks.length === 0) return;
    const body = displayMarkdown(blocks, { runBase: null, maxRows: 10 }).join("\n");
    const size = new TextEncoder().encode(body).byteLength;
    if (bytes + size > MAX_SUMMARY_DETAILS_BYTES) {
      left += 1;
      return;
    }
    bytes += size;
    lines.push(
      "",
      `<details><summary>#${index + 1} ${escapeHtml(result.tool)}</summary>`,
      "",
      body,
      "",
      "</details>",
    );
  });
  if (left > 0) lines.push("", `(${left} more calls' details left out: the summary's size limit)`);
  return lines;
}

/**
 * The run's error for the step summary (why the model failed, with its code), redacted, as a
 * fenced block so its text is shown as it is; none when the run has no error.
 */
function errorLines(summary: RunSummary, redactor: Redactor): string[] {
  const error = summary.error;
  if (error === null) return [];
  const code = summary.error_code === null ? "" : ` (\`${summary.error_code}\`)`;
  // A fence inside the message would end the block early.
  const text = redactor.redactText(error).replaceAll("```", "` ` `");
  return ["", `**Error**${code}:`, "", "```text", text, "```"];
}
