/**
 * A Worker for the claim race test: opens its own connection to the store file, waits for "go",
 * then tries to claim every step of the task (starting at its own offset) and posts the ids it won
 * and the codes of its refusals.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { SqliteTaskStore } from "./sqlite_task_store.ts";
import { TaskStoreError } from "./task_model.ts";

/** The first message: where to race and as whom. */
export interface RaceSetup {
  path: string;
  task_id: string;
  step_ids: string[];
  agent_id: string;
  offset: number;
}

let setup: RaceSetup | null = null;
let store: SqliteTaskStore | null = null;

self.onmessage = async (event: MessageEvent<RaceSetup | "go">) => {
  if (event.data !== "go") {
    setup = event.data;
    store = new SqliteTaskStore(setup.path, { busyTimeoutMs: 30_000 });
    self.postMessage("ready");
    return;
  }
  if (setup === null || store === null) throw new Error("race started before its setup");
  const won: string[] = [];
  const refused: string[] = [];
  const actor = { agent_id: setup.agent_id, run_id: `run-${setup.agent_id}` };
  const count = setup.step_ids.length;
  for (let index = 0; index < count; index++) {
    const stepId = setup.step_ids[(index + setup.offset) % count] as string;
    try {
      won.push((await store.claimStep(actor, setup.task_id, stepId)).id);
    } catch (error) {
      refused.push(error instanceof TaskStoreError ? error.code : String(error));
    }
  }
  await store.close();
  self.postMessage({ won, refused });
};
