/**
 * `fs.grep_files` through the whole pipeline with ripgrep as its candidate filter and with the
 * built-in searcher alone, against `rg` as a user runs it (the anchor), interleaved round by round
 * in one process on the real `node_modules` of `fs_tools_bench.ts`; medians and ratios printed.
 * The built-in run gets a PATH without `rg`. Each pipeline's whole-process peak memory is measured
 * once in a fresh process (`/usr/bin/time -f %M`, `--once <ripgrep|builtin|idle>`; `idle` opens
 * the run and makes no call).
 *
 * ```sh
 * deno run -A --unstable-worker-options bench/grep_engines_compare.ts [rounds = 9]
 * ```
 *
 * @module
 */

import * as nodePath from "node:path";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import type { GrepFilesData } from "../src/toolsets/fs/grep_files.ts";
import { copyTree, findNodeModules, GREP_PATTERN, ripgrepAnchorArgs } from "./_fs_trees.ts";

const GREP_ARGS = { pattern: GREP_PATTERN, path: "node_modules", limit: 1000 };
const TIME_BUDGET_MS = 600_000;
const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";

/** A run over a copy of the tree; `withRipgrep: false` hides `rg` from its PATH. */
async function openRun(modules: string, withRipgrep: boolean): Promise<TestRun> {
  return await openTestRun({
    config: { limits: { search_time_budget_ms: TIME_BUDGET_MS } },
    env: (name) => name === "PATH" ? (withRipgrep ? PATH : "/nonexistent") : Deno.env.get(name),
    prepare: async (sandbox) => {
      const target = nodePath.join(sandbox.workspace, "node_modules");
      // In a child process for `--once`: the copy must not count in the call's peak memory.
      if (once === undefined) await copyTree(modules, target);
      else await new Deno.Command("cp", { args: ["-a", modules, target] }).output();
    },
  });
}

/** One call through the pipeline: its time in ms, the engine and the match count. */
async function pipelineOnce(run: TestRun) {
  const started = performance.now();
  const result = await run.call("fs.grep_files", GREP_ARGS);
  const ms = performance.now() - started;
  const data = result.data as GrepFilesData | null;
  if (!result.ok || data === null || data.truncated) {
    throw new Error(`fs.grep_files failed: ${result.summary}`);
  }
  return { ms, engine: data.engine, matches: data.matches.length };
}

const once = Deno.args[0] === "--once" ? Deno.args[1] : undefined;
const modules = (await findNodeModules()).path;
if (once !== undefined) {
  const run = await openRun(modules, once === "ripgrep");
  // `idle`: the same process with its run open and no call, to compare with.
  if (once !== "idle") console.log(JSON.stringify(await pipelineOnce(run)));
  await run.close();
  Deno.exit(0);
}

const rounds = Number(Deno.args[0] ?? 9);
const fast = await openRun(modules, true);
const builtin = await openRun(modules, false);
/** `rg` as `fs_tools_bench.ts` runs it: the matching lines, links to files followed. */
const ripgrepArgs = ripgrepAnchorArgs(nodePath.join(fast.sandbox.workspace, "node_modules"));
async function ripgrepOnce() {
  const started = performance.now();
  const output = await new Deno.Command("rg", { args: ripgrepArgs, stdout: "piped" }).output();
  const ms = performance.now() - started;
  return { ms, matches: new TextDecoder().decode(output.stdout).split("\n").length - 1 };
}

const times = { rg: [] as number[], ripgrep: [] as number[], builtin: [] as number[] };
for (let round = 0; round < rounds; round += 1) {
  const anchor = await ripgrepOnce();
  const withRipgrep = await pipelineOnce(fast);
  const alone = await pipelineOnce(builtin);
  if (withRipgrep.engine !== "ripgrep" || alone.engine !== "builtin") {
    throw new Error(`engines: ${withRipgrep.engine} and ${alone.engine}`);
  }
  if (withRipgrep.matches !== anchor.matches || alone.matches !== anchor.matches) {
    throw new Error(`matches: rg ${anchor.matches}, ${withRipgrep.matches}, ${alone.matches}`);
  }
  times.rg.push(anchor.ms);
  times.ripgrep.push(withRipgrep.ms);
  times.builtin.push(alone.ms);
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
const anchor = median(times.rg);
console.log(`${rounds} rounds, interleaved; medians (ratio to rg):`);
console.log(`  rg (whole process)                  ${anchor.toFixed(0)} ms`);
for (const [name, values] of [["ripgrep", times.ripgrep], ["builtin", times.builtin]] as const) {
  const ms = median(values);
  console.log(
    `  fs.grep_files pipeline, ${name.padEnd(8)}   ${ms.toFixed(0)} ms (${
      (ms / anchor).toFixed(2)
    }×)`,
  );
}
for (const engine of ["idle", "ripgrep", "builtin"]) {
  const measured = await new Deno.Command("/usr/bin/time", {
    args: [
      "-f",
      "%M",
      Deno.execPath(),
      "run",
      "-A",
      "--unstable-worker-options",
      import.meta.filename ?? "",
      "--once",
      engine,
    ],
    stdout: "null",
    stderr: "piped",
  }).output().catch(() => null);
  const last = measured === null
    ? "n/a"
    : new TextDecoder().decode(measured.stderr).trim().split("\n").at(-1);
  const mib = Number(last) / 1024;
  console.log(
    `  peak RSS, ${engine === "idle" ? "run open, no call" : `one pipeline call (${engine})`}: ${
      Number.isFinite(mib) ? mib.toFixed(0) : "n/a"
    } MiB`,
  );
}
for (const run of [fast, builtin]) await run.close();
