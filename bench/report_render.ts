/**
 * How long `kagent-run report` takes to render a run (the verify verdict, the HTML and the Markdown
 * report, written into the run folder): `writeRunReport` timed in this process, 7 times a run, the
 * median. Not a `deno bench` file: each round writes files, and the figure is one per run size.
 *
 * ```sh
 * deno run --allow-all bench/report_render.ts                 # builds runs of 8 and 1,000 calls
 * deno run --allow-all bench/report_render.ts RUN_FOLDER...   # or times existing run folders
 * ```
 *
 * Without arguments it writes a scripted run of 8 and one of 1,000 `fs.read_file` calls (10 calls
 * a turn, windows of README.md) into a temporary folder with `main.ts`, as a user would, and removes
 * the folder at the end.
 *
 * @module
 */

import * as nodePath from "node:path";
import { writeRunReport } from "../src/report/mod.ts";

const ROUNDS = 7;
const REPOSITORY = nodePath.resolve(import.meta.dirname ?? ".", "..");

/** Runs `main.ts` on a scripted plan of `calls` reads in `dir`; returns the run folder. */
async function scriptedRun(dir: string, calls: number): Promise<string> {
  const workspace = nodePath.join(dir, `run-${calls}`);
  await Deno.mkdir(workspace, { recursive: true });
  await Deno.copyFile(nodePath.join(REPOSITORY, "README.md"), nodePath.join(workspace, "a.md"));
  const turns: string[] = [];
  for (let first = 0; first < calls; first += 10) {
    const ids = Array.from({ length: Math.min(10, calls - first) }, (_, index) => first + index);
    const toolCalls = ids.map((id) => ({
      id: `read-${id}`,
      name: "fs.read_file",
      arguments: { path: "a.md", start_line: 1 + (id % 150) * 10, max_lines: 10 },
    }));
    turns.push(JSON.stringify({ tool_calls: toolCalls }));
  }
  turns.push(JSON.stringify({ content: "done" }));
  await Deno.writeTextFile(nodePath.join(workspace, "plan.jsonl"), turns.join("\n") + "\n");
  const config = {
    workspace: ".",
    runs_dir: "runs",
    model: { provider: "script", script: "plan.jsonl" },
    task: `Read ${calls} windows of a.md`,
    agent: { max_turns: turns.length + 1 },
  };
  await Deno.writeTextFile(nodePath.join(workspace, "agent.jsonc"), JSON.stringify(config));
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--unstable-worker-options",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-run",
      "--allow-net",
      nodePath.join(REPOSITORY, "main.ts"),
      "--config",
      nodePath.join(workspace, "agent.jsonc"),
      "--quiet",
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `The scripted run of ${calls} calls failed: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  const runs = [...Deno.readDirSync(nodePath.join(workspace, "runs"))].map((entry) => entry.name);
  return nodePath.join(workspace, "runs", runs[0] as string);
}

const temporary = Deno.args.length === 0
  ? await Deno.makeTempDir({ prefix: "report-render-" })
  : null;
try {
  const runDirs = temporary === null
    ? Deno.args
    : [await scriptedRun(temporary, 8), await scriptedRun(temporary, 1000)];
  for (const runDir of runDirs) {
    const times: number[] = [];
    let htmlBytes = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const start = performance.now();
      const written = await writeRunReport(runDir);
      times.push(performance.now() - start);
      htmlBytes = (await Deno.stat(written.html)).size;
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(ROUNDS / 2)] as number;
    console.log(
      `${runDir}: median ${median.toFixed(1)} ms (${(times[0] as number).toFixed(1)} – ` +
        `${(times[ROUNDS - 1] as number).toFixed(1)} ms, ${ROUNDS} rounds), ` +
        `report.html ${(htmlBytes / 1024).toFixed(0)} KiB`,
    );
  }
} finally {
  if (temporary !== null) await Deno.remove(temporary, { recursive: true });
}
