/**
 * One call of an fs tool's handler in a fresh process, for its peak memory: `fs_tools_bench.ts`
 * runs it under `/usr/bin/time -f %M` (the peak resident set of the whole process) and reads one
 * JSON line from its stdout: `{ "ok", "summary", "ms" }`. The tool `none` makes no call: the
 * process's own peak, to compare with.
 *
 * ```sh
 * /usr/bin/time -f %M deno run --allow-read --allow-write --allow-env bench/_fs_tool_once.ts \
 *   WORKSPACE TOOL ARGS_JSON
 * ```
 *
 * @module
 */

import { callTool } from "../src/testing/call_tool.ts";
import { createTestContext } from "../src/testing/tool_context.ts";
import { grepFilesTool } from "../src/toolsets/fs/grep_files.ts";
import { listFilesTool } from "../src/toolsets/fs/list_files.ts";
import { readFileTool } from "../src/toolsets/fs/read_file.ts";

const [workspace, name, json] = Deno.args;
if (workspace === undefined || name === undefined || json === undefined) {
  throw new Error("Usage: _fs_tool_once.ts WORKSPACE TOOL ARGS_JSON");
}
const tools = {
  "fs.grep_files": grepFilesTool,
  "fs.list_files": listFilesTool,
  "fs.read_file": readFileTool,
} as const;
const tool = tools[name as keyof typeof tools];
if (tool === undefined && name !== "none") {
  throw new Error(`Cannot run "${name}": not one of ${Object.keys(tools)} or none`);
}
// No time budget stop (10 s by default): the whole search is what is measured.
const context = {
  ...(await createTestContext({ workspace })),
  files: { search_time_budget_ms: 3_600_000, hide_sensitive_in_listings: false },
};
const start = performance.now();
const outcome = tool === undefined
  ? { ok: true, summary: "no call" }
  : await callTool(tool, JSON.parse(json), context);
const ms = performance.now() - start;
console.log(JSON.stringify({ ok: outcome.ok, summary: outcome.summary, ms }));
Deno.exit(0);
