/**
 * The embedded task store: one SQLite file in the run folder (`node:sqlite`, built into Deno), no
 * server. Every change is one `BEGIN IMMEDIATE` transaction that reads, checks and writes, so a
 * claim is atomic across connections and processes: SQLite lets one writer in at a time, and the
 * second claimer reads the first one's commit.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { ensureSchema, type TaskRow } from "./_sqlite_schema.ts";
import { applyChanges } from "./_task_changes.ts";
import { claim, report } from "./_step_work.ts";
import { Transaction } from "./_transaction.ts";
import { checkActor, checkNewSteps, checkTextBytes, countStates } from "./task_graph.ts";
import {
  MAX_RESULT_BYTES,
  MAX_TASKS_PER_STORE,
  MAX_TEXT_BYTES,
  MAX_TITLE_BYTES,
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
 * store.close();
 * await Deno.remove(folder, { recursive: true });
 * ```
 */
export class SqliteTaskStore implements TaskStore {
  /** The store file. */
  readonly path: string;
  #database: DatabaseSync | null;
  readonly #now: () => Date;

  /**
   * Opens (creating when missing) the store file. The folder must exist.
   *
   * @param path The file, e.g. `runs/<run>/tasks.sqlite`.
   * @throws {TaskStoreError} `store_failure` when the file cannot be opened or created, is not a
   *   task store, or was written by a newer schema.
   */
  constructor(path: string, options: SqliteTaskStoreOptions = {}) {
    this.path = path;
    this.#now = options.now ?? (() => new Date());
    try {
      this.#database = new DatabaseSync(path, { timeout: options.busyTimeoutMs ?? 5000 });
    } catch (error) {
      throw this.#failure("open", error);
    }
    try {
      this.#database.exec("PRAGMA journal_mode = WAL");
      this.#database.exec("PRAGMA synchronous = NORMAL");
      this.#database.exec("PRAGMA foreign_keys = ON");
      this.#write("open", (transaction) => ensureSchema(transaction.database, path));
    } catch (error) {
      this.close();
      throw error instanceof TaskStoreError ? error : this.#failure("open", error);
    }
  }

