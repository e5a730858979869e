/**
 * What a run leaves for CI: the final result as one JSON object (`--output json`), a Markdown step
 * summary appended to `$GITHUB_STEP_SUMMARY`, and `::error`/`::warning` annotations under GitHub
 * Actions (workflow commands, docs.github.com "Workflow commands for GitHub Actions"). Each is
 * redacted with the run's redactor: a task, an answer or a summary that holds a secret shows
 * `[REDACTED:<kind>]`; grants name a secret-holding argv by its hash already.
 *
 * @module
 */

import type { AgentOutcome } from "../agent/mod.ts";
import type { PendingApproval } from "../approval/mod.ts";
import { MIN_SECRET_LENGTH, type Redactor } from "../audit/mod.ts";
import { approveArgument } from "../approval/mod.ts";
import { eventTypeOf } from "../runtime/mod.ts";
import { briefOf, type ToolResult } from "../result/mod.ts";
import { codeBlock, displayMarkdown, escapeHtml, escapeMarkdown } from "../report/mod.ts";
import * as nodePath from "node:path";
import { costUsd, type Pricing, usageJson, usageLine } from "./_usage.ts";
import type { AnswerCheck } from "./_output_schema.ts";

/** The facts of a finished run that CI output is made of. */
export interface RunReport {
  run_id: string;
  run_dir: string;
  task: string;
  outcome: AgentOutcome;
  counts: { calls: number; denied: number; failed: number };
  deliverables: string[];
  pending: readonly PendingApproval[];
  /** The command that re-runs the run with every pending grant, or null (none pending). */
  replay: string | null;
  /** The run's redactor (config `audit.secret_env` and token patterns), applied to every output. */
  redactor: Redactor;
  /** The config's `model.pricing` (the cost is reported with it), or null. @default null */
  pricing?: Pricing | null;
  /** The final answer checked against `--output-schema`, or null without one. @default null */
  answer_check?: AnswerCheck | null;
  /**
   * The report files `--report` writes when the run ends (absolute paths), or null without it.
   * @default null
   */
  report_files?: { html: string; markdown: string } | null;
}

