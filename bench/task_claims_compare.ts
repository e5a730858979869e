/**
 * Claims per second of the task stores with 1, 4 and 16 concurrent claimers (issue 28): the
 * PostgreSQL store (each claimer its own `PostgresTaskStore`, so its own Worker and connection, as
 * separate machines would have) against a bare `UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP
 * LOCKED)` loop on as many plain connections, and the SQLite store (each claimer a thread with its
 * own connection to one file) against the bare `BEGIN IMMEDIATE; UPDATE …; COMMIT` loop. Every
 * claimer takes the next ready step of each task until none is left; each step is claimed once.
 *
 *   KAGENT_TEST_DATABASE_URL=postgres://kagent_test@127.0.0.1:5432/kagent_test \
 *     deno run --unstable-worker-options --allow-read --allow-write --allow-env \
 *     --allow-net=127.0.0.1 bench/task_claims_compare.ts [TASKS]
 *
 * TASKS (default 3) tasks of 100 steps are claimed per row. Without the variable the PostgreSQL
 * rows are skipped, saying so.
 *
 * @module
 */

import postgres from "postgres";
import { DatabaseSync } from "node:sqlite";
import { PostgresTaskStore, SqliteTaskStore, TaskStoreError } from "../src/tasks/mod.ts";
import type { ClaimerSetup } from "./_sqlite_claimer.ts";

const TASKS = Number(Deno.args[0] ?? "3");
const STEPS_PER_TASK = 100;
const CLAIMERS = [1, 4, 16];
const MAIN = { agent_id: "main", run_id: "run-main" };
const STEPS = Array.from({ length: STEPS_PER_TASK }, (_, index) => ({
  id: `s${index}`,
  title: `Step ${index}`,
}));

/** One row: the claimers' total over the wall time. */
async function measure(claimers: number, run: () => Promise<number>): Promise<number> {
  const start = performance.now();
  const claimed = await run();
  const seconds = (performance.now() - start) / 1000;
  if (claimed !== TASKS * STEPS_PER_TASK) {
    throw new Error(`claimed ${claimed} of ${TASKS * STEPS_PER_TASK} steps with ${claimers}`);
  }
  return claimed / seconds;
}

