/**
 * Where the time of one tool call goes: the tool's own steps timed one by one in this thread,
 * then the whole pipeline with its Worker step and its audit writes timed apart. Not a
 * `Deno.bench` file (`deno bench` skips it); run it alone:
 *
 * ```sh
 * deno run --unstable-worker-options --allow-read --allow-write --allow-env --allow-run \
 *   bench/profile_phases.ts
 * ```
 *
 * The last grep line is a prototype of the fix proposed in bench/README.md (the same checks with
 * synchronous calls, and no second resolution of walked files); it is not the tool.
 *
 * @module
 */

import * as nodeFs from "node:fs";
import * as nodePath from "node:path";
import process from "node:process";
import { openTestRun } from "../src/testing/run_harness.ts";
import { callTool } from "../src/testing/call_tool.ts";
import { createTestContext } from "../src/testing/tool_context.ts";
import type { ResolvedPath } from "../src/sandbox/path_guard.ts";
import { openVerifiedForRead } from "../src/sandbox/safe_file.ts";
import { ToolWorker } from "../src/worker/tool_worker.ts";
import { walk } from "../src/sandbox/walk.ts";
import type { ToolContext } from "../src/tools/tool_definition.ts";
import { grepFilesTool } from "../src/toolsets/fs/grep_files.ts";
import { readFileTool } from "../src/toolsets/fs/read_file.ts";
import { readAllBounded } from "../src/toolsets/fs/_read_bounded.ts";
import { GREP_PATTERN, type GrepTree, TOTAL_FILES, writeGrepTree } from "./_grep_tree.ts";

// Phase clocks: the Worker step and the audit writes of the pipeline, summed over the calls.
const clocks = { worker: 0, audit: 0 };
const originalExecute = ToolWorker.prototype.execute;
ToolWorker.prototype.execute = async function (this: ToolWorker, ...args) {
  const started = performance.now();
  try {
    return await originalExecute.apply(this, args);
  } finally {
    clocks.worker += performance.now() - started;
  }
};

/** Wraps the recorder's write methods so their time lands in `clocks.audit`. */
function timeAudit(recorder: Record<"event" | "toolRecord" | "error", unknown>): void {
  for (const name of ["event", "toolRecord", "error"] as const) {
    const original = recorder[name] as (...args: unknown[]) => Promise<void>;
    recorder[name] = async (...args: unknown[]) => {
      const started = performance.now();
      try {
        return await original.apply(recorder, args);
      } finally {
        clocks.audit += performance.now() - started;
      }
    };
  }
}

/** Mean milliseconds of `fn` over `iterations` runs, after `warmup` runs. */
async function mean(fn: () => Promise<unknown>, iterations: number, warmup = 3): Promise<number> {
  for (let index = 0; index < warmup; index += 1) await fn();
  const started = performance.now();
  for (let index = 0; index < iterations; index += 1) await fn();
  return (performance.now() - started) / iterations;
}

function row(label: string, value: string): void {
  console.log(`  ${label.padEnd(58)} ${value.padStart(12)}`);
}
const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
const ms = (value: number) => `${value.toFixed(0)} ms`;

async function resolved(context: ToolContext, path: string, access: "read" | "list") {
  const check = await context.guard.check(path, access);
  if (!check.ok) throw new Error(check.error.message);
  return check.path;
}

// ---------------------------------------------------------------------------------------------
// Single filesystem calls: what one await on the file system costs here, async against sync.
{
  const folder = await Deno.makeTempDir({ prefix: "kagent-bench-" });
  const path = nodePath.join(folder, "small.txt");
  await Deno.writeTextFile(path, "x".repeat(39).concat("\n").repeat(50));
  const N = 2000;
  console.log("single filesystem calls on a 2,000-byte file, mean per call");
  row("Deno.lstat", us(await mean(() => Deno.lstat(path), N)));
  row(
    "node:fs promises.lstat (what the path guard uses)",
    us(
      await mean(() => nodeFs.promises.lstat(path), N),
    ),
  );
  row("Deno.lstatSync", us(await mean(() => Promise.resolve(Deno.lstatSync(path)), N)));
  row(
    "Deno.readTextFile (one call: open, read, close)",
    us(
      await mean(() => Deno.readTextFile(path), N),
    ),
  );
  row(
    "async open + fstat + read + read (EOF) + close",
    us(
      await mean(async () => {
        const file = await Deno.open(path, { read: true });
        await file.stat();
        await file.read(new Uint8Array(2001));
        await file.read(new Uint8Array(2001));
        file.close();
      }, N),
    ),
  );
  row(
    "sync  open + fstat + read + read (EOF) + close",
    us(
      await mean(() => {
        const file = Deno.openSync(path, { read: true });
        file.statSync();
        file.readSync(new Uint8Array(2001));
        file.readSync(new Uint8Array(2001));
        file.close();
        return Promise.resolve();
      }, N),
    ),
  );
  await Deno.remove(folder, { recursive: true });
  console.log();
}

