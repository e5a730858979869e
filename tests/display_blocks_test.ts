/**
 * Display blocks (issue 18 §3) of the built-in tools, through the whole pipeline of one real run:
 * each tool's blocks as the runtime builds them from the outcome, recorded in `logs/tools.jsonl`
 * and redacted like the output; a denial shows its brief only. One run is shared by the tests.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import {
  briefOf,
  type DiffBlock,
  type DisplayBlock,
  type FileExcerptBlock,
  type ShellBlock,
  type TableBlock,
  type ToolResult,
} from "../src/result/mod.ts";

const SECRET = "kagent-display-secret-7f3e21c9b0";
const NEAR_MISS = "kagent-display-plain-7f3e21c9b0x";
const SECRET_ENV = "KAGENT_DISPLAY_SECRET";

let shared: Promise<TestRun> | null = null;

/** The shared run: writes allowed in the workspace, `printf` and `ls` allowed, one secret. */
function openRun(): Promise<TestRun> {
  shared ??= openTestRun({
    permissions: {
      rules: [
        { tools: ["fs.*"], paths: ["src/**", "notes/**", "*.txt"], decision: "allow" },
        { tools: ["exec.run_command"], commands: ["printf", "ls"], decision: "allow" },
      ],
    },
    config: {
      commands: ["printf", "ls"],
      sandbox: { command_isolation: "none" },
      audit: { secret_env: [SECRET_ENV] },
      limits: { max_output_bytes: 1024 },
    },
    env: (name) => name === SECRET_ENV ? SECRET : Deno.env.get(name),
    // Commands without OS confinement always ask: a person allows them here.
    approver: { name: "test", approve: () => Promise.resolve({ decision: "allow_once" }) },
    prepare: async (sandbox) => {
      await Deno.mkdir(nodePath.join(sandbox.workspace, "src"));
      await Deno.writeTextFile(
        nodePath.join(sandbox.workspace, "src", "a.ts"),
        "export const a = 1;\nexport const b = 2;\n// end\n",
      );
      await Deno.writeTextFile(
        nodePath.join(sandbox.workspace, "big.txt"),
        Array.from({ length: 200 }, (_, index) => `line ${index} ${"y".repeat(30)}`).join("\n"),
      );
    },
  });
  return shared;
}

function blockOf<T extends DisplayBlock>(result: ToolResult, type: string): T {
  const block = (result.display ?? []).find((candidate) => candidate.type === type);
  assert.ok(block, `no ${type} block in ${JSON.stringify(result.display)}`);
  return block as T;
}

function assertBriefFirst(result: ToolResult): void {
  assert.equal(result.display?.[0]?.type, "brief");
  assert.equal(briefOf(result.display), result.summary.split("\n")[0]);
}

Deno.test("fs.read_file shows the lines it read as a file_excerpt, without line numbers", async () => {
  const run = await openRun();
  const result = await run.call("fs.read_file", { path: "src/a.ts", start_line: 2 });
  assert.equal(result.ok, true, result.summary);
  assertBriefFirst(result);
  const excerpt = blockOf<FileExcerptBlock>(result, "file_excerpt");
  assert.deepEqual(excerpt, {
    type: "file_excerpt",
    path: "src/a.ts",
    start_line: 2,
    text: "export const b = 2;\n// end",
    total_lines: 3,
  });
  // The model still reads numbered lines: the output is not the display.
  assert.match(result.output, /^ *2\texport const b = 2;/);
});

Deno.test("fs.edit_file shows its diff and fs.write_file its content as added lines", async () => {
  const run = await openRun();
  const edited = await run.call("fs.edit_file", {
    path: "src/a.ts",
    edits: [{ old: "export const b = 2;", new: "export const b = 3;" }],
  });
  assert.equal(edited.ok, true, edited.summary);
  const diff = blockOf<DiffBlock>(edited, "diff");
  assert.equal(diff.path, "src/a.ts");
  assert.equal(diff.added, 1);
  assert.equal(diff.removed, 1);
  assert.match(diff.diff, /^-export const b = 2;$/m);
  assert.match(diff.diff, /^\+export const b = 3;$/m);

  const written = await run.call("fs.write_file", {
    path: "notes/n.md",
    content: "first\nsecond\n",
  });
  assert.equal(written.ok, true, written.summary);
  const added = blockOf<DiffBlock>(written, "diff");
  assert.deepEqual(
    { path: added.path, added: added.added, removed: added.removed, note: added.note },
    { path: "notes/n.md", added: 2, removed: 0, note: undefined },
  );
  assert.match(added.diff, /^\+first\n\+second$/m);
});

