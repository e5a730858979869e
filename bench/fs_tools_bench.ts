/**
 * The file tools against the tools users would pick instead (issue 16), each group with its
 * anchor as the baseline, measured in the same run:
 *
 * - `grep_files node_modules`: `fs.grep_files` on a real `node_modules` (about 13,400 files, see
 *   `_fs_trees.ts`) against `rg` as a whole process with the same match count (the pipeline
 *   row uses the ripgrep candidate filter when `rg` is on PATH, the handler row never does;
 *   `grep_engines_compare.ts` interleaves both engines);
 * - `list_files 573 entries`: `fs.list_files` of a folder of 573 entries against the official
 *   MCP filesystem server's `list_directory` through the official SDK client (stdio), and
 *   `kagent-run mcp` through the same client;
 * - `list limit 10, flat 200,000 files`: `fs.list_files` with `limit: 10` in a flat folder against
 *   `ls | head` (a shell pipeline, the whole processes).
 *
 * Peak memory is measured once, before the benchmarks, in fresh processes (`VmHWM` for the tool's
 * handler, `/usr/bin/time -f %M` for `rg` and `ls | head`) and printed. Run with `deno task bench`
 * (or this file alone with the same flags). See bench/README.md for what the figures mean.
 *
 * @module
 */

import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { openTestRun } from "../src/testing/run_harness.ts";
import { callTool } from "../src/testing/call_tool.ts";
import { createTestContext } from "../src/testing/tool_context.ts";
import { type GrepFilesData, grepFilesTool } from "../src/toolsets/fs/grep_files.ts";
import { type ListFilesData, listFilesTool } from "../src/toolsets/fs/list_files.ts";
import {
  copyTree,
  findNodeModules,
  FLAT_FILES,
  GREP_PATTERN,
  LISTING_ENTRIES,
  ripgrepAnchorArgs,
  writeFlatFolder,
  writeListingFolder,
} from "./_fs_trees.ts";

const repository = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..");
/** Matches about 150 lines of the tree: below the tool's 1,000-match cap, so the whole tree is searched. */
const GREP_ARGS = { pattern: GREP_PATTERN, path: "node_modules", limit: 1000 };
/** Iterations of each grep benchmark: a search of the whole tree takes seconds under load. */
const GREP_ITERATIONS = 5;
const LIST_ARGS = { path: "listing", limit: 1000 };
const FLAT_ARGS = { path: "flat", limit: 10 };

const modules = await findNodeModules();
/**
 * The searches run to the end however loaded the machine is: a time budget stop would compare a
 * partial search with a whole one (the default budget is 10 s).
 */
const TIME_BUDGET_MS = 600_000;
const run = await openTestRun({
  config: { limits: { search_time_budget_ms: TIME_BUDGET_MS } },
  prepare: async (sandbox) => {
    await copyTree(modules.path, nodePath.join(sandbox.workspace, "node_modules"));
    writeListingFolder(nodePath.join(sandbox.workspace, "listing"));
    writeFlatFolder(nodePath.join(sandbox.workspace, "flat"));
  },
});
const workspace = run.sandbox.workspace;
const realWorkspace = Deno.realPathSync(workspace);
const context = {
  ...(await createTestContext({ workspace })),
  files: { search_time_budget_ms: TIME_BUDGET_MS, hide_sensitive_in_listings: false },
};
const clients: Client[] = [];

// The run stays open for every benchmark of this file; the Worker stops and the temporary folder
// goes when the module unloads (synchronously: an unload listener cannot wait).
globalThis.addEventListener("unload", () => {
  void run.session.close();
  for (const client of clients) void client.close();
  try {
    Deno.removeSync(run.sandbox.root, { recursive: true });
  } catch {
    // Already gone.
  }
});

/** `rg` as a user would run it for the same search; resolves to the matching lines printed. */
async function ripgrep(): Promise<number> {
  const result = await new Deno.Command("rg", { args: ripgrepArgs(), stdout: "piped" }).output();
  if (!result.success) throw new Error(`rg failed with exit code ${result.code}`);
  let lines = 0;
  for (const byte of result.stdout) if (byte === 0x0a) lines += 1;
  return lines;
}

function ripgrepArgs(): string[] {
  return ripgrepAnchorArgs(nodePath.join(workspace, "node_modules"));
}

