/**
 * The shared contract test of task stores (issue 28): every store registers these cases, so the
 * SQLite file and the PostgreSQL store keep the same rules, leases and fencing.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  MAX_RESULT_BYTES,
  MAX_TITLE_BYTES,
  type NewTask,
  type Task,
  TaskStoreError,
} from "./task_model.ts";
import type { TaskStore } from "./task_store.ts";
import { leaseCases } from "./_lease_contract.ts";

/** A store under test, with what it needs cleaned up afterwards. */
export interface TaskStoreFixture extends AsyncDisposable {
  store: TaskStore;
  /** Another store object on the same data (another connection, as another process has). */
  another(): Promise<TaskStore>;
}

/** What a fixture's store must use: the test's clock and lease. */
export interface TaskStoreFixtureOptions {
  /** The clock of every change and lease. */
  now: () => Date;
  /** Lease length, in ms. */
  leaseMs: number;
}

/** Options of {@linkcode testTaskStoreContract}. */
export interface TaskStoreContractOptions {
  /** Why the cases cannot run here (printed), or false. @default false */
  ignore?: string | false;
}

export const MAIN = { agent_id: "main", run_id: "run-main" };
export const WORKER_1 = { agent_id: "worker-1", run_id: "run-w1", machine: "host-a" };
export const WORKER_2 = { agent_id: "worker-2", run_id: "run-w2", machine: "host-b" };
export const LEASE_MS = 60_000;
export const START = Date.parse("2026-11-23T10:00:00.000Z");

/** build → test → ship, with docs beside them (no dependency). */
export const SHIP: NewTask = {
  title: "Ship the release",
  description: "Build, test, ship",
  steps: [
    { id: "build", title: "Build", instructions: "deno task compile" },
    { id: "test", title: "Test", depends_on: ["build"] },
    { id: "docs", title: "Docs" },
    { id: "ship", title: "Ship", depends_on: ["test", "docs"] },
  ],
};

/** The rejection of `promise`, asserted to be a TaskStoreError with `code`. */
export async function rejection(promise: Promise<unknown>, code: string): Promise<TaskStoreError> {
  const error = await promise.then(() => assert.fail(`expected ${code}`), (error) => error);
  assert.ok(error instanceof TaskStoreError, String(error));
  assert.equal(error.code, code, error.message);
  return error;
}

const statesOf = (task: Task) =>
  Object.fromEntries(task.steps.map((step) => [step.id, step.state]));

/**
 * Registers the contract cases with `Deno.test`, each on a fresh, empty store from `open`.
 *
 * @param label Prefix of the test names, e.g. `SqliteTaskStore`.
 * @param open Makes a fresh, empty store with the given clock and lease.
 */
