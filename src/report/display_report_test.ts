import assert from "node:assert/strict";
import { Redactor } from "../audit/mod.ts";
import type { ArtifactStore, AuditRecorder } from "../audit/mod.ts";
import { record } from "../runtime/record.ts";
import type { ToolResult } from "../result/mod.ts";
import { buildReportModel } from "./report_model.ts";
import { renderHtmlReport } from "./html_report.ts";
import { renderMarkdownReport } from "./markdown_report.ts";
import type { RunFiles, RunRecord } from "./run_reading.ts";
import type { ReportVerdict } from "./report_verdict.ts";

const PAYLOAD = `<img src=x onerror="document.title='PWNED'">`;

/** The `logs/tools.jsonl` line `record()` writes for `result`, captured from a recorder. */
async function recordedLine(result: ToolResult): Promise<RunRecord> {
  const lines: Record<string, unknown>[] = [];
  const recorder = {
    event: () => Promise.resolve(1),
    error: () => Promise.resolve(1),
    toolRecord: (line: Record<string, unknown>) => {
      lines.push(line);
      return Promise.resolve(lines.length);
    },
    absorbWriteFailure: () => {},
  } as unknown as AuditRecorder;
  const at = new Date("2026-01-01T00:00:00Z");
  await record(recorder, {
    result,
    risk_level: 1,
    started: at,
    ended: at,
    params: { path: "a.ts" },
    arguments_text: '{"path":"a.ts"}',
    decision: null,
  }, {
    artifacts: {} as ArtifactStore,
    redactor: new Redactor({ secrets: [] }),
  });
  // Through JSON, as the line is written and read back.
  return JSON.parse(JSON.stringify(lines[0])) as RunRecord;
}

function files(tools: RunRecord[]): RunFiles {
  return {
    dir: "/runs/r1",
    info: null,
    tools,
    errors: [],
    pending: [],
    deliverables: [],
    children: [],
    texts: new Map(),
    run_files: [],
    reports: null,
    config: null,
    problems: [],
    events: [{ type: "run.started", task: "t" }],
  } as unknown as RunFiles;
}

const verdict: ReportVerdict = { status: "not_checked", headline: "not verified", problems: [] };

function result(display: ToolResult["display"]): ToolResult {
  return {
    tool_call_id: "c1",
    tool: "mcp.docs.edit",
    ok: true,
    summary: "Edited a.ts",
    output: "done",
    data: null,
    artifacts: [],
    error: null,
    duration_ms: 2,
    ...(display === undefined ? {} : { display }),
  };
}

Deno.test("a display block of an unknown type survives the record and the report", async () => {
  const line = await recordedLine(result([
    { type: "brief", text: "Edited a.ts" },
    { type: "heatmap", data: { cells: [[1, 2]], title: PAYLOAD } },
  ]));
  assert.deepEqual((line.result as Record<string, unknown>).display, [
    { type: "brief", text: "Edited a.ts" },
    { type: "heatmap", data: { cells: [[1, 2]], title: PAYLOAD } },
  ]);
  const model = buildReportModel(files([line]), verdict);
  assert.deepEqual(model.calls[0]?.display[1], {
    type: "heatmap",
    data: { cells: [[1, 2]], title: PAYLOAD },
  });
  const page = renderHtmlReport(model);
  assert.ok(page.includes("<code>heatmap</code> (a display block this version does not know)"));
  assert.ok(page.includes("&quot;cells&quot;"));
  assert.ok(!page.includes(PAYLOAD));
  const markdown = renderMarkdownReport(model);
  assert.ok(markdown.includes("**heatmap** \\(a display block this version does not know\\)"));
  assert.ok(markdown.includes(`"title": ${JSON.stringify(PAYLOAD)}`));
});

Deno.test("the report renders a diff block escaped, line by line", async () => {
  const diff = `--- a.ts\n+++ a.ts\n@@ -1 +1 @@\n-old\n+${PAYLOAD}`;
  const line = await recordedLine(result([
    { type: "brief", text: "Edited a.ts" },
    { type: "diff", path: `a${PAYLOAD}.ts`, diff, added: 1, removed: 1 },
  ]));
  const model = buildReportModel(files([line]), verdict);
  const page = renderHtmlReport(model);
  assert.ok(!page.includes(PAYLOAD));
  assert.ok(page.includes(`<span class="add">+&lt;img src=x onerror=&quot;document.title=`));
  assert.ok(page.includes(`<span class="del">-old</span>`));
  assert.ok(page.includes("<h3>Shown</h3>"));
  const markdown = renderMarkdownReport(model);
  assert.ok(markdown.includes("```diff\n" + diff + "\n```"));
  // The path outside the fence is escaped.
  assert.ok(markdown.includes("a\\<img src=x onerror="));
});

Deno.test("a call recorded before display blocks is reported as before", async () => {
  const line = await recordedLine(result(undefined));
  assert.deepEqual((line.result as Record<string, unknown>).display, []);
  delete (line.result as Record<string, unknown>).display; // An older run's record.
  const model = buildReportModel(files([line]), verdict);
  assert.deepEqual(model.calls[0]?.display, []);
  assert.ok(!renderHtmlReport(model).includes("<h3>Shown</h3>"));
  assert.ok(renderMarkdownReport(model).includes("Edited a\\.ts"));
});