/** `ls DIR | head -n 10` in a shell: the processes a user would start. */
async function lsHead(): Promise<string> {
  const result = await new Deno.Command("sh", {
    args: ["-c", 'ls "$1" | head -n 10', "sh", nodePath.join(workspace, "flat")],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(result.stdout);
}

/** Peak resident set of a command, in MiB (`/usr/bin/time -f %M`), or null without it. */
async function peakOf(command: string, args: string[]): Promise<number | null> {
  try {
    const result = await new Deno.Command("/usr/bin/time", {
      args: ["-f", "%M", command, ...args],
      stdout: "null",
      stderr: "piped",
    }).output();
    const lines = new TextDecoder().decode(result.stderr).trim().split("\n");
    return Number(lines.at(-1)) / 1024;
  } catch {
    return null;
  }
}

/**
 * A handler's call in a fresh process (`_fs_tool_once.ts` under `/usr/bin/time -f %M`): its time
 * and the process's peak resident set, in MiB.
 */
async function toolOnce(
  tool: string,
  args: Record<string, unknown>,
): Promise<{ ms: number; peakMib: number }> {
  const result = await new Deno.Command("/usr/bin/time", {
    args: [
      "-f",
      "%M",
      Deno.execPath(),
      "run",
      "--no-check",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      nodePath.join(repository, "bench", "_fs_tool_once.ts"),
      workspace,
      tool,
      JSON.stringify(args),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const errors = new TextDecoder().decode(result.stderr).trim();
  if (!result.success) throw new Error(`${tool} once failed: ${errors}`);
  const once = JSON.parse(new TextDecoder().decode(result.stdout).trim()) as {
    ok: boolean;
    summary: string;
    ms: number;
  };
  if (!once.ok) throw new Error(`${tool} once failed: ${once.summary}`);
  return { ms: once.ms, peakMib: Number(errors.split("\n").at(-1)) / 1024 };
}

/** How {@linkcode toolOnce} went, for the output. */
async function describeOnce(tool: string, args: Record<string, unknown>): Promise<string> {
  const once = await toolOnce(tool, args);
  return `${once.ms.toFixed(0)} ms, peak RSS ${once.peakMib.toFixed(0)} MiB`;
}

/** The official filesystem MCP server through the official client, or why it is skipped. */
async function filesystemServer(): Promise<Client | string> {
  const client = new Client({ name: "fs-tools-bench", version: "1.0.0" });
  try {
    await client.connect(
      new StdioClientTransport({
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", realWorkspace],
        stderr: "ignore",
      }),
    );
  } catch (error) {
    return `npx -y @modelcontextprotocol/server-filesystem did not start (${
      (error as Error).message
    })`;
  }
  clients.push(client);
  return client;
}

/** `kagent-run mcp` on the run's config through the official client. */
async function kagentServer(): Promise<Client> {
  const client = new Client({ name: "fs-tools-bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: [
        "run",
        "--no-prompt",
        "--unstable-worker-options",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-run",
        "--allow-net",
        nodePath.join(repository, "main.ts"),
        "mcp",
        "--config",
        nodePath.join(run.configDir, "agent.jsonc"),
      ],
      stderr: "ignore",
    }),
  );
  clients.push(client);
  return client;
}

// A failed check below ends the module before its unload listener could run.
globalThis.addEventListener("unhandledrejection", () => {
  try {
    Deno.removeSync(run.sandbox.root, { recursive: true });
  } catch {
    // Already gone.
  }
});

// Checked once, outside the timed functions: a benchmark of a broken call is worthless.
const rgMatches = await ripgrep();
const grepped = await run.call("fs.grep_files", GREP_ARGS);
const grepData = grepped.data as GrepFilesData | null;
if (!grepped.ok || grepData === null || grepData.truncated) {
  throw new Error(`fs.grep_files failed or was cut short: ${grepped.summary}`);
}
if (grepData.matches.length !== rgMatches) {
  throw new Error(`fs.grep_files found ${grepData.matches.length} lines, rg ${rgMatches}`);
}
const listed = await run.call("fs.list_files", LIST_ARGS);
if (!listed.ok || (listed.data as ListFilesData).entries.length !== LISTING_ENTRIES) {
  throw new Error(`fs.list_files of the listing folder failed: ${listed.summary}`);
}
const flat = await run.call("fs.list_files", FLAT_ARGS);
const flatData = flat.data as ListFilesData | null;
const headNames = (await lsHead()).trim().split("\n");
if (
  !flat.ok || flatData === null || flatData.entries.length !== 10 ||
  flatData.entries.some((entry, index) => entry.path !== `flat/${headNames[index]}`)
) {
  throw new Error(`fs.list_files of the flat folder disagrees with ls | head: ${flat.output}`);
}
const filesystem = await filesystemServer();
if (typeof filesystem === "string") console.log(`skipped the filesystem server: ${filesystem}`);
else {
  const answer = await filesystem.callTool({
    name: "list_directory",
    arguments: { path: nodePath.join(realWorkspace, "listing") },
  }) as CallToolResult;
  const parts = answer.content as { type: string; text?: string }[];
  const text = parts.map((part) => (part.type === "text" ? part.text ?? "" : "")).join("");
  if (answer.isError || text.trim().split("\n").length !== LISTING_ENTRIES) {
    throw new Error(
      `list_directory did not list ${LISTING_ENTRIES} entries: ${text.slice(0, 200)}`,
    );
  }
}
const kagent = await kagentServer();
const viaMcp = await kagent.callTool({
  name: "fs.list_files",
  arguments: LIST_ARGS,
}) as CallToolResult;
if (viaMcp.isError) {
  throw new Error(`kagent-run mcp fs.list_files failed: ${JSON.stringify(viaMcp)}`);
}

console.log(`node_modules: ${modules.source}; ${rgMatches} lines match ${GREP_PATTERN}`);
console.log(`peak memory (fresh processes, once each):`);
const rgPeak = await peakOf("rg", ripgrepArgs());
console.log(`  rg                         ${rgPeak === null ? "n/a" : `${rgPeak.toFixed(0)} MiB`}`);
const idle = await toolOnce("none", {});
console.log(`  the same process, no call  ${idle.peakMib.toFixed(0)} MiB`);
console.log(`  fs.grep_files handler      ${await describeOnce("fs.grep_files", GREP_ARGS)}`);
const lsPeak = await peakOf("sh", [
  "-c",
  'ls "$1" | head -n 10',
  "sh",
  nodePath.join(workspace, "flat"),
]);
console.log(
  `  ls | head (${FLAT_FILES} files)  ${lsPeak === null ? "n/a" : `${lsPeak.toFixed(0)} MiB`}`,
);
console.log(`  fs.list_files limit 10     ${await describeOnce("fs.list_files", FLAT_ARGS)}`);

Deno.bench({
  name: "rg (whole process)",
  group: "grep_files node_modules",
  n: GREP_ITERATIONS,
  warmup: 1,
  baseline: true,
  async fn() {
    await ripgrep();
  },
});
Deno.bench({
  name: "fs.grep_files handler (callTool, no Worker)",
  group: "grep_files node_modules",
  n: GREP_ITERATIONS,
  warmup: 1,
  async fn() {
    await callTool(grepFilesTool, GREP_ARGS, context);
  },
});
Deno.bench({
  name: "fs.grep_files pipeline (run.call)",
  group: "grep_files node_modules",
  n: GREP_ITERATIONS,
  warmup: 1,
  async fn() {
    await run.call("fs.grep_files", GREP_ARGS);
  },
});

if (typeof filesystem !== "string") {
  Deno.bench({
    name: "MCP server-filesystem list_directory (official client, stdio)",
    group: "list_files 573 entries",
    baseline: true,
    async fn() {
      await filesystem.callTool({
        name: "list_directory",
        arguments: { path: nodePath.join(realWorkspace, "listing") },
      });
    },
  });
}
Deno.bench({
  name: "fs.list_files through kagent-run mcp (official client, stdio)",
  group: "list_files 573 entries",
  baseline: typeof filesystem === "string",
  async fn() {
    await kagent.callTool({ name: "fs.list_files", arguments: LIST_ARGS });
  },
});
Deno.bench({
  name: "fs.list_files pipeline (run.call)",
  group: "list_files 573 entries",
  async fn() {
    await run.call("fs.list_files", LIST_ARGS);
  },
});
Deno.bench({
  name: "fs.list_files handler (callTool, no Worker)",
  group: "list_files 573 entries",
  async fn() {
    await callTool(listFilesTool, LIST_ARGS, context);
  },
});

Deno.bench({
  name: "ls | head (sh, whole processes)",
  group: "list limit 10, flat 200,000 files",
  n: 10,
  warmup: 1,
  baseline: true,
  async fn() {
    await lsHead();
  },
});
Deno.bench({
  name: "fs.list_files limit 10 handler (callTool, no Worker)",
  group: "list limit 10, flat 200,000 files",
  n: 10,
  warmup: 1,
  async fn() {
    await callTool(listFilesTool, FLAT_ARGS, context);
  },
});
Deno.bench({
  name: "fs.list_files limit 10 pipeline (run.call)",
  group: "list limit 10, flat 200,000 files",
  n: 10,
  warmup: 1,
  async fn() {
    await run.call("fs.list_files", FLAT_ARGS);
  },
});
