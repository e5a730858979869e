// Property (issue 25 §1): no model turn — any JSON the wire allows — ends a run other than through
// its documented ends. Thousands of generated turns (deep, wide, huge, odd Unicode with lone
// surrogates, duplicate and missing ids, unknown tools, invalid or non-text arguments, cut-off,
// refused and broken answers) go through the real agent loop, in-process, against a loopback
// OpenAI-compatible model; every run must end with a documented end reason and its exit code, and
// its folder must verify sealed. The seed is printed; KAGENT_PROPERTY_SEED replays one,
// KAGENT_PROPERTY_RUNS changes how many runs (50 by default: 1,959 turns with seed 37; about 80 s of
// CPU on this 2-core VM).
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";
import { hostileAnswer, Random } from "./_hostile_turns.ts";
import { verifyRun } from "../src/verify/mod.ts";

const SEED = Number(Deno.env.get("KAGENT_PROPERTY_SEED") ?? 0x25);
const RUNS = Number(Deno.env.get("KAGENT_PROPERTY_RUNS") ?? 50);
const MAX_TURNS = 45;

/** Each documented end reason of a run and the exit codes it may end with (docs/USAGE.md "Exit codes"). */
const DOCUMENTED_ENDS: Record<string, number[]> = {
  completed: [0, 3],
  max_turns: [5],
  model_error: [4],
};

/**
 * One run against a model whose every answer comes from the generator seeded with `seed`; each
 * turn ends the run with probability `endChance`.
 */
async function hostileRun(seed: number, endChance: number) {
  const random = new Random(seed);
  let turns = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      await request.body?.cancel();
      turns += 1;
      return hostileAnswer(random, turns, endChance);
    },
  );
  try {
    await using project = await createProject({
      config: {
        model: {
          provider: "openai",
          model: "hostile-model",
          base_url: `http://127.0.0.1:${server.addr.port}/v1`,
          retries: 0,
        },
        agent: { max_turns: MAX_TURNS },
        task: "Write the report",
      },
    });
    const result = await runCli(["--config", project.configPath]);
    const runDir = await onlyRunDir(project);
    const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
    const end = events.findLast((event) => event.type === "run.completed");
    const report = await verifyRun(runDir);
    return { ...result, turns, end, report, events };
  } finally {
    await server.shutdown();
  }
}

Deno.test(`every generated model turn ends its run through a documented end, sealed (seed ${SEED})`, async () => {
  console.log(`property seed ${SEED} (replay with KAGENT_PROPERTY_SEED=${SEED}), ${RUNS} runs`);
  let turns = 0;
  const ends = new Map<string, number>();
  for (let index = 0; index < RUNS; index += 1) {
    const seed = (SEED * 1_000_003 + index) >>> 0;
    // Every other run never ends on its own, so it meets max_turns.
    const run = await hostileRun(seed, index % 2 === 0 ? 0 : 1 / 50);
    const where = `run seed ${seed} (KAGENT_PROPERTY_SEED=${SEED}, run ${index})`;
    turns += run.turns;
    const reason = String(run.end?.end_reason);
    ends.set(reason, (ends.get(reason) ?? 0) + 1);
    assert.ok(run.end !== undefined, `${where}: no run.completed; stderr: ${run.stderr}`);
    assert.ok(
      DOCUMENTED_ENDS[reason]?.includes(run.code),
      `${where}: end reason "${reason}" with exit code ${run.code}; stderr: ${run.stderr}`,
    );
    assert.doesNotMatch(run.stderr, /internal error|Maximum call stack|RangeError/, where);
    assert.equal(
      run.report.verdict,
      "verified",
      `${where}: verify says ${run.report.verdict}: ${JSON.stringify(run.report.problems)}`,
    );
    // Every call the model made is answered once in the audit, executed or not.
    const started = run.events.filter((event) => event.type === "tool.started").length;
    const ended = run.events.filter((event) =>
      ["tool.completed", "tool.failed", "tool.denied"].includes(String(event.type))
    ).length;
    assert.equal(started, ended, `${where}: ${started} calls started, ${ended} ended`);
  }
  console.log(`${turns} model turns in ${RUNS} runs; ends: ${JSON.stringify([...ends])}`);
  // The generator must reach every documented end, or the property says less than it claims.
  assert.ok(turns >= RUNS * 10, `only ${turns} turns`);
  for (const reason of Object.keys(DOCUMENTED_ENDS)) {
    assert.ok(
      (ends.get(reason) ?? 0) > 0,
      `no run ended "${reason}": ${JSON.stringify([...ends])}`,
    );
  }
});
