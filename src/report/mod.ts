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

export { displayMarkdown } from "./display_markdown.ts";
export { escapeHtml } from "./html_escape.ts";

export { codeBlock, escapeMarkdown } from "./markdown_report.ts";

export { RunFolderError } from "./run_reading.ts";

export { readRunSummary, type RunSummary, type SummaryCall } from "./run_summary.ts";

export type { UsageJson } from "./run_usage.ts";

export { HTML_REPORT_FILE, MARKDOWN_REPORT_FILE, writeRunReport } from "./write_report.ts";