// ---------------------------------------------------------------------------------------------
// fs.read_file on a 2 KB file.
{
  const text = Array.from(
    { length: 50 },
    (_, index) => `line ${String(index + 1).padStart(2, "0")}: the quick brown fox jumps over`,
  ).join("\n") + "\n";
  await using run = await openTestRun({
    prepare: (sandbox) => Deno.writeTextFile(nodePath.join(sandbox.workspace, "small.txt"), text),
  });
  timeAudit(run.session.recorder as unknown as Record<"event" | "toolRecord" | "error", unknown>);
  const path = nodePath.join(run.sandbox.workspace, "small.txt");
  const context = await createTestContext({ workspace: run.sandbox.workspace });
  const file = await resolved(context, "small.txt", "read");
  const N = 2000;

  console.log("fs.read_file small.txt (2,000 bytes, 50 lines), mean per call");
  row("Deno.readTextFile (bare)", us(await mean(() => Deno.readTextFile(path), N)));
  row(
    "handler step: guard.check (2 node:fs lstat)",
    us(await mean(() => context.guard.check("small.txt", "read"), N)),
  );
  row(
    "handler step: openVerifiedForRead (open + fstat) + close",
    us(
      await mean(async () => {
        const opened = await openVerifiedForRead(file);
        if (!("ok" in opened)) opened.file.close();
      }, N),
    ),
  );
  row(
    "handler alone (readFileTool.handler, this thread)",
    us(
      await mean(async () => {
        await readFileTool.handler({ path: "small.txt", start_line: 1, max_lines: 200 }, context);
      }, N),
    ),
  );
  row(
    "callTool (Ajv + handler)",
    us(
      await mean(() => callTool(readFileTool, { path: "small.txt" }, context), N),
    ),
  );
  const noop = await ToolWorker.start({
    guard: run.session.guard,
    run: { run_id: "noop", workspace: run.sandbox.outside, deliverables: run.sandbox.outside },
    permissions: run.session.workerPermissions,
    entry: new URL("./_noop_worker.ts", import.meta.url),
  });
  row(
    "Worker round trip of a no-op tool (ToolWorker.execute)",
    us(await mean(() => noop.execute("bench.noop", "noop", {}), N)),
  );
  noop.terminate();
  clocks.worker = clocks.audit = 0;
  const total = await mean(() => run.call("fs.read_file", { path: "small.txt" }), N, 0);
  row("pipeline run.call, total", us(total));
  row("  of which the Worker step (post, handler, answer)", us(clocks.worker / N));
  row("  of which audit writes (tool.started, event, tools.jsonl)", us(clocks.audit / N));
  row(
    "  rest (lookup, parse, decide/guard, shape, hashes)",
    us(total - (clocks.worker + clocks.audit) / N),
  );
}