  createTask(actor: TaskActor, task: NewTask): Promise<Task> {
    return this.#run(() =>
      this.#write("create a task", (transaction) => {
        checkActor(actor);
        checkTextBytes("task title", task.title, MAX_TITLE_BYTES);
        checkTextBytes("task description", task.description ?? "", MAX_TEXT_BYTES);
        checkNewSteps([], task.steps);
        const database = transaction.database;
        const { count, last } = database.prepare(
          "SELECT COUNT(*) AS count, COALESCE(MAX(number), 0) AS last FROM tasks",
        ).get() as { count: number; last: number };
        if (count >= MAX_TASKS_PER_STORE) {
          throw new TaskStoreError(
            "invalid_input",
            `Cannot create a task: the store "${this.path}" holds ${count} tasks, the most ` +
              `allowed`,
            { tasks: count, max_tasks: MAX_TASKS_PER_STORE },
          );
        }
        const id = `task-${last + 1}`;
        database.prepare(
          `INSERT INTO tasks (number, id, title, description, state, created_by,
             created_by_run_id, result, created_at, updated_at)
           VALUES (?, ?, ?, ?, 'open', ?, ?, NULL, ?, ?)`,
        ).run(
          last + 1,
          id,
          task.title,
          task.description ?? "",
          actor.agent_id,
          actor.run_id,
          transaction.time,
          transaction.time,
        );
        transaction.insertSteps(id, task.steps);
        return transaction.task(id);
      })
    );
  }

  getTask(taskId: string): Promise<Task> {
    return this.#run(() => this.#read("read a task", (transaction) => transaction.task(taskId)));
  }

  listTasks(filter: TaskFilter = {}): Promise<TaskSummary[]> {
    return this.#run(() =>
      this.#read("list tasks", (transaction) => {
        const database = transaction.database;
        const rows = database.prepare("SELECT * FROM tasks ORDER BY number").all() as unknown[];
        const states = database.prepare("SELECT task_id, state FROM steps").all() as unknown as {
          task_id: string;
          state: string;
        }[];
        return (rows as TaskRow[])
          .filter((row) =>
            (filter.states === undefined || filter.states.includes(row.state as Task["state"])) &&
            (filter.created_by === undefined || row.created_by === filter.created_by)
          )
          .map((row) => ({
            id: row.id,
            title: row.title,
            state: row.state as Task["state"],
            created_by: row.created_by,
            created_at: row.created_at,
            updated_at: row.updated_at,
            step_counts: countStates(
              states.filter((step) => step.task_id === row.id).map((step) => step.state),
            ),
          }));
      })
    );
  }

  updateTask(actor: TaskActor, taskId: string, changes: TaskChanges): Promise<Task> {
    return this.#run(() =>
      this.#write("update a task", (transaction) => {
        checkActor(actor);
        transaction.openTaskOf(taskId, actor, "change");
        applyChanges(transaction, taskId, changes);
        return transaction.task(taskId);
      })
    );
  }

  querySteps(taskId: string, filter: StepFilter = {}): Promise<Step[]> {
    return this.#run(() =>
      this.#read(
        "query steps",
        (transaction) =>
          transaction.task(taskId).steps.filter((step) =>
            (filter.states === undefined || filter.states.includes(step.state)) &&
            (filter.owner === undefined || step.owner === filter.owner)
          ),
      )
    );
  }

  claimStep(actor: TaskActor, taskId: string, stepId?: string): Promise<Step> {
    return this.#run(() =>
      this.#write("claim a step", (transaction) => claim(transaction, actor, taskId, stepId))
    );
  }

  updateStep(
    actor: TaskActor,
    taskId: string,
    stepId: string,
    stepReport: StepReport,
  ): Promise<StepUpdate> {
    return this.#run(() =>
      this.#write(
        "update a step",
        (transaction) => report(transaction, actor, taskId, stepId, stepReport),
      )
    );
  }

  closeTask(actor: TaskActor, taskId: string, state: TaskClosing, note: string): Promise<Task> {
    const verb = { completed: "complete", failed: "fail", cancelled: "cancel" }[state];
    return this.#run(() =>
      this.#write(`${verb} a task`, (transaction) => {
        checkActor(actor);
        transaction.openTaskOf(taskId, actor, verb);
        checkTextBytes(`note closing task "${taskId}"`, note, MAX_RESULT_BYTES);
        const steps = transaction.stepRows(taskId);
        const unfinished = steps.filter((step) => step.state !== "done");
        if (state === "completed" && unfinished.length > 0) {
          throw new TaskStoreError(
            "state_conflict",
            `Cannot complete task "${taskId}": ${unfinished.length} of its steps are not done ` +
              `(${unfinished.map((step) => `${step.id}: ${step.state}`).join(", ")}); fail or ` +
              "cancel it instead, or retry the failed steps",
            { task_id: taskId, unfinished: unfinished.map((step) => step.id) },
          );
        }
        const database = transaction.database;
        database.prepare(
          `UPDATE steps SET state = 'cancelled', updated_at = ?
           WHERE task_id = ? AND state IN ('pending', 'ready', 'claimed')`,
        ).run(transaction.time, taskId);
        database.prepare("UPDATE tasks SET state = ?, result = ?, updated_at = ? WHERE id = ?")
          .run(state, note, transaction.time, taskId);
        return transaction.task(taskId);
      })
    );
  }

  close(): void {
    const database = this.#database;
    this.#database = null;
    if (database?.isOpen) database.close();
  }

  /** Runs a synchronous store operation as a promise: a throw becomes the rejection. */
  #run<T>(operation: () => T): Promise<T> {
    try {
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** One write transaction: `BEGIN IMMEDIATE` takes the write lock before anything is read. */
  #write<T>(what: string, body: (transaction: Transaction) => T): T {
    return this.#transaction("BEGIN IMMEDIATE", what, body);
  }

  /** One read transaction: every read in `body` sees the same committed state. */
  #read<T>(what: string, body: (transaction: Transaction) => T): T {
    return this.#transaction("BEGIN", what, body);
  }

  #transaction<T>(begin: string, what: string, body: (transaction: Transaction) => T): T {
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
      const result = body(new Transaction(database, this.#now().toISOString()));
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
