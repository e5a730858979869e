/**
 * What reading a run's summary back from its sealed folder costs at the end of a run (every CI
 * output is made from it since issue 26): `readRunSummary` timed against `writeRunReport` (the
 * anchor: what `--report` does at the same moment, reading the same folder and rendering it),
 * interleaved round by round in this process, medians. Not a `deno bench` file: the figure is one
 * per run size.
 *
 * ```sh
 * deno run --allow-all bench/run_summary_bench.ts [calls = 100,1000] [rounds = 7]
 * ```
 *
 * It writes a scripted run of each size (`fs.read_file` calls, 10 a turn, windows of README.md) into
 * a temporary folder with `main.ts`, as a user would, and removes the folder at the end.
 *
 * @module
 */

import * as nodePath from "node:path";
import { readRunSummary, writeRunReport } from "../src/report/mod.ts";

const REPOSITORY = nodePath.resolve(import.meta.dirname ?? ".", "..");
const SIZES = (Deno.args[0] ?? "100,1000").split(",").map(Number);
const ROUNDS = Number(Deno.args[1] ?? 7);

/** Runs `main.ts` on a scripted plan of `calls` reads in `dir`; returns the run folder. */
async function scriptedRun(dir: string, calls: number): Promise<string> {
  const workspace = nodePath.join(dir, `run-${calls}`);
  await Deno.mkdir(workspace, { recursive: true });
  await Deno.copyFile(nodePath.join(REPOSITORY, "README.md"), nodePath.join(workspace, "a.md"));
  const turns: string[] = [];
  for (let first = 0; first < calls; first += 10) {
    const ids = Array.from({ length: Math.min(10, calls - first) }, (_, index) => first + index);
    turns.push(JSON.stringify({
      tool_calls: ids.map((id) => ({
        id: `read-${id}`,
        name: "fs.read_file",
        arguments: { path: "a.md", start_line: 1 + (id % 150) * 10, max_lines: 10 },
      })),
    }));
  }
  turns.push(JSON.stringify({ content: "done" }));
  await Deno.writeTextFile(nodePath.join(workspace, "plan.jsonl"), turns.join("\n") + "\n");
  await Deno.writeTextFile(
    nodePath.join(workspace, "agent.jsonc"),
    JSON.stringify({
      workspace: ".",
      runs_dir: "runs",
      model: { provider: "script", script: "plan.jsonl" },
      task: `Read ${calls} windows of a.md`,
      agent: { max_turns: turns.length + 1 },
    }),
  );
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--unstable-worker-options",
      "--allow-all",
      nodePath.join(REPOSITORY, "main.ts"),
      "--config",
      nodePath.join(workspace, "agent.jsonc"),
      "--quiet",
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`The scripted run failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  const runs = [...Deno.readDirSync(nodePath.join(workspace, "runs"))].map((entry) => entry.name);
  return nodePath.join(workspace, "runs", runs[0] as string);
}

const median = (times: number[]) => times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0;

const temporary = await Deno.makeTempDir({ prefix: "run-summary-" });
try {
  for (const calls of SIZES) {
    const runDir = await scriptedRun(temporary, calls);
    const summaryTimes: number[] = [];
    const reportTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let start = performance.now();
      const summary = await readRunSummary(runDir);
      summaryTimes.push(performance.now() - start);
      if (summary.counts.calls !== calls) throw new Error(`Expected ${calls} calls`);
      start = performance.now();
      await writeRunReport(runDir, { children: false });
      reportTimes.push(performance.now() - start);
    }
    const summaryMedian = median(summaryTimes);
    const reportMedian = median(reportTimes);
    console.log(
      `${calls} calls: writeRunReport ${reportMedian.toFixed(1)} ms (anchor), readRunSummary ` +
        `${summaryMedian.toFixed(1)} ms, ratio ${(summaryMedian / reportMedian).toFixed(2)} ` +
        `(${ROUNDS} rounds, medians)`,
    );
  }
} finally {
  await Deno.remove(temporary, { recursive: true });
}