Deno.test("a secret written to a file is redacted in the diff block, a near miss is shown", async () => {
  const run = await openRun();
  const result = await run.call("fs.write_file", {
    path: "notes/secret.md",
    content: `key=${SECRET}\nplain=${NEAR_MISS}\n`,
  });
  assert.equal(result.ok, true, result.summary);
  const diff = blockOf<DiffBlock>(result, "diff").diff;
  assert.ok(!JSON.stringify(result.display).includes(SECRET));
  assert.match(diff, /\+key=\[REDACTED:secret_env\]/);
  assert.ok(diff.includes(`+plain=${NEAR_MISS}`));
  const record = (await run.readLog("tools")).find((line) =>
    line.tool_call_id === result.tool_call_id
  );
  assert.ok(record);
  assert.ok(!JSON.stringify(record).includes(SECRET));
});

Deno.test("fs.list_files and fs.grep_files show tables", async () => {
  const run = await openRun();
  const listed = await run.call("fs.list_files", { path: "src" });
  assert.equal(listed.ok, true, listed.summary);
  const listing = blockOf<TableBlock>(listed, "table");
  assert.deepEqual(listing.columns, ["path", "type", "bytes"]);
  assert.ok(
    listing.rows.some((row) => row[0] === "src/a.ts" && row[1] === "file"),
    JSON.stringify(listing),
  );
  assert.equal(listing.total_rows, listing.rows.length);

  const found = await run.call("fs.grep_files", { pattern: "export const", path: "src" });
  assert.equal(found.ok, true, found.summary);
  const matches = blockOf<TableBlock>(found, "table");
  assert.deepEqual(matches.columns, ["path", "line", "text"]);
  assert.deepEqual(matches.rows[0], ["src/a.ts", "1", "export const a = 1;"]);
});

Deno.test("exec.run_command shows a shell block with the command, exit code and output", async () => {
  const run = await openRun();
  const ok = await run.call("exec.run_command", { argv: ["printf", "one\\ntwo\\n"] });
  assert.equal(ok.ok, true, ok.summary);
  const shell = blockOf<ShellBlock>(ok, "shell");
  assert.equal(shell.command, 'printf "one\\\\ntwo\\\\n"');
  assert.equal(shell.exit_code, 0);
  assert.equal(shell.stdout_excerpt, "one\ntwo");
  assert.equal(shell.stderr_excerpt, "");

  // A failing command shows its exit code and its standard error too.
  const failed = await run.call("exec.run_command", { argv: ["ls", "missing-folder"] });
  assert.equal(failed.error?.type, "exit_nonzero", failed.summary);
  const failing = blockOf<ShellBlock>(failed, "shell");
  assert.notEqual(failing.exit_code, 0);
  assert.match(failing.stderr_excerpt, /missing-folder/);
});

Deno.test("an output kept as an artifact shows an artifact_link to it", async () => {
  const run = await openRun();
  const result = await run.call("fs.read_file", { path: "big.txt" });
  assert.equal(result.ok, true, result.summary);
  assert.equal(result.artifacts.length, 1);
  const link = blockOf<DisplayBlock & { ref: string; bytes: number }>(result, "artifact_link");
  assert.equal(link.ref, result.artifacts[0]?.ref);
  assert.equal(link.bytes, result.artifacts[0]?.bytes);
  const stored = await Deno.stat(nodePath.join(run.session.folder.dir, link.ref));
  assert.equal(stored.size, link.bytes);
});

Deno.test("a denied call shows its brief only, and the record keeps it", async () => {
  const run = await openRun();
  const denied = await run.call("fs.write_file", { path: "../outside/x.md", content: "x" });
  assert.equal(denied.error?.type, "path_outside_sandbox", denied.summary);
  assert.equal(
    await Deno.stat(nodePath.join(run.sandbox.root, "outside", "x.md")).catch(() => null),
    null,
  );
  assert.deepEqual(denied.display, [{ type: "brief", text: denied.summary.split("\n")[0] }]);
  // The near miss: the same tool inside the rules shows its diff.
  const allowed = await run.call("fs.write_file", { path: "notes/inside.md", content: "x" });
  assert.equal(allowed.ok, true, allowed.summary);
  assert.equal(blockOf<DiffBlock>(allowed, "diff").added, 1);
  const records = await run.readLog("tools");
  const record = records.find((line) => line.tool_call_id === denied.tool_call_id);
  assert.deepEqual((record?.result as Record<string, unknown>).display, denied.display);
});

Deno.test("display blocks: the shared run closes", async () => {
  const run = await openRun();
  await run.close();
});
