import assert from "node:assert/strict";
import { Redactor } from "../audit/mod.ts";
import { failure, success, type ToolOutcome } from "../result/mod.ts";
import { displayFor } from "./display_for.ts";
import { unrunResult } from "./scheduler.ts";

const SECRET = "kagent-display-for-secret-91ab7c";
const redactor = new Redactor({ secrets: [SECRET] });

function blocksOf(tool: string, outcome: ToolOutcome, params: unknown = {}) {
  return displayFor(tool, outcome, { outcome, artifacts: [] }, params, redactor);
}

Deno.test("displayFor lets a handler's own block win over the built one of its type", () => {
  const outcome: ToolOutcome = {
    ...success("Listed 1 entry", "a.ts", { entries: [{ path: "a.ts", type: "file", size: 1 }] }),
    display: [
      { type: "table", columns: ["name"], rows: [["a.ts"]], total_rows: 1 },
      { type: "sparkline", data: { values: [1, 3, 2] } },
    ],
  };
  const blocks = blocksOf("fs.list_files", outcome);
  assert.deepEqual(blocks, [
    { type: "brief", text: "Listed 1 entry" },
    { type: "table", columns: ["name"], rows: [["a.ts"]], total_rows: 1 },
    { type: "sparkline", data: { values: [1, 3, 2] } },
  ]);
  // A handler brief replaces the summary's, and stays first.
  const briefed = blocksOf("mcp.docs.search", {
    ...success("mcp.docs.search completed", "…"),
    display: [{ type: "chart", data: 1 }, { type: "brief", text: "Found 3 pages" }],
  });
  assert.deepEqual(briefed.map((block) => block.type), ["brief", "chart"]);
  assert.equal((briefed[0] as { text: string }).text, "Found 3 pages");
});

Deno.test("displayFor redacts a handler's blocks and the written content it shows", () => {
  const handled: ToolOutcome = {
    ...success("ok", "ok"),
    display: [{ type: "note", data: { text: `token ${SECRET}` } }],
  };
  const shown = JSON.stringify(blocksOf("mcp.x.y", handled));
  assert.ok(!shown.includes(SECRET));
  assert.ok(shown.includes("[REDACTED:"));
  const written = blocksOf(
    "fs.write_file",
    success("Wrote 40 bytes", "Wrote", { path: "a.md", bytes: 40, created: false }),
    { path: "a.md", content: `${SECRET}\nplain\n` },
  );
  const diff = written.find((block) => block.type === "diff") as { diff: string; note?: string };
  assert.ok(!diff.diff.includes(SECRET));
  assert.match(diff.diff, /^\+plain$/m);
  assert.equal(diff.note, "the text it replaced is not known");
});

Deno.test("displayFor shows a failure as its brief, with a command's shell block when it ran", () => {
  assert.deepEqual(
    blocksOf("fs.read_file", failure("permission_denied", 'Cannot call tool "fs.read_file": no')),
    [{ type: "brief", text: 'Cannot call tool "fs.read_file": no' }],
  );
  const ran: ToolOutcome = {
    ...failure("exit_nonzero", 'Command "false" failed with exit 1'),
    data: {
      argv: ["false"],
      cwd: ".",
      exit_code: 1,
      signal: null,
      timed_out: false,
      stdout: { text: "" },
      stderr: { text: "boom\n" },
    },
  };
  const blocks = blocksOf("exec.run_command", ran);
  assert.deepEqual(blocks[1], {
    type: "shell",
    command: "false",
    cwd: ".",
    exit_code: 1,
    signal: null,
    timed_out: false,
    stdout_excerpt: "",
    stderr_excerpt: "boom",
  });
});

Deno.test("a call that never ran shows its brief only", () => {
  const result = unrunResult(
    { id: "c9", name: "fs.read_file", arguments: "{}" },
    failure(
      "skipped",
      'Cannot run tool "fs.read_file": skipped\nbecause an earlier call was denied',
    ),
  );
  assert.deepEqual(result.display, [{
    type: "brief",
    text: 'Cannot run tool "fs.read_file": skipped because an earlier call was denied',
  }]);
});
