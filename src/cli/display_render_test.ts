import assert from "node:assert/strict";
import { Redactor } from "../audit/mod.ts";
import type { ToolResult } from "../result/mod.ts";
import { progressLine } from "./_run_feed.ts";
import { stepSummary } from "./_ci_output.ts";
import type { RunSummary } from "../report/run_summary.ts";

const SECRET = "kagent-summary-secret-4c1d88e2";

function result(partial: Partial<ToolResult>): ToolResult {
  return {
    tool_call_id: "c1",
    tool: "fs.edit_file",
    ok: true,
    summary: 'Edited "a.ts": 1 edit, 1 replacement',
    output: "",
    data: null,
    artifacts: [],
    error: null,
    duration_ms: 3,
    ...partial,
  };
}

const redactor = new Redactor({ secrets: [SECRET] });

function report(results: ToolResult[]): RunSummary {
  return {
    summary_version: 1,
    run_id: "r1",
    run_dir: "/runs/r1",
    task: "t",
    end_reason: "completed",
    final_text: "done",
    error: null,
    error_code: null,
    error_details: null,
    turns: 1,
    counts: { calls: results.length, denied: 0, failed: 0, skipped: 0 },
    duration_ms: 1200,
    segments: 1,
    usage: null,
    cost_usd: null,
    output_schema: null,
    deliverables: [],
    calls: results.map((result) => ({
      id: result.tool_call_id,
      tool: result.tool,
      status: result.ok ? "completed" : "failed",
      ok: result.ok,
      error_type: result.error?.type ?? null,
      summary: result.summary,
      display: result.display ?? [],
    })),
    pending: [],
    replay: null,
    report_files: null,
    problems: [],
  };
}

Deno.test("the progress line shows the display brief, and the summary without blocks", () => {
  const shown = result({ display: [{ type: "brief", text: "Edited a.ts (+1 −1)" }] });
  assert.equal(progressLine(shown), "  ok     fs.edit_file (3 ms) Edited a.ts (+1 −1)\n");
  // A result made outside the runtime (a skipped call, an old record) has no blocks.
  assert.equal(
    progressLine(result({})),
    '  ok     fs.edit_file (3 ms) Edited "a.ts": 1 edit, 1 replacement\n',
  );
});

Deno.test("the step summary renders the calls' blocks in details, escaped and redacted", () => {
  const edit = result({
    display: [
      { type: "brief", text: "Edited a.ts" },
      {
        type: "diff",
        path: "a.ts",
        diff: `--- a.ts\n+++ a.ts\n@@ -1 +1 @@\n-old\n+<script>alert(1)</script> ${SECRET}`,
        added: 1,
        removed: 1,
      },
    ],
  });
  const command = result({
    tool_call_id: "c2",
    tool: "exec.run_command",
    summary: 'Ran "ls"',
    display: [
      { type: "brief", text: "Ran ls" },
      {
        type: "shell",
        command: "ls src",
        cwd: ".",
        exit_code: 0,
        signal: null,
        timed_out: false,
        stdout_excerpt: "a.ts\n```\nb.ts",
        stderr_excerpt: "",
      },
      { type: "gauge", data: { value: 7, label: "<b>coverage</b>" } },
    ],
  });
  const summary = stepSummary(report([edit, command]), redactor);
  // The table's summary cells are the briefs.
  assert.match(summary, /\| 1 \| `fs\.edit_file` \| ok \| Edited a\\\.ts \|/);
  assert.match(summary, /\| 2 \| `exec\.run_command` \| ok \| Ran ls \|/);
  assert.ok(summary.includes("<details><summary>#1 fs.edit_file</summary>"));
  // The diff sits in a fence, verbatim (GitHub shows it as text), with the secret redacted.
  assert.ok(summary.includes("```diff\n--- a.ts\n+++ a.ts\n@@ -1 +1 @@\n-old\n+<script>"));
  assert.ok(!summary.includes(SECRET));
  assert.ok(summary.includes("[REDACTED:secret_env]"));
  // A fence inside the output gets a longer fence around it.
  assert.ok(summary.includes("````text\na.ts\n```\nb.ts\n````"));
  assert.ok(summary.includes("` $ ls src ` in \\.: exit 0"));
  // The block of an unknown type is shown as its data.
  assert.ok(summary.includes("**gauge**"));
  assert.ok(summary.includes('"label": "<b>coverage</b>"'));
  // The near miss: a call with a brief only has no details.
  const plain = stepSummary(
    report([result({ display: [{ type: "brief", text: "x" }] })]),
    redactor,
  );
  assert.ok(!plain.includes("<details>"));
});
