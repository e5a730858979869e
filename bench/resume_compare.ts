/**
 * What `kagent-run resume` adds before the model is asked again (issue 26): rebuilding the
 * conversation from the sealed records (`readRecordedConversation`), against the verification every
 * resume does first (`verifyRun`, the anchor), on a real run folder of a scripted run with
 * `turns` turns of one `fs.read_file` each. The two are interleaved round by round; the medians
 * and their ratio are printed.
 *
 *   deno run --unstable-worker-options --allow-read --allow-write --allow-env --allow-run \
 *     --allow-net=127.0.0.1 bench/resume_compare.ts [turns = 100] [rounds = 15]
 *
 * @module
 */

import * as nodePath from "node:path";
import { readRecordedConversation } from "../src/agent/mod.ts";
import { main } from "../src/cli/mod.ts";
import { verifyRun } from "../src/verify/mod.ts";

const turns = Number(Deno.args[0] ?? 100);
const rounds = Number(Deno.args[1] ?? 15);
const root = await Deno.makeTempDir({ prefix: "kagent_resume_bench_" });
globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));
const workspace = nodePath.join(root, "workspace");
await Deno.mkdir(workspace);
await Deno.writeTextFile(
  nodePath.join(workspace, "README.md"),
  "A line of the project's README, read back by the model.\n".repeat(40),
);
const plan = Array.from({ length: turns }, (_, index) =>
  JSON.stringify({
    tool_calls: [{ id: `read-${index}`, name: "fs.read_file", arguments: { path: "README.md" } }],
  }));
await Deno.writeTextFile(nodePath.join(root, "plan.jsonl"), `${plan.join("\n")}\n`);
const configPath = nodePath.join(root, "agent.jsonc");
await Deno.writeTextFile(
  configPath,
  JSON.stringify({
    workspace: "workspace",
    runs_dir: "runs",
    model: { provider: "script", script: "plan.jsonl" },
    task: "Read the README again and again",
    agent: { max_turns: turns },
  }),
);
const code = await main(["run", "--config", configPath, "--quiet"], {
  stdout: () => {},
  stderr: () => {},
  stdoutIsTerminal: false,
  stderrIsTerminal: false,
  env: (name) => Deno.env.get(name),
  terminal: null,
});
if (code !== 5) throw new Error(`the scripted run ended with exit ${code}, not 5 (max_turns)`);
const runDir = nodePath.join(
  root,
  "runs",
  [...Deno.readDirSync(nodePath.join(root, "runs"))][0]!.name,
);

const times = { verify: [] as number[], rebuild: [] as number[] };
for (let round = 0; round < rounds; round++) {
  let started = performance.now();
  const report = await verifyRun(runDir);
  times.verify.push(performance.now() - started);
  if (report.verdict !== "verified") throw new Error(`the run does not verify: ${report.verdict}`);
  started = performance.now();
  const recorded = await readRecordedConversation(runDir);
  times.rebuild.push(performance.now() - started);
  if (recorded.turns !== turns) throw new Error(`rebuilt ${recorded.turns} turns, not ${turns}`);
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const verify = median(times.verify);
const rebuild = median(times.rebuild);
console.log(
  `${turns} turns, ${rounds} rounds: verifyRun ${verify.toFixed(1)} ms (anchor), ` +
    `readRecordedConversation ${rebuild.toFixed(1)} ms, ratio ${(rebuild / verify).toFixed(2)}`,
);
