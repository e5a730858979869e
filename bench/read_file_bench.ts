/**
 * `fs.read_file` on a small file (~2 KB, 50 lines): the whole pipeline (`run.call`) and the
 * handler alone (`callTool`, in this thread, no Worker, no audit) against a bare
 * `Deno.readTextFile` of the same file (the baseline).
 *
 * Run with `deno task bench`. See bench/README.md for what the figures mean.
 *
 * @module
 */

import * as nodePath from "node:path";
import { openTestRun } from "../src/testing/run_harness.ts";
import { callTool } from "../src/testing/call_tool.ts";
import { createTestContext } from "../src/testing/tool_context.ts";
import { readFileTool } from "../src/toolsets/fs/read_file.ts";

const LINES = 50;
const GROUP = "read_file small";

/** 50 lines of about 40 characters: roughly 2 KB. */
function smallText(): string {
  const lines: string[] = [];
  for (let index = 1; index <= LINES; index += 1) {
    lines.push(`line ${String(index).padStart(2, "0")}: the quick brown fox jumps over`);
  }
  return lines.join("\n") + "\n";
}

const text = smallText();
const run = await openTestRun({
  prepare: (sandbox) => Deno.writeTextFile(nodePath.join(sandbox.workspace, "small.txt"), text),
});
const path = nodePath.join(run.sandbox.workspace, "small.txt");
const context = await createTestContext({ workspace: run.sandbox.workspace });

// The run stays open for every benchmark of this file; the Worker stops and the temporary folder
// goes when the module unloads (synchronously: an unload listener cannot wait).
globalThis.addEventListener("unload", () => {
  void run.session.close();
  try {
    Deno.removeSync(run.sandbox.root, { recursive: true });
  } catch {
    // Already gone.
  }
});

// Checked once, outside the timed functions: a benchmark of a failing call is worthless.
const first = await run.call("fs.read_file", { path: "small.txt" });
if (!first.ok || !first.output.includes(`${LINES}\tline ${LINES}:`)) {
  throw new Error(`fs.read_file failed before the benchmark: ${first.summary} ${first.output}`);
}
const direct = await callTool(readFileTool, { path: "small.txt" }, context);
if (!direct.ok || direct.output !== first.output) {
  throw new Error(`fs.read_file (handler) disagrees with the pipeline: ${direct.summary}`);
}
console.log(`small.txt: ${new TextEncoder().encode(text).byteLength} bytes, ${LINES} lines`);

Deno.bench({
  name: "Deno.readTextFile (bare)",
  group: GROUP,
  baseline: true,
  async fn() {
    await Deno.readTextFile(path);
  },
});

Deno.bench({
  name: "fs.read_file handler (callTool, no Worker)",
  group: GROUP,
  async fn() {
    await callTool(readFileTool, { path: "small.txt" }, context);
  },
});

Deno.bench({
  name: "fs.read_file pipeline (run.call)",
  group: GROUP,
  async fn() {
    await run.call("fs.read_file", { path: "small.txt" });
  },
});