// ---------------------------------------------------------------------------------------------
// fs.grep_files over the 5,000-file tree.
{
  let tree: GrepTree | null = null;
  await using run = await openTestRun({
    prepare: async (sandbox) => {
      await Deno.mkdir(nodePath.join(sandbox.workspace, "tree"));
      tree = await writeGrepTree(nodePath.join(sandbox.workspace, "tree"));
    },
  });
  timeAudit(run.session.recorder as unknown as Record<"event" | "toolRecord" | "error", unknown>);
  const expected = (tree as unknown as GrepTree).expectedMatches;
  const context = await createTestContext({ workspace: run.sandbox.workspace });
  const start = await resolved(context, "tree", "list");
  const regex = new RegExp(GREP_PATTERN);
  const args = { pattern: GREP_PATTERN, path: "tree", limit: 1000 };
  const R = 3;
  const files: ResolvedPath[] = [];
  for await (const entry of walk(start, { guard: context.guard, recursive: true })) {
    if (entry.type === "file") files.push(await resolved(context, entry.path, "read"));
  }
  if (files.length !== TOTAL_FILES) throw new Error(`walked ${files.length} files`);
  const perFile = (value: number) => `${((value * 1000) / TOTAL_FILES).toFixed(1)} µs/file`;
  const countMatches = (text: string) => {
    let found = 0;
    for (const line of text.split("\n")) if (regex.test(line)) found += 1;
    return found;
  };
  const texts = await Promise.all(files.map((file) => Deno.readTextFile(file.real)));

  console.log(`\nfs.grep_files over ${TOTAL_FILES} files; steps run one file at a time`);
  row(
    "walk() alone (readDir, lstat per file)",
    perFile(
      await mean(
        async () => {
          for await (const _ of walk(start, { guard: context.guard, recursive: true })) { /* */ }
        },
        R,
        1,
      ),
    ),
  );
  row(
    "guard.check(file, 'read') (4 node:fs lstat)",
    perFile(
      await mean(
        async () => {
          for (const file of files) await context.guard.check(file.real, "read");
        },
        R,
        1,
      ),
    ),
  );
  row(
    "openVerifiedForRead + readAllBounded + close",
    perFile(
      await mean(
        async () => {
          for (const file of files) {
            const opened = await openVerifiedForRead(file);
            if ("ok" in opened) throw new Error(opened.summary);
            await readAllBounded(opened.file, opened.size, 10 * 1024 * 1024);
            opened.file.close();
          }
        },
        R,
        1,
      ),
    ),
  );
  row(
    "split + RegExp (text already in memory)",
    perFile(
      await mean(
        () => Promise.resolve(texts.reduce((sum, text) => sum + countMatches(text), 0)),
        R,
        1,
      ),
    ),
  );
  row(
    "Deno.readTextFile (bare, for comparison)",
    perFile(
      await mean(
        async () => {
          for (const file of files) await Deno.readTextFile(file.real);
        },
        R,
        1,
      ),
    ),
  );

  console.log("\nfs.grep_files whole calls, mean per call");
  await grepFilesTool.handler({ ...args, case_sensitive: true }, context); // warm-up
  const cpuBefore = process.cpuUsage();
  const handlerMs = await mean(
    async () => {
      await grepFilesTool.handler({ ...args, case_sensitive: true }, context);
    },
    R,
    0,
  );
  const cpu = process.cpuUsage(cpuBefore);
  row("handler alone (grepFilesTool.handler, 16 reads at once)", ms(handlerMs));
  row("  CPU time of the process per call: user", ms(cpu.user / 1000 / R));
  row("  CPU time of the process per call: system (kernel)", ms(cpu.system / 1000 / R));
  clocks.worker = clocks.audit = 0;
  const total = await mean(() => run.call("fs.grep_files", args), R, 0);
  row("pipeline run.call, total", ms(total));
  row("  of which the Worker step (post, handler, answer)", ms(clocks.worker / R));
  row("  of which audit writes", ms(clocks.audit / R));
  row(
    "  rest (lookup, parse, decide/guard, shape/redact, hashes)",
    ms(total - (clocks.worker + clocks.audit) / R),
  );

  // The proposed fix, prototyped: walked files are not resolved again from the workspace (the
  // walk never enters a symlinked folder, so only the leaf needs an lstat), and the per-file
  // calls are synchronous (one Worker thread; yield to the event loop between folders).
  const prototype = async () => {
    let found = 0;
    const visit = async (folder: string): Promise<void> => {
      const entries = [...Deno.readDirSync(folder)].sort((a, b) => (a.name < b.name ? -1 : 1));
      for (const entry of entries) {
        const path = `${folder}/${entry.name}`;
        if (entry.isDirectory) {
          await new Promise((resolve) => setTimeout(resolve, 0));
          await visit(path);
          continue;
        }
        const leaf = Deno.lstatSync(path);
        if (!leaf.isFile || context.guard.sensitiveMatch(path) !== null) continue;
        const handle = Deno.openSync(path, { read: true });
        try {
          const stat = handle.statSync();
          if (stat.dev !== leaf.dev || stat.ino !== leaf.ino) throw new Error("changed");
          const buffer = new Uint8Array(stat.size + 1);
          let length = 0;
          while (length < buffer.byteLength) {
            const read = handle.readSync(buffer.subarray(length));
            if (read === null) break;
            length += read;
          }
          found += countMatches(new TextDecoder().decode(buffer.subarray(0, length)));
        } finally {
          handle.close();
        }
      }
    };
    await visit(start.real);
    if (found !== expected) throw new Error(`prototype found ${found}, not ${expected}`);
  };
  row(
    "prototype of the fix (same checks, sync calls, no re-resolve)",
    ms(await mean(prototype, R, 1)),
  );
}