export function testTaskStoreContract(
  label: string,
  open: (options: TaskStoreFixtureOptions) => Promise<TaskStoreFixture>,
  contractOptions: TaskStoreContractOptions = {},
): void {
  const ignore = contractOptions.ignore ?? false;
  if (ignore !== false) console.log(`${label} contract cases are ignored: ${ignore}`);
  const test = (name: string, body: () => Promise<void>) =>
    Deno.test({ name, ignore: ignore !== false, fn: body });
  /** The test's clock: starts at START, moved by `advance`. */
  let offset = 0;
  const advance = (ms: number) => {
    offset += ms;
  };
  const withStore = async (
    body: (store: TaskStore, fixture: TaskStoreFixture) => Promise<void>,
  ) => {
    offset = 0;
    await using fixture = await open({ now: () => new Date(START + offset), leaseMs: LEASE_MS });
    await body(fixture.store, fixture);
  };

  test(`${label} createTask makes steps without dependencies ready and the others pending`, async () => {
    await withStore(async (store) => {
      const task = await store.createTask(MAIN, SHIP);
      assert.equal(task.id, "task-1");
      assert.equal(task.state, "open");
      assert.equal(task.created_by, "main");
      assert.equal(task.created_by_run_id, "run-main");
      assert.equal(task.created_at, "2026-11-23T10:00:00.000Z");
      assert.deepEqual(statesOf(task), {
        build: "ready",
        test: "pending",
        docs: "ready",
        ship: "pending",
      });
      assert.deepEqual(await store.getTask("task-1"), task);
      assert.equal((await store.createTask(MAIN, SHIP)).id, "task-2");
    });
  });

  test(`${label} a refused task (a cycle) leaves nothing in the store`, async () => {
    await withStore(async (store) => {
      const error = await rejection(
        store.createTask(MAIN, {
          title: "Loop",
          steps: [{ id: "a", title: "A", depends_on: ["b"] }, {
            id: "b",
            title: "B",
            depends_on: [
              "a",
            ],
          }],
        }),
        "invalid_input",
      );
      assert.deepEqual(error.details.cycle, ["a", "b", "a"]);
      assert.deepEqual(await store.listTasks(), []);
      await rejection(store.getTask("task-1"), "not_found");
    });
  });

  test(`${label} a done step makes ready exactly the dependents whose dependencies are all done`, async () => {
    await withStore(async (store) => {
      const { id } = await store.createTask(MAIN, SHIP);
      await store.claimStep(WORKER_1, id, "build");
      const built = await store.updateStep(WORKER_1, id, "build", { state: "done", result: "ok" });
      assert.deepEqual(built.became_ready, ["test"]);
      assert.equal(built.all_done, false);
      assert.equal(built.step.result, "ok");
      await store.claimStep(WORKER_2, id, "test");
      const tested = await store.updateStep(WORKER_2, id, "test", { state: "done", result: "ok" });
      // ship still waits on docs.
      assert.deepEqual(tested.became_ready, []);
      assert.equal((await store.querySteps(id, { states: ["pending"] }))[0]?.id, "ship");
      await store.claimStep(WORKER_1, id, "docs");
      const documented = await store.updateStep(WORKER_1, id, "docs", {
        state: "done",
        result: "",
      });
      assert.deepEqual(documented.became_ready, ["ship"]);
      // A failed step makes nothing ready.
      await store.claimStep(WORKER_1, id, "ship");
      const failed = await store.updateStep(WORKER_1, id, "ship", {
        state: "failed",
        result: "no",
      });
      assert.deepEqual(failed.became_ready, []);
      assert.deepEqual(
        (await store.querySteps(id, { owner: "worker-1" })).map((step) => step.id),
        ["build", "docs", "ship"],
      );
    });
  });

  test(`${label} a claimed step cannot be claimed again: the error names its owner`, async () => {
    await withStore(async (store) => {
      const { id } = await store.createTask(MAIN, SHIP);
      const claimed = await store.claimStep(WORKER_1, id, "build");
      assert.equal(claimed.state, "claimed");
      assert.equal(claimed.owner, "worker-1");
      assert.equal(claimed.owner_run_id, "run-w1");
      const error = await rejection(store.claimStep(WORKER_2, id, "build"), "state_conflict");
      assert.match(
        error.message,
        /step "build" of task "task-1": it is already claimed by "worker-1" until /,
      );
      assert.equal(error.details.owner, "worker-1");
      const pending = await rejection(store.claimStep(WORKER_2, id, "test"), "state_conflict");
      assert.match(pending.message, /not ready: it waits on "build" \(claimed\)/);
      await rejection(store.claimStep(WORKER_2, id, "nope"), "not_found");
      await rejection(store.claimStep(WORKER_2, "task-9", "build"), "not_found");
    });
  });

  test(`${label} a claim without a step id takes the first ready step, and fails when none is ready`, async () => {
    await withStore(async (store) => {
      const { id } = await store.createTask(MAIN, SHIP);
      assert.equal((await store.claimStep(WORKER_1, id)).id, "build");
      assert.equal((await store.claimStep(WORKER_2, id)).id, "docs");
      const error = await rejection(store.claimStep(WORKER_2, id), "state_conflict");
      assert.match(error.message, /no step is ready \(2 pending, 2 claimed\)/);
    });
  });

  test(`${label} concurrent claims on two store objects of the same data: each step is claimed once`, async () => {
    await withStore(async (first, fixture) => {
      const second = await fixture.another();
      try {
        const steps = Array.from({ length: 20 }, (_, index) => ({ id: `s${index}`, title: "S" }));
        const { id } = await first.createTask(MAIN, { title: "Many", steps });
        // Every agent tries every step, the two stores interleaved, all promises at once.
        const agents = ["a", "b", "c", "d"].map((name, index) => ({
          actor: { agent_id: name, run_id: `run-${name}` },
          store: index % 2 === 0 ? first : second,
        }));
        const attempts = await Promise.allSettled(
          steps.flatMap((step) =>
            agents.map(({ actor, store }) => store.claimStep(actor, id, step.id))
          ),
        );
        const won = attempts.filter((attempt) => attempt.status === "fulfilled");
        assert.equal(won.length, steps.length);
        for (const attempt of attempts) {
          if (attempt.status === "rejected") {
            assert.equal((attempt.reason as TaskStoreError).code, "state_conflict");
          }
        }
        const task = await second.getTask(id);
        assert.ok(task.steps.every((step) => step.state === "claimed" && step.owner !== null));
      } finally {
        await second.close();
      }
    });
  });

  test(`${label} only the owner reports its claimed step; another agent's report changes nothing`, async () => {
    await withStore(async (store) => {
      const { id } = await store.createTask(MAIN, SHIP);
      await store.claimStep(WORKER_1, id, "build");
      const error = await rejection(
        store.updateStep(WORKER_2, id, "build", { state: "done", result: "mine now" }),
        "not_owner",
      );
      assert.match(error.message, /claimed by "worker-1" \(run "run-w1"\), not by "worker-2"/);
      // The creator is not the owner either.
      await rejection(
        store.updateStep(MAIN, id, "build", { state: "failed", result: "x" }),
        "not_owner",
      );
      const step = (await store.getTask(id)).steps[0];
      assert.equal(step?.state, "claimed");
      assert.equal(step?.result, null);
      // A step nobody claimed cannot be reported.
      const ready = await rejection(
        store.updateStep(WORKER_1, id, "docs", { state: "done", result: "" }),
        "state_conflict",
      );
      assert.match(ready.message, /it is ready; claim it first/);
      // Near miss: the owner's report goes through.
      await store.updateStep(WORKER_1, id, "build", { state: "done", result: "built" });
      assert.equal((await store.getTask(id)).steps[0]?.state, "done");
    });
  });

  test(`${label} cancel ends the unfinished steps, keeps the done ones, and only the creator may`, async () => {
    await withStore(async (store) => {
      const { id } = await store.createTask(MAIN, SHIP);
      await store.claimStep(WORKER_1, id, "build");
      await store.updateStep(WORKER_1, id, "build", { state: "done", result: "ok" });
      await store.claimStep(WORKER_1, id, "test");
      await rejection(store.closeTask(WORKER_1, id, "cancelled", "mine"), "not_owner");
      const cancelled = await store.closeTask(MAIN, id, "cancelled", "plans changed");
      assert.equal(cancelled.state, "cancelled");
      assert.equal(cancelled.result, "plans changed");
      assert.deepEqual(statesOf(cancelled), {
        build: "done",
        test: "cancelled",
        docs: "cancelled",
        ship: "cancelled",
      });
      // The worker's late report and new claims find the task closed.
      const late = await rejection(
        store.updateStep(WORKER_1, id, "test", { state: "done", result: "" }),
        "state_conflict",
      );
      assert.match(late.message, /the task is cancelled/);
      await rejection(store.claimStep(WORKER_2, id), "state_conflict");
      await rejection(store.closeTask(MAIN, id, "failed", ""), "state_conflict");
      await rejection(store.updateTask(MAIN, id, { title: "Again" }), "state_conflict");
    });
  });

  test(`${label} complete needs every step done; fail cancels the rest`, async () => {
    await withStore(async (store) => {
      const one = await store.createTask(MAIN, {
        title: "One",
        steps: [{ id: "only", title: "O" }],
      });
      const early = await rejection(
        store.closeTask(MAIN, one.id, "completed", ""),
        "state_conflict",
      );
      assert.match(early.message, /1 of its steps are not done \(only: ready\)/);
      await store.claimStep(WORKER_1, one.id);
      await store.updateStep(WORKER_1, one.id, "only", { state: "done", result: "" });
      assert.equal((await store.closeTask(MAIN, one.id, "completed", "done")).state, "completed");
      const two = await store.createTask(MAIN, SHIP);
      const failed = await store.closeTask(MAIN, two.id, "failed", "no budget");
      assert.equal(failed.state, "failed");
      assert.ok(failed.steps.every((step) => step.state === "cancelled"));
      assert.deepEqual(
        (await store.listTasks({ states: ["open"] })).map((task) => task.id),
        [],
      );
      const listed = await store.listTasks();
      assert.deepEqual(listed.map((task) => [task.id, task.state]), [
        ["task-1", "completed"],
        ["task-2", "failed"],
      ]);
      assert.deepEqual(listed[1]?.step_counts, { cancelled: 4 });
    });
  });

  test(`${label} updateTask edits, adds and retries steps, and rolls everything back on a refusal`, async () => {
    await withStore(async (store) => {
      const { id } = await store.createTask(MAIN, SHIP);
      await store.claimStep(WORKER_1, id, "build");
      await store.updateStep(WORKER_1, id, "build", {
        state: "failed",
        result: "compiler crashed",
      });
      // A cycle among the added steps refuses the whole call: the title stays.
      await rejection(
        store.updateTask(MAIN, id, {
          title: "Renamed",
          add_steps: [{ id: "x", title: "X", depends_on: ["y"] }, {
            id: "y",
            title: "Y",
            depends_on: [
              "x",
            ],
          }],
        }),
        "invalid_input",
      );
      assert.equal((await store.getTask(id)).title, "Ship the release");
      await rejection(store.updateTask(WORKER_1, id, { title: "Mine" }), "not_owner");
      await rejection(store.updateTask(MAIN, id, {}), "invalid_input");
      const updated = await store.updateTask(MAIN, id, {
        title: "Renamed",
        edit_steps: [{ id: "docs", instructions: "README only" }],
        add_steps: [{ id: "announce", title: "Announce", depends_on: ["ship"] }],
        retry_steps: ["build"],
      });
      assert.equal(updated.title, "Renamed");
      const build = updated.steps.find((step) => step.id === "build");
      assert.deepEqual([build?.state, build?.owner, build?.result], ["ready", null, null]);
      assert.equal(updated.steps.find((step) => step.id === "docs")?.instructions, "README only");
      assert.equal(updated.steps.at(-1)?.state, "pending");
      // A claimed step cannot be edited; a done one cannot be retried.
      await store.claimStep(WORKER_2, id, "build");
      await rejection(
        store.updateTask(MAIN, id, { edit_steps: [{ id: "build", title: "B" }] }),
        "state_conflict",
      );
      // Retrying a claimed step releases it: its owner can no longer report it.
      await store.updateTask(MAIN, id, { retry_steps: ["build"] });
      await rejection(
        store.updateStep(WORKER_2, id, "build", { state: "done", result: "" }),
        "state_conflict",
      );
    });
  });

  test(`${label} the store holds its bounds in UTF-8 bytes (near miss: exactly at the bound)`, async () => {
    await withStore(async (store) => {
      const euro = "€"; // 3 bytes
      const title = euro.repeat(MAX_TITLE_BYTES / 4) + "x".repeat(MAX_TITLE_BYTES / 4);
      assert.equal(new TextEncoder().encode(title).length, MAX_TITLE_BYTES);
      const { id } = await store.createTask(MAIN, { title, steps: [{ id: "a", title: "A" }] });
      const long = await rejection(
        store.createTask(MAIN, { title: title + "x", steps: [{ id: "a", title: "A" }] }),
        "invalid_input",
      );
      assert.equal(long.details.max_bytes, MAX_TITLE_BYTES);
      await store.claimStep(WORKER_1, id, "a");
      await rejection(
        store.updateStep(WORKER_1, id, "a", {
          state: "done",
          result: "r".repeat(MAX_RESULT_BYTES + 1),
        }),
        "invalid_input",
      );
      await store.updateStep(WORKER_1, id, "a", {
        state: "done",
        result: "r".repeat(MAX_RESULT_BYTES),
      });
      await rejection(store.claimStep({ agent_id: "", run_id: "r" }, id), "invalid_input");
    });
  });

  leaseCases(label, test, withStore, advance);
}
