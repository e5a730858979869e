/**
 * The shared task store of many machines (issue 28): the tasks live in a PostgreSQL schema, and
 * every CI job that opens the same database and schema works on the same task graph. The main
 * thread holds no connection: a Worker started with net permission for the database's
 * `host:port` alone runs the driver (`postgres` from npm) and answers each operation as one
 * transaction (see `_postgres_rows.ts`).
 *
 * @module
 */

import type { PostgresReplyMessage, PostgresRequestMessage } from "./_postgres_messages.ts";
import type { TaskStoreCall } from "./_postgres_messages.ts";
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

/** Each operation as the messages name it. */
const OPERATION_VERBS: Readonly<Record<TaskStoreCall["operation"], string>> = {
  createTask: "create a task",
  getTask: "read a task",
  listTasks: "list tasks",
  updateTask: "update a task",
  querySteps: "query steps",
  claimStep: "claim a step",
  renewLease: "renew a lease",
  updateStep: "update a step",
  closeTask: "close a task",
};

/** What a schema name must look like: a lower-case SQL identifier, e.g. `kagent`. */
export const POSTGRES_SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** Options of {@linkcode PostgresTaskStore.open}. */
export interface PostgresTaskStoreOptions {
  /**
   * `postgres://user:password@host:port/database` (`?sslmode=require` for TLS). A secret: it is
   * handed to the Worker and never appears in a message or error.
   */
  url: string;
  /** The schema of the store's tables, created when missing. @default "kagent" */
  schema?: string;
  /** The clock of changes and leases (each machine's; keep them in sync). @default () => new Date() */
  now?: () => Date;
  /** How long a claim or renewal holds its step, in ms. @default 60000 */
  leaseMs?: number;
  /** Most connections the Worker opens at once. @default 4 */
  maxConnections?: number;
  /** How long connecting (and creating the schema) may take, in ms. @default 30000 */
  connectTimeoutMs?: number;
}

/**
 * A {@linkcode TaskStore} in a PostgreSQL schema, shared by every process that opens it. Claims
 * use `SELECT … FOR UPDATE SKIP LOCKED`; every operation is one transaction. Same rules, leases
 * and bounds as `SqliteTaskStore` (both pass `_task_store_contract.ts`).
 *
 * @example
 * ```ts ignore
 * const store = await PostgresTaskStore.open({
 *   url: Deno.env.get("KAGENT_TASKS_DATABASE_URL") ?? "",
 *   schema: "kagent",
 * });
 * const task = await store.createTask({ agent_id: "main", run_id: "run-1" }, {
 *   title: "Ship",
 *   steps: [{ id: "build", title: "Build" }],
 * });
 * await store.close();
 * ```
 */
export class PostgresTaskStore implements TaskStore {
  /** `postgres 127.0.0.1:5432 schema "kagent"`: for messages (no user, password or database). */
  readonly name: string;
  readonly #worker: Worker;
  readonly #now: () => Date;
  readonly #leaseMs: number;
  readonly #pending = new Map<number, (reply: PostgresReplyMessage) => void>();
  #next = 0;
  #closed: Promise<void> | null = null;
  #failure: string | null = null;

