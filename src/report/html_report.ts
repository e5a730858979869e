/**
 * The report as one self-contained HTML file: inline CSS, no script, no external asset, and a
 * Content Security Policy (`default-src 'none'; style-src 'unsafe-inline'; img-src data:`) that
 * would stop a script even if an escaping bug let one in. Every value from the run folder goes
 * through {@linkcode html} (escaped as text); links point only at files inside the run folder.
 *
 * @module
 */

import { html, runHref, type SafeHtml } from "./html_escape.ts";
import { REPORT_STYLE } from "./_report_style.ts";
import type { CallView, RunLink } from "./call_view.ts";
import type { ReportModel } from "./report_model.ts";
import { clip, formatDuration, segmentsText, VERDICT_LABELS } from "./_report_words.ts";
import { callsSection, commandsSection, denialsSection, editsSection } from "./_html_calls.ts";

/** The Content Security Policy the report declares in its `<meta http-equiv>`. */
export const REPORT_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** Options of {@linkcode renderHtmlReport}. */
export interface HtmlReportOptions {
  /**
   * The run folder as seen from the report's folder (`/`-separated, relative), for links to
   * artifacts and deliverables.
   * @default "" (the report is written inside the run folder)
   */
  runBase?: string;
  /** When the report was made (shown in the footer). @default new Date() */
  now?: Date;
}

/**
 * Renders the report of a run as a whole HTML document.
 *
 * @param model From `buildReportModel`.
 * @returns The document's text (UTF-8 when written).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderHtmlReport } from "./html_report.ts";
 * import { buildReportModel } from "./report_model.ts";
 * const model = buildReportModel({
 *   dir: "/runs/r1", info: null, tools: [], errors: [], pending: [], deliverables: [],
 *   children: [], texts: new Map(), run_files: [], reports: null, config: null, problems: [], events: [{ type: "run.started", task: "<script>x</script>" }],
 * }, { status: "not_checked", headline: "not verified", problems: [] });
 * const page = renderHtmlReport(model);
 * assert.ok(page.includes("&lt;script&gt;x&lt;/script&gt;") && !page.includes("<script>"));
 * ```
 */
export function renderHtmlReport(model: ReportModel, options: HtmlReportOptions = {}): string {
  const base = options.runBase ?? "";
  const link = (target: RunLink) =>
    html`<a href="${runHref(base, target.path)}">${target.label}</a>`;
  const page = html`
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
        <meta name="referrer" content="no-referrer">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>kagent-run report ${model.run_id}</title>
        <style>${REPORT_STYLE}</style>
      </head>
      <body>
    <header>
    <h1>kagent-run run ${model.run_id}</h1>
    ${verdictSection(model)}
    </header>
    ${summarySection(model, base)}
    ${timelineSection(model)}
    ${callsSection(model, link)}
    ${denialsSection(model.denials)}
    ${editsSection(model.edits, link)}
    ${commandsSection(model.commands, link)}
    ${deliverablesSection(model, base)}
    ${childrenSection(model, base)}
    ${problemsSection(model.problems)}
    <footer>Made by kagent-run report on ${(options.now ?? new Date()).toISOString()} from the run
    folder alone. Texts are as the run recorded them (redacted); a report is not a proof: the verdict
    above is.</footer>
      </body>
    </html>
  `;
  return `<!DOCTYPE html>\n${page.toString().trim()}\n`;
}

function verdictSection(model: ReportModel): SafeHtml {
  const { verdict } = model;
  const status = VERDICT_LABELS[verdict.status] === undefined ? "not_checked" : verdict.status;
  return html`<p class="verdict verdict-${status}" id="verdict"><strong>${
    VERDICT_LABELS[status]
  }</strong> ${verdict.headline}</p>
${
    verdict.problems.length === 0
      ? ""
      : html`<ul class="verdict-problems">${
        verdict.problems.map((problem) => html`<li>${problem}</li>`)
      }</ul>`
  }`;
}

function summarySection(model: ReportModel, base: string): SafeHtml {
  const { counts, tokens } = model;
  const fact = (name: string, value: unknown) =>
    html`
      <dt>${name}</dt>
      <dd>${value}</dd>
    `;
  return html`
    <section id="summary">
      <h2>Run</h2>
      <dl class="facts">
    ${fact("Task", model.task === null ? "(none)" : html`<pre>${model.task}</pre>`)}
    ${fact("Model", model.model ?? "(none)")}
    ${fact("Started", model.started_at ?? "(unknown)")}
    ${fact(
      "End reason",
      model.end_reason ?? "none recorded: no run.completed (killed, or still running)",
    )}
    ${fact(
      "Duration",
      model.duration_ms === null
        ? "(unknown)"
        : `${formatDuration(model.duration_ms)}${segmentsText(model.summary.segments)}`,
    )}
    ${fact("Turns", model.turns ?? model.timeline.length)}
    ${tokens === null ? "" : fact("Tokens", `${tokens.input} in, ${tokens.output} out`)}
    ${fact(
      "Tool calls",
      `${counts.calls} (${counts.denied} denied, ${counts.failed} failed, ${counts.skipped} skipped)`,
    )}
    ${model.error === null ? "" : fact("Error", model.error)}
    ${model.final_text === null ? "" : fact("Final answer", html`<pre>${model.final_text}</pre>`)}
    ${model.workspace === null ? "" : fact("Workspace", html`<code>${model.workspace}</code>`)}
    ${model.config === null ? "" : fact("Config", html`<code>${model.config}</code>`)}
    ${model.policy_hash === null
      ? ""
      : fact("Policy hash", html`<code>${model.policy_hash}</code>`)}
    ${model.run_files.length === 0 ? "" : fact(
      "Run files",
      model.run_files.map((path) =>
        html`
          <a href="${runHref(base, path)}">${path}</a>
        `
      ),
    )}
      </dl>
    </section>
  `;
}

