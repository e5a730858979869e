/**
 * The embedded task store: one SQLite file in the run folder (`node:sqlite`, built into Deno), no
 * server. Every change is one `BEGIN IMMEDIATE` transaction that reads the task's rows, applies the
 * task rules (`_task_rules.ts`, `_step_rules.ts`, shared with every store) and writes what they
 * changed, so a claim is atomic across connections and processes: SQLite lets one writer in at a
 * time, and the second claimer reads the first one's commit.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import {
  countTasks,
  ensureSchema,
  insertTask,
  readTask,
  readTasks,
  writeChange,
} from "./_sqlite_schema.ts";
import { claimRule, renewRule, reportRule, type RuleChange } from "./_step_rules.ts";
import {
  changeRule,
  closeRule,
  createRule,
  filterSteps,
  summaryOf,
  taskNotFound,
} from "./_task_rules.ts";
import {
  DEFAULT_LEASE_MS,
  type NewTask,
  type Step,
  type StepFilter,
  type StepReport,
  type Task,
  type TaskActor,
  type TaskChanges,
  type TaskFilter,
  TaskStoreError,
  type TaskSummary,
} from "./task_model.ts";
import type { StepUpdate, TaskClosing, TaskStore } from "./task_store.ts";

/** The store file's name in a run folder: `runs/<run>/tasks.sqlite`. */
export const TASK_STORE_FILE_NAME = "tasks.sqlite";

/** Options of {@linkcode SqliteTaskStore}. */
export interface SqliteTaskStoreOptions {
  /** The clock of `created_at` / `updated_at`. @default () => new Date() */
  now?: () => Date;
  /**
   * How long one transaction waits for another connection's (another process's) write lock
   * before it fails `store_failure`, in ms. The wait blocks the calling thread; transactions hold
   * the lock for well under a millisecond, so it is only reached when something is wrong.
   * @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * How long a claim or renewal holds its step, in ms; see {@linkcode DEFAULT_LEASE_MS}.
   * @default 60000
   */
  leaseMs?: number;
}

/**
 * A {@linkcode TaskStore} in one SQLite file, e.g. `runs/<run>/tasks.sqlite`, in WAL mode (readers
 * never wait for the writer; the `-wal` and `-shm` files sit beside it).
 *
 * Sharing: the parent run and its child runs in one process share one store object (or open more
 * on the same file: each transaction runs synchronously, start to commit, so connections of one
 * thread never wait on each other). Other processes may open the same file; SQLite's file locks
 * serialise their transactions, waiting at most `busyTimeoutMs`.
 *
 * Bounds (`invalid_input` beyond them): 100 steps a task, 1,000 tasks a store, titles 200 bytes,
 * descriptions and instructions 16 KiB, results and closing notes 32 KiB, agent and run ids 200
 * bytes (all UTF-8).
 *
 * @example
 * ```ts
 * import { SqliteTaskStore } from "./sqlite_task_store.ts";
 * const folder = await Deno.makeTempDir();
 * const store = new SqliteTaskStore(`${folder}/tasks.sqlite`);
 * const main = { agent_id: "main", run_id: "run-1" };
 * const task = await store.createTask(main, {
 *   title: "Ship",
 *   steps: [{ id: "build", title: "Build" }, { id: "test", title: "Test", depends_on: ["build"] }],
 * });
 * const worker = { agent_id: "worker-1", run_id: "run-2" };
 * await store.claimStep(worker, task.id, "build");
 * const update = await store.updateStep(worker, task.id, "build", { state: "done", result: "ok" });
 * console.assert(update.became_ready[0] === "test");
 * await store.close();
 * await Deno.remove(folder, { recursive: true });
 * ```
 */
export class SqliteTaskStore implements TaskStore {
  /** The store file. */
  readonly path: string;
  #database: DatabaseSync | null;
  readonly #now: () => Date;
  readonly #leaseMs: number;

  /**
   * Opens (creating when missing, migrating when older) the store file. The folder must exist.
   *
   * @param path The file, e.g. `runs/<run>/tasks.sqlite`.
   * @throws {TaskStoreError} `store_failure` when the file cannot be opened or created, is not a
   *   task store, or was written by a newer schema.
   */
  constructor(path: string, options: SqliteTaskStoreOptions = {}) {
    this.path = path;
    this.#now = options.now ?? (() => new Date());
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    try {
      this.#database = new DatabaseSync(path, { timeout: options.busyTimeoutMs ?? 5000 });
    } catch (error) {
      throw this.#failure("open", error);
    }
    try {
      this.#database.exec("PRAGMA journal_mode = WAL");
      this.#database.exec("PRAGMA synchronous = NORMAL");
      this.#database.exec("PRAGMA foreign_keys = ON");
      this.#transaction("BEGIN IMMEDIATE", "open", (database) => ensureSchema(database, path));
    } catch (error) {
      this.#closeNow();
      throw error instanceof TaskStoreError ? error : this.#failure("open", error);
    }
  }

