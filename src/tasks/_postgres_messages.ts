/**
 * The messages between the PostgreSQL task store (main thread) and its Worker, which alone holds
 * the connection and the network permission for the database's host and port.
 *
 * @module
 */

import type {
  NewTask,
  StepFilter,
  StepReport,
  TaskActor,
  TaskChanges,
  TaskFilter,
  TaskStoreErrorCode,
} from "./task_model.ts";
import type { TaskClosing } from "./task_store.ts";

/** The first message: where to connect. The URL is a secret; it never leaves the Worker. */
export interface PostgresInitMessage {
  type: "init";
  /** `postgres://user:password@host:port/database`. */
  url: string;
  /** The schema of the store's tables, checked against `POSTGRES_SCHEMA_PATTERN`. */
  schema: string;
  /** Most connections the Worker opens at once. */
  max_connections: number;
  /** How long one connection attempt may take, in seconds. */
  connect_timeout_seconds: number;
  /**
   * The server ends a session left idle inside a transaction this long, in ms
   * (`idle_in_transaction_session_timeout`): a worker paused mid-transaction (a stopped VM, a
   * SIGSTOP) cannot hold its row locks past it and stall every other worker.
   */
  idle_in_transaction_timeout_ms: number;
}

/** One store operation and its arguments, as `TaskStore` takes them. */
export type TaskStoreCall =
  | { operation: "createTask"; arguments: [TaskActor, NewTask] }
  | { operation: "getTask"; arguments: [string] }
  | { operation: "listTasks"; arguments: [TaskFilter] }
  | { operation: "updateTask"; arguments: [TaskActor, string, TaskChanges] }
  | { operation: "querySteps"; arguments: [string, StepFilter] }
  | { operation: "claimStep"; arguments: [TaskActor, string, string | undefined] }
  | { operation: "renewLease"; arguments: [TaskActor, string, string, number] }
  | { operation: "updateStep"; arguments: [TaskActor, string, string, StepReport] }
  | { operation: "closeTask"; arguments: [TaskActor, string, TaskClosing, string] };

/** A store request: one operation, its clock (the caller's) and lease. */
export type TaskStoreRequest = TaskStoreCall & {
  /** ISO 8601 time of the changes, from the store's `now`. */
  time: string;
  /** Lease length of a claim or renewal, in ms. */
  lease_ms: number;
};

/** Main thread → Worker. */
export type PostgresRequestMessage =
  | PostgresInitMessage
  | { type: "request"; id: number; request: TaskStoreRequest }
  | { type: "close" };

/** Worker → main thread. */
export type PostgresReplyMessage =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "closed" }
  | { type: "reply"; id: number; ok: true; value: unknown }
  | {
    type: "reply";
    id: number;
    ok: false;
    error: { code: TaskStoreErrorCode; message: string; details: Record<string, unknown> };
  };
