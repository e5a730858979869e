import assert from "node:assert/strict";
import type { RaceSetup } from "./_claim_race_fixture.ts";
import { SqliteTaskStore } from "./sqlite_task_store.ts";

/** The next message of `worker`. */
function nextMessage<T>(worker: Worker): Promise<T> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<T>) => resolve(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message));
    };
  });
}

Deno.test("four threads, each with its own connection, racing for every step: each step is claimed exactly once", async () => {
  const folder = await Deno.makeTempDir({ prefix: "kagent-tasks-race-" });
  const path = `${folder}/tasks.sqlite`;
  const store = new SqliteTaskStore(path);
  const workers: Worker[] = [];
  try {
    const stepIds = Array.from({ length: 24 }, (_, index) => `s${index}`);
    const task = await store.createTask({ agent_id: "main", run_id: "run-main" }, {
      title: "Race",
      steps: stepIds.map((id) => ({ id, title: id })),
    });
    const agents = ["w0", "w1", "w2", "w3"];
    for (const [index, agent] of agents.entries()) {
      const worker = new Worker(new URL("./_claim_race_fixture.ts", import.meta.url), {
        type: "module",
      });
      workers.push(worker);
      const ready = nextMessage<string>(worker);
      worker.postMessage(
        {
          path,
          task_id: task.id,
          step_ids: stepIds,
          agent_id: agent,
          // Two threads start at the same step, two others a quarter further on.
          offset: (index % 2) * (stepIds.length / 4),
        } satisfies RaceSetup,
      );
      assert.equal(await ready, "ready");
    }
    const results = workers.map((worker) =>
      nextMessage<{ won: string[]; refused: string[] }>(worker)
    );
    for (const worker of workers) worker.postMessage("go");
    const outcomes = await Promise.all(results);
    const won = outcomes.flatMap((outcome) => outcome.won);
    assert.equal(won.length, stepIds.length, "every step claimed once, none twice");
    assert.deepEqual([...new Set(won)].sort(), [...stepIds].sort());
    for (const outcome of outcomes) {
      assert.ok(outcome.refused.every((code) => code === "state_conflict"), outcome.refused.join());
    }
    // The store agrees with what each thread was told.
    const owners = new Map(
      (await store.getTask(task.id)).steps.map((step) => [step.id, step.owner]),
    );
    outcomes.forEach((outcome, index) => {
      for (const id of outcome.won) assert.equal(owners.get(id), agents[index]);
    });
  } finally {
    for (const worker of workers) worker.terminate();
    await store.close();
    await Deno.remove(folder, { recursive: true });
  }
});
