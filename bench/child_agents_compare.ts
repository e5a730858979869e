/**
 * What a child agent costs, and what running children in parallel saves, through `kagent-run run`
 * with scripted models (no network): median wall time of
 *
 * - a run whose main agent answers at once (the baseline),
 * - a run whose main agent starts one sub-agent that answers at once (one child run: its session,
 *   tool Worker, folder, records),
 * - four sub-agents in one turn (parallel, agent.max_concurrent_children 4) against the same four
 *   in four turns (one after another).
 *
 * Reported as ratios; absolute times depend on the machine.
 *
 *   deno run --unstable-worker-options --allow-read --allow-write --allow-env --allow-run \
 *     bench/child_agents_compare.ts [repetitions]
 *
 * @module
 */

import * as nodePath from "node:path";
import { main } from "../src/cli/mod.ts";

const REPETITIONS = Number(Deno.args[0] ?? 5);

const start = (id: string) => ({
  id,
  name: "agent.create_sub_agent",
  arguments: { agent_id: "quick", task: "Answer" },
});

/** Plans of the four cases: each line one turn of the main agent. */
const CASES: Record<string, unknown[][]> = {
  "no child (baseline)": [],
  "one child": [[start("a")]],
  "four children, one turn": [[start("a"), start("b"), start("c"), start("d")]],
  "four children, four turns": [[start("a")], [start("b")], [start("c")], [start("d")]],
};

async function runOnce(turns: unknown[][]): Promise<number> {
  const root = await Deno.makeTempDir({ prefix: "kagent_child_bench_" });
  try {
    await Deno.mkdir(nodePath.join(root, "workspace"));
    const plan = [
      ...turns.map((calls) => JSON.stringify({ tool_calls: calls })),
      JSON.stringify({ content: "done" }),
    ];
    await Deno.writeTextFile(nodePath.join(root, "plan.jsonl"), plan.join("\n") + "\n");
    await Deno.writeTextFile(nodePath.join(root, "quick.jsonl"), '{"content": "ok"}\n');
    await Deno.writeTextFile(
      nodePath.join(root, "agent.jsonc"),
      JSON.stringify({
        workspace: "workspace",
        model: { provider: "script", script: "plan.jsonl" },
        task: "bench",
        agent: { max_concurrent_children: 4 },
        agents: {
          quick: {
            description: "Answers at once",
            agent_type: "sub",
            model: { provider: "script", script: "quick.jsonl" },
          },
        },
      }),
    );
    const started = performance.now();
    const code = await main(["run", "--config", nodePath.join(root, "agent.jsonc"), "--quiet"], {
      stdout: () => {},
      stderr: () => {},
      stdoutIsTerminal: false,
      env: (name) => Deno.env.get(name),
      terminal: null,
    });
    const elapsed = performance.now() - started;
    if (code !== 0) throw new Error(`the run exited ${code}`);
    return elapsed;
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

const medians: Record<string, number> = {};
await runOnce([]); // Warm-up: module loading.
for (const [name, turns] of Object.entries(CASES)) {
  const times: number[] = [];
  for (let index = 0; index < REPETITIONS; index++) times.push(await runOnce(turns));
  medians[name] = median(times);
  console.log(`${name.padEnd(28)} median ${medians[name]?.toFixed(0)} ms (${REPETITIONS} runs)`);
}
const base = medians["no child (baseline)"] as number;
const one = medians["one child"] as number;
const parallel = medians["four children, one turn"] as number;
const serial = medians["four children, four turns"] as number;
console.log(`one child run costs ${(one - base).toFixed(0)} ms: ${(one / base).toFixed(2)}x a run`);
console.log(
  `four children in one turn take ${(parallel / serial).toFixed(2)}x the time of four turns`,
);
