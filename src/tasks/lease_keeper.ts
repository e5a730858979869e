/**
 * Keeps the leases of the steps an agent holds: after a claim it renews the lease every
 * {@linkcode DEFAULT_RENEW_MS} until the step is reported, so a step stays claimed while its
 * worker lives and becomes claimable again one lease after the worker dies. Also remembers each
 * claim's fencing token, which the report carries.
 *
 * @module
 */

import { DEFAULT_RENEW_MS, type Step, type TaskActor, TaskStoreError } from "./task_model.ts";
import type { TaskStore } from "./task_store.ts";

/** Options of {@linkcode LeaseKeeper}. */
export interface LeaseKeeperOptions {
  /** How often to renew each held lease, in ms. @default 20000 */
  renewMs?: number;
  /**
   * Called when a renewal is refused: the lease ran out and another worker claimed the step
   * (`conflict`), or the task was closed. The keeper stops renewing that step.
   * @default nothing
   */
  onLost?: (taskId: string, stepId: string, error: TaskStoreError) => void;
}

/**
 * The leases one agent holds on one store. Timers do not keep the process alive (they are
 * unref'd); a renewal that fails for the store itself (`store_failure`) is tried again at the
 * next tick.
 *
 * @example
 * ```ts
 * import { LeaseKeeper, SqliteTaskStore } from "./mod.ts";
 * const folder = await Deno.makeTempDir();
 * const store = new SqliteTaskStore(`${folder}/tasks.sqlite`);
 * const actor = { agent_id: "worker", run_id: "run-1" };
 * const task = await store.createTask(actor, { title: "T", steps: [{ id: "a", title: "A" }] });
 * const keeper = new LeaseKeeper(store, actor, { renewMs: 20_000 });
 * keeper.hold(task.id, await store.claimStep(actor, task.id));
 * console.assert(keeper.tokenOf(task.id, "a") === 1);
 * keeper.releaseAll();
 * await store.close();
 * await Deno.remove(folder, { recursive: true });
 * ```
 */
export class LeaseKeeper {
  readonly #store: TaskStore;
  readonly #actor: TaskActor;
  readonly #renewMs: number;
  readonly #onLost: LeaseKeeperOptions["onLost"];
  readonly #held = new Map<string, { token: number; timer: ReturnType<typeof setInterval> }>();

  constructor(store: TaskStore, actor: TaskActor, options: LeaseKeeperOptions = {}) {
    this.#store = store;
    this.#actor = actor;
    this.#renewMs = options.renewMs ?? DEFAULT_RENEW_MS;
    this.#onLost = options.onLost;
  }

  /** Starts renewing the lease of a step just claimed (replacing an older hold of it). */
  hold(taskId: string, step: Step): void {
    this.release(taskId, step.id);
    const key = keyOf(taskId, step.id);
    const token = step.fencing_token;
    const timer = setInterval(() => {
      this.#store.renewLease(this.#actor, taskId, step.id, token).catch((error) => {
        if (error instanceof TaskStoreError && error.code !== "store_failure") {
          if (this.#held.get(key)?.token === token) this.release(taskId, step.id);
          this.#onLost?.(taskId, step.id, error);
        }
      });
    }, this.#renewMs);
    Deno.unrefTimer(Number(timer));
    this.#held.set(key, { token, timer });
  }

  /** The fencing token of the held claim of a step, or undefined when none is held. */
  tokenOf(taskId: string, stepId: string): number | undefined {
    return this.#held.get(keyOf(taskId, stepId))?.token;
  }

  /** Stops renewing a step's lease (it was reported, or lost). */
  release(taskId: string, stepId: string): void {
    const key = keyOf(taskId, stepId);
    const held = this.#held.get(key);
    if (held === undefined) return;
    clearInterval(held.timer);
    this.#held.delete(key);
  }

  /** Stops every renewal (the agent's run ends). */
  releaseAll(): void {
    for (const held of this.#held.values()) clearInterval(held.timer);
    this.#held.clear();
  }
}

function keyOf(taskId: string, stepId: string): string {
  return JSON.stringify([taskId, stepId]);
}
