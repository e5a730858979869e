/**
 * A Worker of `task_claims_compare.ts`: one SQLite claimer with its own connection, claiming the
 * next ready step of each task until none is left, through `SqliteTaskStore` or as the bare
 * `BEGIN IMMEDIATE; UPDATE … ; COMMIT` it comes down to. Posts how many it claimed.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { DatabaseSync } from "node:sqlite";
import { SqliteTaskStore, TaskStoreError } from "../src/tasks/mod.ts";

/** The first message. */
export interface ClaimerSetup {
  kind: "store" | "bare";
  path: string;
  task_ids: string[];
  agent_id: string;
}

let setup: ClaimerSetup | null = null;

self.onmessage = (event: MessageEvent<ClaimerSetup | "go">) => {
  if (event.data !== "go") {
    setup = event.data;
    self.postMessage("ready");
    return;
  }
  if (setup === null) throw new Error("started before its setup");
  const claimed = setup.kind === "store" ? claimWithStore(setup) : claimBare(setup);
  claimed.then((count) => self.postMessage(count));
};

async function claimWithStore(setup: ClaimerSetup): Promise<number> {
  const store = new SqliteTaskStore(setup.path, { busyTimeoutMs: 60_000 });
  const actor = { agent_id: setup.agent_id, run_id: `run-${setup.agent_id}` };
  let count = 0;
  for (const taskId of setup.task_ids) {
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
  await store.close();
  return count;
}

function claimBare(setup: ClaimerSetup): Promise<number> {
  const database = new DatabaseSync(setup.path, { timeout: 60_000 });
  const claim = database.prepare(
    `UPDATE bare_steps SET state = 'claimed', owner = ?
     WHERE rowid = (SELECT rowid FROM bare_steps WHERE task_id = ? AND state = 'ready'
                    ORDER BY position LIMIT 1)`,
  );
  let count = 0;
  for (const taskId of setup.task_ids) {
    for (;;) {
      database.exec("BEGIN IMMEDIATE");
      const changed = claim.run(setup.agent_id, taskId).changes;
      database.exec("COMMIT");
      if (changed === 0) break;
      count++;
    }
  }
  database.close();
  return Promise.resolve(count);
}
