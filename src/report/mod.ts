/**
 * Reports of a run (`kagent-run report`, `kagent-run run --report`): a self-contained HTML file
 * and a Markdown file, read from the run folder alone, with the verify verdict at the top.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeRunReport } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/events.jsonl`, '{"type":"run.started","task":"t"}\n');
 * const written = await writeRunReport(dir);
 * assert.ok(written.model.task === "t");
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */

export {
  type CallStatus,
  type CallView,
  type CommandView,
  type EditView,
  EXCERPT_LINES,
  MAX_DIFF_LINES,
  type RunLink,
} from "./call_view.ts";
export { displayMarkdown, type DisplayMarkdownOptions } from "./display_markdown.ts";
export { escapeHtml, html, runHref, SafeHtml } from "./html_escape.ts";
export { type HtmlReportOptions, renderHtmlReport, REPORT_CSP } from "./html_report.ts";
export {
  codeBlock,
  escapeMarkdown,
  type MarkdownReportOptions,
  renderMarkdownReport,
} from "./markdown_report.ts";
export {
  buildReportModel,
  type ChildView,
  type DenialView,
  type ReportModel,
  type TurnView,
} from "./report_model.ts";
export { notChecked, type ReportVerdict, type VerdictStatus } from "./report_verdict.ts";
export {
  type ChildRun,
  MAX_LISTED_FILES,
  MAX_READ_BYTES,
  readRunFolder,
  type RunFile,
  type RunFiles,
  RunFolderError,
  type RunRecord,
} from "./run_reading.ts";
export { runVerdict, type RunVerdictOptions } from "./run_verdict.ts";
export {
  HTML_REPORT_FILE,
  MARKDOWN_REPORT_FILE,
  type WriteReportOptions,
  writeRunReport,
  type WrittenReport,
} from "./write_report.ts";
