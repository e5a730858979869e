/**
 * The lease and fencing cases of the task store contract (issue 28), registered by
 * `testTaskStoreContract` on every store.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  LEASE_MS,
  MAIN,
  rejection,
  SHIP,
  START,
  type TaskStoreFixture,
  WORKER_1,
  WORKER_2,
} from "./_task_store_contract.ts";
import type { TaskStore } from "./task_store.ts";

/** Registers the lease cases through the contract's `test`, store and clock. */
export function leaseCases(
  label: string,
  test: (name: string, body: () => Promise<void>) => void,
  withStore: (
    body: (store: TaskStore, fixture: TaskStoreFixture) => Promise<void>,
  ) => Promise<void>,
  advance: (ms: number) => void,
): void {
  test(`${label} a claim carries a lease and a fencing token; the owner renews it`, async () => {
    await withStore(async (store) => {
      const { id } = await store.createTask(MAIN, SHIP);
      const claimed = await store.claimStep(WORKER_1, id, "build");
      assert.equal(claimed.fencing_token, 1);
      assert.equal(claimed.owner_machine, "host-a");
      assert.equal(claimed.lease_until, new Date(START + LEASE_MS).toISOString());
      advance(LEASE_MS / 2);
      const renewed = await store.renewLease(WORKER_1, id, "build", 1);
      assert.equal(renewed.lease_until, new Date(START + LEASE_MS * 1.5).toISOString());
      // Past the first lease but within the renewed one: still held.
      advance(LEASE_MS * 0.75);
      await rejection(store.claimStep(WORKER_2, id, "build"), "state_conflict");
      await rejection(store.renewLease(WORKER_2, id, "build", 1), "not_owner");
      const done = await store.updateStep(WORKER_1, id, "build", {
        state: "done",
        result: "ok",
        fencing_token: 1,
      });
      assert.equal(done.step.lease_until, null);
      assert.deepEqual(done.became_ready, ["test"]);
      await rejection(store.renewLease(WORKER_1, id, "build", 1), "state_conflict");
    });
  });

  test(`${label} an expired lease is claimed again; the stale owner's report is refused conflict`, async () => {
    await withStore(async (store) => {
      const { id } = await store.createTask(MAIN, SHIP);
      await store.claimStep(WORKER_1, id, "build");
      // Near miss: one millisecond before the lease ends, the step is still held.
      advance(LEASE_MS - 1);
      await rejection(store.claimStep(WORKER_2, id, "build"), "state_conflict");
      advance(1);
      // WORKER_1 died: a claim without a step id finds the expired step first.
      const again = await store.claimStep(WORKER_2, id);
      assert.deepEqual([again.id, again.owner, again.fencing_token], ["build", "worker-2", 2]);
      assert.equal(again.owner_machine, "host-b");
      const late = await rejection(
        store.updateStep(WORKER_1, id, "build", {
          state: "done",
          result: "late",
          fencing_token: 1,
        }),
        "conflict",
      );
      assert.match(late.message, /fencing token 1\) was superseded by claim 2 of "worker-2"/);
      assert.equal(late.details.current_fencing_token, 2);
      await rejection(store.renewLease(WORKER_1, id, "build", 1), "conflict");
      // Without its token the stale owner is simply not the owner any more.
      await rejection(
        store.updateStep(WORKER_1, id, "build", { state: "done", result: "late" }),
        "not_owner",
      );
      const step = (await store.getTask(id)).steps[0];
      assert.deepEqual([step?.state, step?.owner, step?.result], ["claimed", "worker-2", null]);
      await store.updateStep(WORKER_2, id, "build", {
        state: "done",
        result: "built",
        fencing_token: 2,
      });
      assert.equal((await store.getTask(id)).steps[0]?.result, "built");
    });
  });

  test(`${label} a retried step's next claim has a higher token; the old claim's report is refused`, async () => {
    await withStore(async (store) => {
      const { id } = await store.createTask(MAIN, SHIP);
      await store.claimStep(WORKER_1, id, "docs");
      await store.updateTask(MAIN, id, { retry_steps: ["docs"] });
      const again = await store.claimStep(WORKER_1, id, "docs");
      assert.equal(again.fencing_token, 2);
      await rejection(
        store.updateStep(WORKER_1, id, "docs", { state: "done", result: "", fencing_token: 1 }),
        "conflict",
      );
      await store.updateStep(WORKER_1, id, "docs", { state: "done", result: "", fencing_token: 2 });
    });
  });

  test(`${label} a task's updated_at is its latest change, a claim's included`, async () => {
    await withStore(async (store) => {
      const { id, updated_at } = await store.createTask(MAIN, SHIP);
      advance(5);
      await store.claimStep(WORKER_1, id, "build");
      const task = await store.getTask(id);
      assert.equal(updated_at, new Date(START).toISOString());
      assert.equal(task.updated_at, new Date(START + 5).toISOString());
      assert.equal((await store.listTasks())[0]?.updated_at, task.updated_at);
    });
  });

  test(`${label} a closed store refuses with store_failure; close is idempotent`, async () => {
    await withStore(async (store) => {
      await store.createTask(MAIN, SHIP);
      await store.close();
      await store.close();
      await rejection(store.getTask("task-1"), "store_failure");
    });
  });
}