/** The `--output json` object: one line, stable keys. */
export function reportJson(report: RunReport): string {
  return JSON.stringify(report.redactor.redactValue({
    run_id: report.run_id,
    run_dir: report.run_dir,
    end_reason: report.outcome.end_reason,
    final_text: report.outcome.final_text,
    error: report.outcome.error,
    error_code: report.outcome.error_code,
    error_details: report.outcome.error_details,
    turns: report.outcome.turns,
    ...report.counts,
    duration_ms: report.outcome.duration_ms,
    usage: usageJson(report.outcome.usage),
    cost_usd: costUsd(report.outcome.usage, report.pricing ?? null),
    ...(report.answer_check
      ? {
        structured_output: report.answer_check.value,
        output_schema_errors: report.answer_check.errors,
      }
      : {}),
    deliverables: report.deliverables,
    approvals_needed: report.pending.map((entry) => entry.grant),
    replay: report.replay,
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

/** `::error` for failed calls and `::warning` for denied ones, one line each. */
export function annotations(report: RunReport): string[] {
  return report.outcome.results.flatMap((result) => {
    const kind = eventTypeOf(result);
    if (kind === "tool.completed") return [];
    const level = kind === "tool.denied" ? "warning" : "error";
    const summary = escapeData(report.redactor.redactText(result.summary));
    // The tool's name is the model's (an unknown tool's too): escaped as a property value.
    return [`::${level} title=${escapeProperty(`kagent-run ${result.tool}`)}::${summary}`];
  });
}

/** The Markdown step summary: task, end reason, a table of calls, denials with grants, deliverables. */
export function stepSummary(report: RunReport): string {
  // Redacted before it is cut: a cut secret would no longer be recognised. Cut before it is
  // escaped (a cut escape would escape the cell's end). The task, the model's tool names, paths
  // and summaries are text: escaped Markdown (no image or link, no HTML, no code span ended), so a
  // summary cannot show an image whose address carries what the model read.
  const cell = (text: string) => escapeMarkdown(report.redactor.redactText(text).slice(0, 160));
  const code = (text: string) => {
    const flat = text.replaceAll(/\r\n|\r|\n/g, " ");
    return /[`|]/.test(flat) ? escapeMarkdown(flat) : `\`${flat}\``;
  };
  const lines = [
    `## kagent-run ${report.run_id}`,
    "",
    `**Task:** ${cell(report.task)}`,
    "",
    `**End:** ${report.outcome.end_reason} in ${
      (report.outcome.duration_ms / 1000).toFixed(2)
    } s — ` +
    `${report.counts.calls} tool calls, ${report.counts.denied} denied, ${report.counts.failed} failed`,
    ...errorLines(report),
    "",
    usageLine(report.outcome.usage, report.pricing ?? null),
    ...answerLines(report),
    "",
    "| # | tool | result | summary |",
    "| --- | --- | --- | --- |",
    ...report.outcome.results.map((result, index) =>
      `| ${index + 1} | ${code(result.tool)} | ${
        result.ok ? "ok" : result.error?.type ?? "failed"
      } | ${cell(briefOf(result.display) ?? result.summary)} |`
    ),
    ...displayDetails(report.outcome.results),
  ];
  if (report.pending.length > 0) {
    // What a reviewer judges before approving (the job of `kagent-run resume`): the call, its
    // arguments, why it asked.
    lines.push(
      "",
      "**Calls waiting for an approval:**",
      "",
      "| call | arguments | why it asked |",
      "| --- | --- | --- |",
      ...report.pending.map((entry) =>
        `| ${code(entry.request.tool)} | ${
          cell(JSON.stringify(entry.request.arguments_summary) ?? "")
        } | ${cell(`${entry.request.reason} (rule ${entry.request.rule})`)} |`
      ),
    );
    lines.push("", "**Approvals needed** (re-run with these to allow exactly these calls):", "");
    for (const entry of report.pending) lines.push(`- ${code(approveArgument(entry.grant))}`);
    if (report.replay !== null) {
      lines.push("", "The whole command, with every grant:", "", codeBlock(report.replay, "sh"));
    }
  }
  if (report.deliverables.length > 0) {
    lines.push(
      "",
      "**Deliverables:**",
      "",
      ...report.deliverables.map((path) => `- ${code(path)}`),
    );
  }
  if (report.report_files) {
    // A file on the runner: named, to be uploaded as a workflow artifact with the run folder.
    const relative = (path: string) => nodePath.relative(report.run_dir, path);
    lines.push(
      "",
      `**Report:** \`${relative(report.report_files.html)}\` and ` +
        `\`${relative(report.report_files.markdown)}\` in the run folder \`${report.run_dir}\` ` +
        "(upload the folder as a workflow artifact to read them)",
    );
  }
  return report.redactor.redactText(lines.join("\n") + "\n");
}

/** Most characters of the final answer in a step summary; the rest is in the run folder. */
export const MAX_SUMMARY_ANSWER_CHARS = 8000;

/** The final answer as a fenced block (redacted, cut to {@linkcode MAX_SUMMARY_ANSWER_CHARS}). */
function answerLines(report: RunReport): string[] {
  const answer = report.outcome.final_text;
  if (answer === null || answer.trim() === "") return [];
  const redacted = report.redactor.redactText(answer);
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
function displayDetails(results: readonly ToolResult[]): string[] {
  const lines: string[] = [];
  let bytes = 0;
  let left = 0;
  results.forEach((result, index) => {
    const blocks = (result.display ?? []).filter((block) => block.type !== "brief");
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
function errorLines(report: RunReport): string[] {
  const error = report.outcome.error;
  if (error === null) return [];
  const code = report.outcome.error_code === null ? "" : ` (\`${report.outcome.error_code}\`)`;
  // A fence inside the message would end the block early.
  const text = report.redactor.redactText(error).replaceAll("```", "` ` `");
  return ["", `**Error**${code}:`, "", "```text", text, "```"];
}

/** Relative paths of the files in a deliverables folder. */
export async function listDeliverables(folder: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, prefix: string) => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) await walk(`${dir}/${entry.name}`, `${prefix}${entry.name}/`);
      else if (entry.isFile) found.push(`${prefix}${entry.name}`);
    }
  };
  await walk(folder, "").catch(() => {});
  return found.sort();
}
