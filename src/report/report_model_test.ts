import assert from "node:assert/strict";
import { buildReportModel } from "./report_model.ts";
import { notChecked } from "./report_verdict.ts";
import { renderHtmlReport } from "./html_report.ts";
import { renderMarkdownReport } from "./markdown_report.ts";
import type { RunFiles, RunRecord } from "./run_reading.ts";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms).toISOString();

function files(tools: RunRecord[], events: RunRecord[] = []): RunFiles {
  return {
    dir: "/runs/r1",
    info: null,
    events: [{ type: "run.started", ts: at(0), run_id: "r1", task: "t" }, ...events],
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
  };
}

const output = Array.from({ length: 100 }, (_, index) => `out ${index}`).join("\n");
const commandRecord: RunRecord = {
  tool: "exec.run_command",
  tool_call_id: "c1",
  ts_start: at(100),
  ts_end: at(350),
  duration_ms: 250,
  params: { argv: ["git", "log", "--format=%s here"] },
  arguments: '{"argv":["git","log"]}',
  result: {
    ok: false,
    summary: "Ran git (exit 2)",
    error_type: "exit_nonzero",
    output,
    output_artifact: null,
    artifacts: [
      { ref: "javascript:alert(1)", bytes: 5 },
      { ref: "artifacts/../../etc/passwd", bytes: 5 },
      { ref: `artifacts/${"a".repeat(64)}.txt`, bytes: 4096 },
    ],
  },
  exit_code: 2,
  signal: null,
  approval: { by: "terminal", approver: "alice", choice: "allow_once", scope: ["command:git"] },
  policy: { decision: "ask", rule: "runtime:x", layer: "runtime", reason: "why" },
};

Deno.test("a command call shows its exit code, an excerpt, and links only into the run folder", () => {
  const model = buildReportModel(
    files([commandRecord], [
      { type: "model.responded", ts: at(90), turn: 1, tool_calls: [{ id: "c1" }] },
      { type: "approval.granted", tool_call_id: "c1", source: "allow_once", approver: "alice" },
      { type: "tool.failed", tool_call_id: "c1", ts: at(350) },
    ]),
    notChecked("a test"),
  );
  const [command] = model.commands;
  assert.ok(command !== undefined);
  assert.equal(command.command, 'git log "--format=%s here"');
  assert.equal(command.exit_code, 2);
  assert.match(
    command.excerpt ?? "",
    /^out 0\n[\s\S]*out 19\n\[… 70 lines …\]\nout 90\n[\s\S]*out 99$/,
  );
  // The hostile refs are not links; the artifact inside the run folder is.
  assert.deepEqual(command.links, [
    { path: `artifacts/${"a".repeat(64)}.txt`, label: "whole output (4096 bytes)" },
  ]);
  const [call] = model.calls;
  assert.equal(call?.status, "failed");
  assert.equal(call?.turn, 1);
  assert.equal(call?.start_ms, 100);
  assert.equal(call?.approval, "alice at the terminal (allow_once)");
  assert.deepEqual(call?.approval_events, ["granted (allow_once) by alice"]);
  assert.equal(model.timeline[0]?.duration_ms, 90);
  const page = renderHtmlReport(model);
  assert.doesNotMatch(page, /javascript:alert|etc\/passwd"/);
  assert.match(page, /<a href="artifacts\/a{64}\.txt">whole output \(4096 bytes\)<\/a>/);
  assert.match(
    renderMarkdownReport(model),
    /\[whole output \\\(4096 bytes\\\)\]\(artifacts\/a{64}\.txt\)/,
  );
});

Deno.test("calls are numbered in the order they started; an ended call without a record is a problem", () => {
  const later = { ...commandRecord, tool_call_id: "late", ts_start: at(500) };
  const model = buildReportModel(
    files([later, commandRecord], [{ type: "tool.completed", tool_call_id: "lost" }]),
    notChecked("a test"),
  );
  assert.deepEqual(model.calls.map((call) => call.id), ["c1", "late"]);
  assert.deepEqual(model.problems, [
    'logs/tools.jsonl: no record of call "lost", which events.jsonl ended',
  ]);
});

Deno.test("a denial names the grant from pending.jsonl; child agents link to their folders", () => {
  const denied: RunRecord = {
    tool: "fs.write_file",
    tool_call_id: "w1",
    ts_start: at(10),
    duration_ms: 1,
    params: { path: "a" },
    result: { ok: false, summary: "approval required", error_type: "approval_required" },
    approval: null,
    policy: { decision: "ask", rule: "default:write-ask", layer: "default", reason: "r" },
  };
  const model = buildReportModel(
    {
      ...files([denied]),
      pending: [{
        request: { tool_call_id: "w1", approve_argument: "--approve '{}'" },
        replay: "kagent-run run --approve '{}'",
      }],
      children: [
        {
          name: "child-1",
          info: { task: "sub task" },
          completed: { end_reason: "completed" },
          has_report: true,
          pending: [],
          children: [],
        },
        {
          name: "child-2",
          info: null,
          completed: null,
          has_report: false,
          pending: [],
          children: [],
        },
      ],
    },
    notChecked("a test"),
  );
  assert.deepEqual(model.denials, [{
    call: 1,
    tool: "fs.write_file",
    error_type: "approval_required",
    rule: "default:write-ask",
    layer: "default",
    message: "approval required",
    approve_argument: "--approve '{}'",
    replay: "kagent-run run --approve '{}'",
  }]);
  assert.deepEqual(model.children.map((child) => [child.link, child.end_reason]), [
    ["agents/child-1/report.html", "completed"],
    ["agents/child-2/events.jsonl", null],
  ]);
  assert.match(renderHtmlReport(model), /<a href="agents\/child-2\/events\.jsonl">child-2<\/a>/);
});
