/**
 * The task store's contract: what the task tools need, small enough that a shared store (a
 * server, another database) can replace the embedded SQLite one.
 *
 * @module
 */

import type {
  NewTask,
  Step,
  StepFilter,
  StepReport,
  Task,
  TaskActor,
  TaskChanges,
  TaskFilter,
  TaskSummary,
} from "./task_model.ts";

/** What a step report changed. */
export interface StepUpdate {
  /** The step after the report. */
  step: Step;
  /** Steps that became `ready` in the same transaction (their dependencies are now all done). */
  became_ready: string[];
  /** Every step of the task is `done`: its creator can complete it. */
  all_done: boolean;
}

/** The closed states a creator can give a task. */
export type TaskClosing = "completed" | "failed" | "cancelled";

/**
 * A store of tasks. Every method is atomic: it happens whole or not at all, and two callers (two
 * agents, two processes on one store) never both succeed where one must fail — above all, a ready
 * step is claimed by exactly one agent. Methods reject with a `TaskStoreError` whose `code` says
 * why (`invalid_input`, `not_found`, `state_conflict`, `not_owner`, `conflict`, `store_failure`).
 */
export interface TaskStore {
  /**
   * Creates an open task owned by `actor`. Steps without dependencies are `ready`, the others
   * `pending`. Rejects `invalid_input` for a cycle, an unknown or duplicate id, or a bound.
   */
  createTask(actor: TaskActor, task: NewTask): Promise<Task>;
  /** The task with its steps; rejects `not_found`. */
  getTask(taskId: string): Promise<Task>;
  /** Every task matching `filter`, oldest first. */
  listTasks(filter?: TaskFilter): Promise<TaskSummary[]>;
  /**
   * Changes an open task: only its creator (`not_owner`), only while open (`state_conflict`);
   * edits only steps not yet claimed, retries only failed or claimed steps.
   */
  updateTask(actor: TaskActor, taskId: string, changes: TaskChanges): Promise<Task>;
  /** The task's steps matching `filter`, in the order they were added; rejects `not_found`. */
  querySteps(taskId: string, filter?: StepFilter): Promise<Step[]>;
  /**
   * Claims a ready step of an open task for `actor`: the named one, or the first ready one when
   * `stepId` is absent. A `claimed` step whose lease ran out counts as ready (its owner stopped
   * renewing). The claim carries `lease_until` and the next `fencing_token`. Exactly one of two
   * concurrent claimers wins; the other gets `state_conflict` (`already claimed by "<agent>"`), as
   * does a claim of a step not ready.
   */
  claimStep(actor: TaskActor, taskId: string, stepId?: string): Promise<Step>;
  /**
   * Extends the lease of `actor`'s claim to the store's lease length from now; the worker calls
   * it every `DEFAULT_RENEW_MS` while it works. Rejects `conflict` when `fencingToken` is no
   * longer the step's (the lease ran out and another claimed it), `not_owner`, `state_conflict`.
   */
  renewLease(actor: TaskActor, taskId: string, stepId: string, fencingToken: number): Promise<Step>;
  /**
   * Reports a claimed step `done` or `failed`: only its owner (agent and run, else `not_owner`),
   * and with `report.fencing_token` only under that claim (`conflict` when the step was claimed
   * again since). When it is done,
   * every dependent whose dependencies are now all done becomes `ready` in the same transaction.
   */
  updateStep(
    actor: TaskActor,
    taskId: string,
    stepId: string,
    report: StepReport,
  ): Promise<StepUpdate>;
  /**
   * Closes an open task: only its creator. `completed` needs every step done (`state_conflict`
   * otherwise); `failed` and `cancelled` cancel the steps still `pending`, `ready` or `claimed`.
   *
   * @param note The summary (completed) or reason (failed, cancelled); may be `""`.
   */
  closeTask(actor: TaskActor, taskId: string, state: TaskClosing, note: string): Promise<Task>;
  /** Releases the store's resources; later calls reject `store_failure`. Idempotent. */
  close(): Promise<void>;
}
