// The run's progress line (stderr, a person's terminal or a CI log) shows a tool's name and brief
// as text: an escape sequence, carriage return or bidi override in a model-chosen file name cannot
// recolour, erase or rewrite the terminal. Near miss: plain text and the line's own colours stay.
import assert from "node:assert/strict";
import type { ToolResult } from "../result/mod.ts";
import { progressLine } from "./_run_feed.ts";

function result(summary: string): ToolResult {
  return {
    tool_call_id: "c1",
    tool: "fs.write_file",
    ok: true,
    summary,
    output: "",
    data: null,
    artifacts: [],
    error: null,
    duration_ms: 3,
  };
}

Deno.test("the progress line writes control characters of a brief as \\u escapes and keeps its own colours", () => {
  const hostile = "Wrote a\u001b]52;c;ZXZpbA==\u0007\u001b[2K\rok.txt \u202etxt.exe";
  const line = progressLine(result(hostile));
  // deno-lint-ignore no-control-regex -- control characters are what this matches
  assert.doesNotMatch(line, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
  assert.equal(
    line,
    "  ok     fs.write_file (3 ms) Wrote a\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2K\\u000dok.txt " +
      "\\u202etxt.exe\n",
  );
  // Near miss: a plain brief is as it was, and the painter's own escapes are kept.
  const painted = progressLine(result("Wrote café.md"), (_tone, text) => `\u001b[1m${text}`);
  assert.equal(painted, "  \u001b[1mok     fs.write_file \u001b[1m(3 ms) Wrote café.md\n");
});