async function postgresRows(url: string): Promise<Record<string, number[]>> {
  const schema = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  const rows: Record<string, number[]> = { store: [], bare: [] };
  try {
    for (const claimers of CLAIMERS) {
      // The store: a new schema's tasks, claimed by `claimers` stores at once.
      const stores = await Promise.all(
        Array.from(
          { length: claimers },
          () => PostgresTaskStore.open({ url, schema, maxConnections: 1 }),
        ),
      );
      const taskIds: string[] = [];
      for (let index = 0; index < TASKS; index++) {
        taskIds.push((await stores[0]!.createTask(MAIN, { title: "Bench", steps: STEPS })).id);
      }
      rows.store!.push(
        await measure(claimers, async () => {
          const counts = await Promise.all(stores.map(async (store, index) => {
            const actor = { agent_id: `w${index}`, run_id: `run-w${index}` };
            let count = 0;
            for (const taskId of taskIds) {
              for (;;) {
                try {
                  await store.claimStep(actor, taskId);
                  count++;
                } catch (error) {
                  if (error instanceof TaskStoreError && error.code === "state_conflict") break;
                  throw error;
                }
              }
            }
            return count;
          }));
          return counts.reduce((sum, count) => sum + count, 0);
        }),
      );
      for (const store of stores) await store.close();
      // The anchor: the bare SKIP LOCKED claim on plain connections.
      await admin.unsafe(`DROP TABLE IF EXISTS "${schema}".bare_steps`);
      await admin.unsafe(
        `CREATE TABLE "${schema}".bare_steps (task_id text, id text, position integer,
           state text, owner text, PRIMARY KEY (task_id, id))`,
      );
      for (const taskId of taskIds) {
        await admin.unsafe(
          `INSERT INTO "${schema}".bare_steps
           SELECT $1, 's' || n, n, 'ready', NULL FROM generate_series(0, $2) AS n`,
          [taskId, STEPS_PER_TASK - 1],
        );
      }
      const connections = Array.from(
        { length: claimers },
        () => postgres(url, { max: 1, onnotice: () => {} }),
      );
      rows.bare!.push(
        await measure(claimers, async () => {
          const counts = await Promise.all(connections.map(async (sql, index) => {
            let count = 0;
            for (const taskId of taskIds) {
              for (;;) {
                const claimed = await sql.unsafe(
                  `UPDATE "${schema}".bare_steps SET state = 'claimed', owner = $1
                   WHERE (task_id, id) = (SELECT task_id, id FROM "${schema}".bare_steps
                     WHERE task_id = $2 AND state = 'ready' ORDER BY position LIMIT 1
                     FOR UPDATE SKIP LOCKED)
                   RETURNING id`,
                  [`w${index}`, taskId],
                );
                if (claimed.length === 0) break;
                count++;
              }
            }
            return count;
          }));
          return counts.reduce((sum, count) => sum + count, 0);
        }),
      );
      for (const sql of connections) await sql.end();
      await admin.unsafe(`DROP SCHEMA "${schema}" CASCADE`);
    }
  } finally {
    await admin.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
  return rows;
}

async function sqliteRows(): Promise<Record<string, number[]>> {
  const rows: Record<string, number[]> = { store: [], bare: [] };
  for (const claimers of CLAIMERS) {
    for (const kind of ["store", "bare"] as const) {
      const folder = await Deno.makeTempDir({ prefix: "kagent-claims-bench-" });
      const path = `${folder}/tasks.sqlite`;
      const store = new SqliteTaskStore(path);
      const taskIds: string[] = [];
      for (let index = 0; index < TASKS; index++) {
        taskIds.push((await store.createTask(MAIN, { title: "Bench", steps: STEPS })).id);
      }
      await store.close();
      if (kind === "bare") {
        const database = new DatabaseSync(path);
        database.exec(
          `CREATE TABLE bare_steps (task_id TEXT, id TEXT, position INTEGER, state TEXT,
             owner TEXT, PRIMARY KEY (task_id, id));
           INSERT INTO bare_steps SELECT task_id, id, position, 'ready', NULL FROM steps;`,
        );
        database.close();
      }
      const workers = await Promise.all(Array.from({ length: claimers }, async (_, index) => {
        const worker = new Worker(new URL("./_sqlite_claimer.ts", import.meta.url), {
          type: "module",
        });
        const setup: ClaimerSetup = { kind, path, task_ids: taskIds, agent_id: `w${index}` };
        await new Promise((resolve) => {
          worker.onmessage = resolve;
          worker.postMessage(setup);
        });
        return worker;
      }));
      rows[kind]!.push(
        await measure(claimers, async () => {
          const counts = await Promise.all(
            workers.map((worker) =>
              new Promise<number>((resolve) => {
                worker.onmessage = (event: MessageEvent<number>) => resolve(event.data);
                worker.postMessage("go");
              })
            ),
          );
          return counts.reduce((sum, count) => sum + count, 0);
        }),
      );
      for (const worker of workers) worker.terminate();
      await Deno.remove(folder, { recursive: true });
    }
  }
  return rows;
}

function table(title: string, rows: Record<string, number[]>): void {
  console.log(`\n${title} (${TASKS} tasks × ${STEPS_PER_TASK} steps per row; claims per second)`);
  console.log(`| claimers | ${CLAIMERS.join(" | ")} |`);
  console.log(`| --- | ${CLAIMERS.map(() => "---").join(" | ")} |`);
  const bare = rows.bare ?? [];
  for (const [name, values] of Object.entries(rows)) {
    const cells = values.map((value, index) =>
      `${value.toFixed(0)}${
        name === "bare" ? "" : ` (${(value / (bare[index] ?? 1)).toFixed(2)}× bare)`
      }`
    );
    console.log(`| ${name} | ${cells.join(" | ")} |`);
  }
}

console.log(`task_claims_compare ${new Date().toISOString()}, load ${Deno.loadavg().join(" ")}`);
const url = Deno.env.get("KAGENT_TEST_DATABASE_URL");
if (url === undefined || url === "") {
  console.log("PostgreSQL rows skipped: KAGENT_TEST_DATABASE_URL is unset");
} else {
  table(
    "PostgreSQL: PostgresTaskStore vs bare UPDATE … FOR UPDATE SKIP LOCKED",
    await postgresRows(url),
  );
}
table("SQLite: SqliteTaskStore vs bare BEGIN IMMEDIATE; UPDATE; COMMIT", await sqliteRows());