  createTask(actor: TaskActor, task: NewTask): Promise<Task> {
    return this.#run("BEGIN IMMEDIATE", "create a task", (database, time) => {
      const count = countTasks(database);
      const created = createRule(actor, task, { ...count, name: `"${this.path}"` }, time);
      insertTask(database, created, count.last + 1);
      return created;
    });
  }

  getTask(taskId: string): Promise<Task> {
    return this.#run("BEGIN", "read a task", (database) => this.#task(database, taskId));
  }

  listTasks(filter: TaskFilter = {}): Promise<TaskSummary[]> {
    return this.#run(
      "BEGIN",
      "list tasks",
      (database) => readTasks(database).flatMap((task) => summaryOf(task, filter) ?? []),
    );
  }

  updateTask(actor: TaskActor, taskId: string, changes: TaskChanges): Promise<Task> {
    return this.#apply(
      "update a task",
      taskId,
      (task, time) => changeRule(task, actor, changes, time),
    );
  }

  querySteps(taskId: string, filter: StepFilter = {}): Promise<Step[]> {
    return this.#run(
      "BEGIN",
      "query steps",
      (database) => filterSteps(this.#task(database, taskId), filter),
    );
  }

  claimStep(actor: TaskActor, taskId: string, stepId?: string): Promise<Step> {
    return this.#apply(
      "claim a step",
      taskId,
      (task, time) => claimRule(task, actor, stepId, { time, lease_ms: this.#leaseMs }),
    );
  }

  renewLease(
    actor: TaskActor,
    taskId: string,
    stepId: string,
    fencingToken: number,
  ): Promise<Step> {
    return this.#apply(
      "renew a lease",
      taskId,
      (task, time) =>
        renewRule(task, actor, stepId, fencingToken, { time, lease_ms: this.#leaseMs }),
    );
  }

  updateStep(
    actor: TaskActor,
    taskId: string,
    stepId: string,
    stepReport: StepReport,
  ): Promise<StepUpdate> {
    return this.#apply(
      "update a step",
      taskId,
      (task, time) => reportRule(task, actor, stepId, stepReport, time),
    );
  }

  closeTask(actor: TaskActor, taskId: string, state: TaskClosing, note: string): Promise<Task> {
    const verb = { completed: "complete", failed: "fail", cancelled: "cancel" }[state];
    return this.#apply(
      `${verb} a task`,
      taskId,
      (task, time) => closeRule(task, actor, state, note, time),
    );
  }

  close(): Promise<void> {
    this.#closeNow();
    return Promise.resolve();
  }

  #closeNow(): void {
    const database = this.#database;
    this.#database = null;
    if (database?.isOpen) database.close();
  }

  #task(database: DatabaseSync, taskId: string): Task {
    const task = readTask(database, taskId);
    if (task === null) throw taskNotFound(taskId);
    return task;
  }

  /** One write transaction of a rule: read the task, apply the rule, write what it changed. */
  #apply<T>(
    what: string,
    taskId: string,
    rule: (task: Task, time: string) => RuleChange<T>,
  ): Promise<T> {
    return this.#run("BEGIN IMMEDIATE", what, (database, time) => {
      const change = rule(this.#task(database, taskId), time);
      writeChange(database, change);
      return change.result;
    });
  }

  /** A synchronous transaction as a promise: a throw becomes the rejection. */
  #run<T>(
    begin: string,
    what: string,
    body: (database: DatabaseSync, time: string) => T,
  ): Promise<T> {
    try {
      return Promise.resolve(this.#transaction(begin, what, body));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * One transaction: `BEGIN IMMEDIATE` takes the write lock before anything is read; `BEGIN` reads
   * one committed state.
   */
  #transaction<T>(
    begin: string,
    what: string,
    body: (database: DatabaseSync, time: string) => T,
  ): T {
    const database = this.#database;
    if (database === null) {
      throw new TaskStoreError(
        "store_failure",
        `Cannot ${what} in the task store "${this.path}": the store is closed`,
        { path: this.path },
      );
    }
    try {
      database.exec(begin);
    } catch (error) {
      throw this.#failure(what, error);
    }
    try {
      const result = body(database, this.#now().toISOString());
      database.exec("COMMIT");
      return result;
    } catch (error) {
      if (database.isTransaction) database.exec("ROLLBACK");
      throw error instanceof TaskStoreError ? error : this.#failure(what, error);
    }
  }

  #failure(what: string, error: unknown): TaskStoreError {
    const reason = error instanceof Error ? error.message : String(error);
    return new TaskStoreError(
      "store_failure",
      `Cannot ${what} in the task store "${this.path}": ${reason}`,
      { path: this.path },
      { cause: error },
    );
  }
}
