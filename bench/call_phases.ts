/**
 * Where the time of one call goes through the pipeline `kagent-run mcp` runs (issue 16's per-call
 * targets): `fs.list_files` of the fs_tools bench's folder of 573 entries and `fs.read_file` of a
 * 2,000-byte file. Each is timed as the whole pipeline (`run.call`) with its Worker step and its
 * audit writes clocked apart, and beside it the handler alone in this thread and the bare system
 * calls the handler cannot avoid (one lstat an entry for the sizes, in this thread and in a Worker
 * with the run's Deno permissions). Medians of per-call times. Not a `Deno.bench` file (`deno bench`
 * skips it); run it alone:
 *
 * ```sh
 * deno run --unstable-worker-options --allow-read --allow-write --allow-env --allow-run \
 *   bench/call_phases.ts [CALLS]
 * ```
 *
 * The MCP layer (stdio, the SDK on both ends) comes on top: `bench/mcp_compare.ts` times the same
 * calls from the official client against server-filesystem.
 *
 * @module
 */

import * as nodePath from "node:path";
import { openTestRun } from "../src/testing/run_harness.ts";
import { createTestContext } from "../src/testing/tool_context.ts";
import { ToolWorker } from "../src/worker/tool_worker.ts";
import { listFilesTool } from "../src/toolsets/fs/list_files.ts";
import { readFileTool } from "../src/toolsets/fs/read_file.ts";
import { LISTING_ENTRIES, writeListingFolder } from "./_fs_trees.ts";

/** Timed calls a row. @default 200 */
const CALLS = Number(Deno.args[0] ?? 200);
const WARMUP = 20;

/** Per-call clocks of the pipeline's Worker step and audit writes, reset by each pipeline row. */
const clocks = { worker: [] as number[], audit: [] as number[] };
let auditOfCall = 0;
const originalExecute = ToolWorker.prototype.execute;
ToolWorker.prototype.execute = async function (this: ToolWorker, ...args) {
  const started = performance.now();
  try {
    return await originalExecute.apply(this, args);
  } finally {
    clocks.worker.push(performance.now() - started);
  }
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** Median milliseconds of `fn` over {@linkcode CALLS} calls after {@linkcode WARMUP}. */
async function time(fn: () => unknown): Promise<number> {
  for (let index = 0; index < WARMUP; index += 1) await fn();
  const times: number[] = [];
  for (let index = 0; index < CALLS; index += 1) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return median(times);
}

function row(label: string, ms: number): void {
  console.log(`  ${label.padEnd(68)} ${ms.toFixed(3).padStart(8)} ms`);
}

await using run = await openTestRun({
  prepare: async (sandbox) => {
    writeListingFolder(nodePath.join(sandbox.workspace, "listing"));
    await Deno.writeTextFile(
      nodePath.join(sandbox.workspace, "small.txt"),
      Array.from({ length: 50 }, (_, index) => `line ${index} `.padEnd(39, "x") + "\n").join(""),
    );
  },
});
// The recorder's writes, timed per call (summed over the call's records).
const recorder = run.session.recorder as unknown as Record<string, unknown>;
for (const name of ["event", "toolRecord", "error"]) {
  const original = recorder[name] as (...args: unknown[]) => Promise<unknown>;
  recorder[name] = async (...args: unknown[]) => {
    const started = performance.now();
    try {
      return await original.apply(run.session.recorder, args);
    } finally {
      auditOfCall += performance.now() - started;
    }
  };
}
const context = {
  ...(await createTestContext({ workspace: run.sandbox.workspace })),
  files: { search_time_budget_ms: 10_000, hide_sensitive_in_listings: false },
};

/** The pipeline row and its parts: Worker step, audit writes, and the rest on the main thread. */
async function pipeline(name: string, args: Record<string, unknown>): Promise<void> {
  const totals: number[] = [];
  const audits: number[] = [];
  for (let index = 0; index < WARMUP; index += 1) await run.call(name, args);
  clocks.worker = [];
  for (let index = 0; index < CALLS; index += 1) {
    auditOfCall = 0;
    const started = performance.now();
    await run.call(name, args);
    totals.push(performance.now() - started);
    audits.push(auditOfCall);
  }
  const rest = totals.map((total, index) => total - (clocks.worker[index] ?? 0) - audits[index]!);
  row(`pipeline run.call, total`, median(totals));
  row(`  of which the Worker step (post, handler in the Worker, answer)`, median(clocks.worker));
  row(`  of which audit writes (tool.started, tool.completed, tools.jsonl)`, median(audits));
  row(`  rest (lookup, parse, decide and path guard, shape, display)`, median(rest));
}

/**
 * Median milliseconds of one pass of lstats of `names` in a Worker started with the run's Deno
 * permissions, as the tool Worker is (Deno checks each path against the read allowlist).
 */
async function lstatsInWorker(folder: string, names: string[]): Promise<number> {
  const worker = new Worker(new URL("./_lstat_worker.ts", import.meta.url), {
    type: "module",
    deno: { permissions: run.session.workerPermissions },
  } as WorkerOptions);
  try {
    const answer = new Promise<number>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<number>) => resolve(event.data);
      worker.onerror = (event) => reject(new Error(event.message));
    });
    worker.postMessage({ folder, names, times: WARMUP + CALLS });
    return await answer;
  } finally {
    worker.terminate();
  }
}

const listing = nodePath.join(run.sandbox.workspace, "listing");
const names = [...Deno.readDirSync(listing)].map((entry) => entry.name);
const listArgs = { path: "listing", limit: 1000 };
const listed = await listFilesTool.handler(listArgs, context);
console.log(`fs.list_files of a folder of ${LISTING_ENTRIES} entries, median per call`);
row(`readDirSync of the folder (bare)`, await time(() => [...Deno.readDirSync(listing)]));
row(
  `lstatSync of each of the ${names.length} entries (bare, this thread)`,
  await time(() => {
    for (const name of names) Deno.lstatSync(nodePath.join(listing, name));
  }),
);
row(
  `the same lstats in a Worker with the run's Deno permissions`,
  await lstatsInWorker(listing, names),
);
row(
  `handler alone (listFilesTool.handler, this thread)`,
  await time(() => listFilesTool.handler(listArgs, context)),
);
row(
  `structuredClone of its outcome (a Worker answer is one)`,
  await time(() => structuredClone(listed)),
);
await pipeline("fs.list_files", listArgs);

const readArgs = { path: "small.txt" };
console.log(`fs.read_file of a 2,000-byte file, median per call`);
row(
  `handler alone (readFileTool.handler, this thread)`,
  await time(() => readFileTool.handler(readArgs, context)),
);
await pipeline("fs.read_file", readArgs);