  private constructor(worker: Worker, name: string, options: PostgresTaskStoreOptions) {
    this.#worker = worker;
    this.name = name;
    this.#now = options.now ?? (() => new Date());
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /**
   * Starts the Worker (net: the URL's `host:port` only), connects, and creates or migrates the
   * schema.
   *
   * @throws {TaskStoreError} `invalid_input` for a URL that is not `postgres://` or a bad schema
   *   name; `store_failure` when the database cannot be reached or holds a newer schema.
   */
  static async open(options: PostgresTaskStoreOptions): Promise<PostgresTaskStore> {
    const schema = options.schema ?? "kagent";
    if (!POSTGRES_SCHEMA_PATTERN.test(schema)) {
      throw new TaskStoreError(
        "invalid_input",
        `Cannot open the postgres task store: the schema "${schema}" is not a lower-case SQL ` +
          "identifier (letters, digits and _, at most 63)",
        { schema },
      );
    }
    const host = postgresHost(options.url);
    const name = `postgres ${host} schema "${schema}"`;
    const worker = new Worker(defaultTaskStoreWorkerEntry(), {
      type: "module",
      name: "kagent-run tasks store",
      deno: {
        permissions: {
          net: [host],
          env: ["PGAPPNAME", "PGTARGETSESSIONATTRS"],
          read: false,
          write: false,
          run: false,
          ffi: false,
          sys: false,
          import: false,
        },
      },
    } as WorkerOptions);
    const store = new PostgresTaskStore(worker, name, options);
    const timeoutMs = options.connectTimeoutMs ?? 30_000;
    const ready = new Promise<void>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<PostgresReplyMessage>) => {
        const reply = event.data;
        if (reply.type === "ready") resolve();
        else if (reply.type === "failed") reject(new Error(reply.message));
        else store.#receive(reply);
      };
      worker.onerror = (event) => {
        event.preventDefault();
        store.#fail(event.message);
        reject(new Error(event.message));
      };
    });
    const init: PostgresRequestMessage = {
      type: "init",
      url: options.url,
      schema,
      max_connections: options.maxConnections ?? 4,
      connect_timeout_seconds: Math.max(1, Math.ceil(timeoutMs / 1000)),
      idle_in_transaction_timeout_ms: idleInTransactionTimeoutMs(
        options.leaseMs ?? DEFAULT_LEASE_MS,
      ),
    };
    worker.postMessage(init);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        ready,
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${timeoutMs} ms`)),
            timeoutMs + 5_000,
          );
        }),
      ]);
    } catch (error) {
      worker.terminate();
      throw new TaskStoreError(
        "store_failure",
        `Cannot open the task store ${name}: ${(error as Error).message}`,
        { store: name },
      );
    } finally {
      clearTimeout(timer);
    }
    return store;
  }

  createTask(actor: TaskActor, task: NewTask): Promise<Task> {
    return this.#call({ operation: "createTask", arguments: [actor, task] });
  }

  getTask(taskId: string): Promise<Task> {
    return this.#call({ operation: "getTask", arguments: [taskId] });
  }

  listTasks(filter: TaskFilter = {}): Promise<TaskSummary[]> {
    return this.#call({ operation: "listTasks", arguments: [filter] });
  }

  updateTask(actor: TaskActor, taskId: string, changes: TaskChanges): Promise<Task> {
    return this.#call({ operation: "updateTask", arguments: [actor, taskId, changes] });
  }

  querySteps(taskId: string, filter: StepFilter = {}): Promise<Step[]> {
    return this.#call({ operation: "querySteps", arguments: [taskId, filter] });
  }

  claimStep(actor: TaskActor, taskId: string, stepId?: string): Promise<Step> {
    return this.#call({ operation: "claimStep", arguments: [actor, taskId, stepId] });
  }

  renewLease(
    actor: TaskActor,
    taskId: string,
    stepId: string,
    fencingToken: number,
  ): Promise<Step> {
    return this.#call({
      operation: "renewLease",
      arguments: [actor, taskId, stepId, fencingToken],
    });
  }

  updateStep(
    actor: TaskActor,
    taskId: string,
    stepId: string,
    report: StepReport,
  ): Promise<StepUpdate> {
    return this.#call({ operation: "updateStep", arguments: [actor, taskId, stepId, report] });
  }

  closeTask(actor: TaskActor, taskId: string, state: TaskClosing, note: string): Promise<Task> {
    return this.#call({ operation: "closeTask", arguments: [actor, taskId, state, note] });
  }

  /** Ends the connections (waiting at most 5 s for running queries) and the Worker. */
  close(): Promise<void> {
    if (this.#closed !== null) return this.#closed;
    this.#closed = new Promise<void>((resolve) => {
      const timer = setTimeout(finish, 10_000);
      const worker = this.#worker;
      function finish() {
        clearTimeout(timer);
        worker.terminate();
        resolve();
      }
      worker.onmessage = (event: MessageEvent<PostgresReplyMessage>) => {
        if (event.data.type === "closed") finish();
        else this.#receive(event.data);
      };
      if (this.#failure === null) worker.postMessage({ type: "close" });
      else finish();
    }).finally(() => this.#fail("the store is closed"));
    return this.#closed;
  }

  #call<T>(call: TaskStoreCall): Promise<T> {
    const what = `Cannot ${OPERATION_VERBS[call.operation]} in the task store ${this.name}`;
    if (this.#closed !== null || this.#failure !== null) {
      return Promise.reject(
        new TaskStoreError("store_failure", `${what}: ${this.#failure ?? "the store is closed"}`, {
          store: this.name,
        }),
      );
    }
    const id = this.#next++;
    const message: PostgresRequestMessage = {
      type: "request",
      id,
      request: { ...call, time: this.#now().toISOString(), lease_ms: this.#leaseMs },
    } as PostgresRequestMessage;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, (reply) => {
        if (reply.type !== "reply") return;
        if (reply.ok) return resolve(reply.value as T);
        const error = reply.error;
        reject(
          error.code === "store_failure" && !error.message.startsWith("Cannot")
            ? new TaskStoreError("store_failure", `${what}: ${error.message}`, {
              store: this.name,
            })
            : new TaskStoreError(error.code, error.message, error.details),
        );
      });
      this.#worker.postMessage(message);
    });
  }

  #receive(reply: PostgresReplyMessage): void {
    if (reply.type !== "reply") return;
    const settle = this.#pending.get(reply.id);
    this.#pending.delete(reply.id);
    settle?.(reply);
  }

  /** The Worker is gone: every waiting call fails `store_failure`. */
  #fail(reason: string): void {
    this.#failure ??= reason;
    for (const [id, settle] of this.#pending) {
      settle({
        type: "reply",
        id,
        ok: false,
        error: { code: "store_failure", message: reason, details: {} },
      });
    }
    this.#pending.clear();
  }
}

