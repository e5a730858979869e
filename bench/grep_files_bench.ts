/**
 * `fs.grep_files` over 5,000 small files (50 folders × 100 files, ~40 lines each, 500 matching
 * lines in 250 files): the whole pipeline (`run.call`) and the handler alone (`callTool`, in this
 * thread, no Worker, no audit) against `rg` (the baseline, when installed) and a bare in-process
 * walk (Deno.readDir + Deno.readTextFile + the same regular expression, no guard).
 *
 * Run with `deno task bench`. See bench/README.md for what the figures mean.
 *
 * @module
 */

import * as nodePath from "node:path";
import { openTestRun } from "../src/testing/run_harness.ts";
import { callTool } from "../src/testing/call_tool.ts";
import { createTestContext } from "../src/testing/tool_context.ts";
import { type GrepFilesData, grepFilesTool } from "../src/toolsets/fs/grep_files.ts";
import { GREP_PATTERN, type GrepTree, TOTAL_FILES, writeGrepTree } from "./_grep_tree.ts";

const GROUP = "grep_files 5,000 files";
const LIMIT = 1000;
/** Iterations of each benchmark: a tool call takes seconds, so keep the run to about a minute. */
const N = 15;
const WARMUP = 2;
const ARGS = { pattern: GREP_PATTERN, path: "tree", limit: LIMIT };

let tree: GrepTree | null = null;
const run = await openTestRun({
  prepare: async (sandbox) => {
    const base = nodePath.join(sandbox.workspace, "tree");
    await Deno.mkdir(base);
    tree = await writeGrepTree(base);
  },
});
const { expectedMatches, matchingFiles, bytes } = tree as unknown as GrepTree;
const dir = nodePath.join(run.sandbox.workspace, "tree");
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

/** `rg` with its line numbers; resolves to the number of matching lines printed. */
async function ripgrep(): Promise<number> {
  const result = await new Deno.Command("rg", {
    args: ["-n", "--no-config", GREP_PATTERN, dir],
    stdout: "piped",
    stderr: "null",
  }).output();
  if (!result.success) throw new Error(`rg failed with exit code ${result.code}`);
  let lines = 0;
  for (const byte of result.stdout) if (byte === 0x0a) lines += 1;
  return lines;
}

/** The same search without the sandbox: walk, read whole, split, match. Returns matching lines. */
async function bareSearch(): Promise<number> {
  const regex = new RegExp(GREP_PATTERN);
  let found = 0;
  const visit = async (folder: string): Promise<void> => {
    const entries: Deno.DirEntry[] = [];
    for await (const entry of Deno.readDir(folder)) entries.push(entry);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory) {
        await visit(path);
      } else if (entry.isFile) {
        const text = await Deno.readTextFile(path);
        for (const line of text.split("\n")) if (regex.test(line)) found += 1;
      }
    }
  };
  await visit(dir);
  return found;
}

let hasRipgrep = false;
try {
  const version = await new Deno.Command("rg", { args: ["--version"], stdout: "piped" }).output();
  hasRipgrep = version.success;
  if (hasRipgrep) console.log(new TextDecoder().decode(version.stdout).split("\n")[0]);
} catch {
  hasRipgrep = false;
}
if (!hasRipgrep) {
  console.log("note: rg (ripgrep) is not installed; the bare walk is the baseline instead");
}

// Checked once, outside the timed functions: a benchmark of a broken search is worthless.
function checkTool(what: string, ok: boolean, data: unknown, summary: string): void {
  const grep = data as GrepFilesData | null;
  if (
    !ok || grep === null || grep.matches.length !== expectedMatches ||
    grep.files_scanned !== TOTAL_FILES || grep.truncated
  ) {
    throw new Error(
      `${what} returned ${grep?.matches.length} matches in ${grep?.files_scanned} files ` +
        `(expected ${expectedMatches} in ${TOTAL_FILES}): ${summary}`,
    );
  }
}
const piped = await run.call("fs.grep_files", ARGS);
checkTool("fs.grep_files (pipeline)", piped.ok, piped.data, piped.summary);
if (piped.artifacts.length > 0) throw new Error("the grep output spilled into an artifact");
const direct = await callTool(grepFilesTool, ARGS, context);
checkTool("fs.grep_files (handler)", direct.ok, direct.data, direct.summary);
const bare = await bareSearch();
if (bare !== expectedMatches) throw new Error(`bare walk found ${bare}, not ${expectedMatches}`);
if (hasRipgrep) {
  const rg = await ripgrep();
  if (rg !== expectedMatches) throw new Error(`rg found ${rg}, not ${expectedMatches}`);
}
console.log(
  `tree: ${TOTAL_FILES} files, ${(bytes / 1e6).toFixed(1)} MB, ` +
    `${expectedMatches} matching lines in ${matchingFiles} files`,
);

if (hasRipgrep) {
  Deno.bench({
    name: "rg -n (subprocess)",
    group: GROUP,
    n: N,
    warmup: WARMUP,
    baseline: true,
    async fn() {
      await ripgrep();
    },
  });
}

Deno.bench({
  name: "bare walk (readDir + readTextFile + RegExp)",
  group: GROUP,
  n: N,
  warmup: WARMUP,
  baseline: !hasRipgrep,
  async fn() {
    await bareSearch();
  },
});

Deno.bench({
  name: "fs.grep_files handler (callTool, no Worker)",
  group: GROUP,
  n: N,
  warmup: WARMUP,
  async fn() {
    await callTool(grepFilesTool, ARGS, context);
  },
});

Deno.bench({
  name: "fs.grep_files pipeline (run.call)",
  group: GROUP,
  n: N,
  warmup: WARMUP,
  async fn() {
    await run.call("fs.grep_files", ARGS);
  },
});