function timelineSection(model: ReportModel): SafeHtml {
  const ends = model.calls.map((call) => (call.start_ms ?? 0) + (call.duration_ms ?? 0));
  const total = Math.max(
    model.duration_ms ?? 0,
    ...ends,
    ...model.timeline.map((turn) => turn.at_ms ?? 0),
    1,
  );
  const bar = (start: number | null, duration: number | null, kind: string) =>
    start === null ? "" : html`
      <div class="bar-track">
        <div class="bar ${kind}" style="left: ${percent(start, total)}%; width: ${Math.max(
          0.4,
          Number(percent(duration ?? 0, total)),
        )}%"></div>
      </div>
    `;
  const byNumber = new Map(model.calls.map((call) => [call.number, call]));
  const callRow = (call: CallView) =>
    html`
      <tr>
        <td class="number">${at(call.start_ms)}</td>
        <td><a href="#call-${call.number}">#${call.number}</a> <code>${call
          .tool}</code> <span class="status status-${call.status}">${call.status}</span></td>
        <td class="number">${call.duration_ms === null ? "" : formatDuration(call.duration_ms)}</td>
        <td>${bar(call.start_ms, call.duration_ms, `status-${call.status}`)}</td>
      </tr>
    `;
  const inTurns = new Set(model.timeline.flatMap((turn) => turn.calls));
  const rows = model.timeline.map((turn) =>
    html`
      <tr class="turn">
        <td class="number">${at(turn.at_ms)}</td>
        <td>model turn ${turn.turn}: ${turn.calls
          .length} call(s)${turn.stop === null || turn.stop === "end"
          ? ""
          : `, stop ${turn.stop}`}${turn.usage === null
          ? ""
          : `, ${turn.usage.input_tokens ?? "?"} tokens in, ${
            turn.usage.output_tokens ?? "?"
          } out`}${turn.text === null
          ? ""
          : html`<br><span class="dim">${clip(turn.text, 300)}</span>`}</td>
        <td class="number">${turn.duration_ms === null ? "" : formatDuration(turn.duration_ms)}</td>
        <td>${bar(
          turn.at_ms === null ? null : turn.at_ms - (turn.duration_ms ?? 0),
          turn.duration_ms,
          "model",
        )}</td>
      </tr>
      ${turn.calls.map((number) => byNumber.get(number)).filter((call) => call !== undefined).map(
        callRow,
      )}
    `
  );
  const loose = model.calls.filter((call) => !inTurns.has(call.number));
  return html`
    <section id="timeline">
      <h2>Timeline</h2>
      <table>
        <thead>
          <tr>
            <th>at</th>
            <th>what</th>
            <th>took</th>
            <th>when, over the run</th>
          </tr>
        </thead>
        <tbody>${rows}${loose.map(callRow)}</tbody>
      </table>
    </section>
  `;
}

function deliverablesSection(model: ReportModel, base: string): SafeHtml {
  const items = model.deliverables.map((file) =>
    html`<li><a href="${runHref(base, file.path)}">${
      file.path.replace(/^deliverables\//, "")
    }</a> <span class="dim">(${file.bytes} bytes)</span></li>`
  );
  return html`<section id="deliverables"><h2>Deliverables</h2>${
    items.length === 0 ? html`<p>None.</p>` : html`<ul>${items}</ul>`
  }</section>`;
}

function childrenSection(model: ReportModel, base: string): SafeHtml {
  if (model.children.length === 0) return html``;
  return html`
    <section id="children">
      <h2>Child agents</h2>
      <ul>${model.children.map((child) =>
        html`<li><a href="${runHref(base, child.link)}">${child.name}</a>: ${
          child.end_reason ?? "no run.completed"
        }${
          child.task === null ? "" : html`
            <span class="dim">${clip(child.task, 200)}</span>
          `
        }</li>`
      )}</ul>
    </section>
  `;
}

function problemsSection(problems: readonly string[]): SafeHtml {
  if (problems.length === 0) return html``;
  return html`
    <section id="problems">
      <h2>What could not be read</h2>
      <ul>${problems.map((problem) => html`<li>${problem}</li>`)}</ul>
    </section>
  `;
}

function percent(part: number, whole: number): string {
  return Math.min(100, Math.max(0, (part / whole) * 100)).toFixed(2);
}

function at(ms: number | null): string {
  return ms === null ? "" : `+${formatDuration(ms)}`;
}
