/**
 * The task store's cost per step: a claim and a done report through `SqliteTaskStore`, and through
 * `TaskTools` (argument parsing and text), against the bare SQLite transactions they are made of
 * (two `BEGIN IMMEDIATE … UPDATE … COMMIT` on a WAL file), with the store's `synchronous = NORMAL`
 * and with `FULL` (an fsync a commit) to show what that choice saves.
 */

import { DatabaseSync } from "node:sqlite";
import { SqliteTaskStore, TaskTools } from "../src/tasks/mod.ts";

const folder = await Deno.makeTempDir({ prefix: "kagent-task-bench-" });
globalThis.addEventListener("unload", () => Deno.removeSync(folder, { recursive: true }));

const MAIN = { agent_id: "main", run_id: "run-main" };
const WORKER = { agent_id: "worker-1", run_id: "run-w1" };
const STEPS = Array.from(
  { length: 100 },
  (_, index) => ({ id: `s${index}`, title: `Step ${index}` }),
);

/** A bare table of 100 steps per "task", updated as the store would, without its checks. */
function bareDatabase(synchronous: "NORMAL" | "FULL"): { next: () => void } {
  const database = new DatabaseSync(`${folder}/bare-${synchronous}.sqlite`);
  database.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${synchronous};`);
  database.exec("CREATE TABLE steps (id INTEGER PRIMARY KEY, state TEXT, owner TEXT)");
  const insert = database.prepare("INSERT INTO steps (state) VALUES ('ready')");
  let id = 0;
  return {
    next() {
      id++;
      insert.run();
      database.exec("BEGIN IMMEDIATE");
      database.prepare(
        "UPDATE steps SET state = 'claimed', owner = ? WHERE id = ? AND state = 'ready'",
      )
        .run("worker-1", id);
      database.exec("COMMIT");
      database.exec("BEGIN IMMEDIATE");
      database.prepare("UPDATE steps SET state = 'done' WHERE id = ?").run(id);
      database.exec("COMMIT");
    },
  };
}

const normal = bareDatabase("NORMAL");
const full = bareDatabase("FULL");
const store = new SqliteTaskStore(`${folder}/tasks.sqlite`);
const tools = new TaskTools(store, {
  agent_id: "worker-1",
  agent_type: "worker",
  run_id: "run-w1",
});

/** The id of a task with a ready step for the next iteration (a new task every 100 steps). */
let taskId = "";
let used = STEPS.length;
async function nextStep(): Promise<{ taskId: string; stepId: string }> {
  if (used === STEPS.length) {
    taskId = (await store.createTask(MAIN, { title: "Bench", steps: STEPS })).id;
    used = 0;
  }
  return { taskId, stepId: `s${used++}` };
}

Deno.bench("bare SQLite: claim and report, synchronous NORMAL (baseline)", {
  group: "claim and report one step",
  baseline: true,
}, () => normal.next());

Deno.bench("bare SQLite: claim and report, synchronous FULL", {
  group: "claim and report one step",
}, () => full.next());

Deno.bench("SqliteTaskStore.claimStep + updateStep", {
  group: "claim and report one step",
}, async (bench) => {
  const { taskId, stepId } = await nextStep();
  bench.start();
  await store.claimStep(WORKER, taskId, stepId);
  await store.updateStep(WORKER, taskId, stepId, { state: "done", result: "ok" });
  bench.end();
});

Deno.bench("TaskTools agent.task_claim_step + agent.task_update_step", {
  group: "claim and report one step",
}, async (bench) => {
  const { taskId, stepId } = await nextStep();
  bench.start();
  await tools.execute(
    "agent.task_claim_step",
    "c",
    { task_id: taskId, step_id: stepId },
    undefined,
  );
  await tools.execute("agent.task_update_step", "u", {
    task_id: taskId,
    step_id: stepId,
    state: "done",
    result: "ok",
  }, undefined);
  bench.end();
});