/**
 * The module the store's Worker runs: `postgres_worker_main.ts` beside this file, or in the
 * bundle (`deno task bundle`, chunks at the folder's top) `src/tasks/postgres_worker_main.js`.
 */
export function defaultTaskStoreWorkerEntry(): URL {
  const bundled = import.meta.url.endsWith(".js");
  return new URL(
    bundled ? "./src/tasks/postgres_worker_main.js" : "./postgres_worker_main.ts",
    import.meta.url,
  );
}

/**
 * The `host:port` of a `postgres://` URL (port 5432 when absent): the Worker's only net
 * permission.
 *
 * @throws {TaskStoreError} `invalid_input` for anything else (the message never repeats the URL,
 *   which may hold a password).
 */
export function postgresHost(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TaskStoreError(
      "invalid_input",
      "Cannot open the postgres task store: the database URL is not a URL (expected " +
        "postgres://user:password@host:port/database)",
    );
  }
  if (
    (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") ||
    parsed.hostname === ""
  ) {
    throw new TaskStoreError(
      "invalid_input",
      `Cannot open the postgres task store: the database URL's scheme is "${parsed.protocol}" ` +
        "or it names no host (expected postgres://user:password@host:port/database)",
    );
  }
  return `${parsed.hostname}:${parsed.port === "" ? "5432" : parsed.port}`;
}

/**
 * How long a session may sit idle inside a transaction (every store operation is one short
 * transaction): half a lease, between 1 s and 10 s, so that the locks of a worker paused
 * mid-transaction are released before its lease would let another worker claim its step.
 *
 * @param leaseMs The store's lease, in ms.
 * @returns The timeout, in ms.
 * @example
 * ```ts
 * import { idleInTransactionTimeoutMs } from "./postgres_task_store.ts";
 * console.assert(idleInTransactionTimeoutMs(600_000) === 10_000);
 * console.assert(idleInTransactionTimeoutMs(3_000) === 1_500);
 * console.assert(idleInTransactionTimeoutMs(500) === 1_000);
 * ```
 */
export function idleInTransactionTimeoutMs(leaseMs: number): number {
  return Math.round(Math.min(10_000, Math.max(1_000, leaseMs / 2)));
}
