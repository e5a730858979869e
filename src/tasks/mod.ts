/**
 * The task graph (issue 14): tasks as DAGs of steps that agents claim and report, kept in a
 * {@linkcode TaskStore} (by default {@linkcode SqliteTaskStore}, one SQLite file in the run folder;
 * {@linkcode PostgresTaskStore} shares one graph among many machines).
 *
 * @module
 */

export {
  MAX_RESULT_BYTES,
  type Step,
  type Task,
  type TaskActor,
  TaskStoreError,
} from "./task_model.ts";

export { type StepUpdate, type TaskStore } from "./task_store.ts";
export { SqliteTaskStore, TASK_STORE_FILE_NAME } from "./sqlite_task_store.ts";
export { PostgresTaskStore } from "./postgres_task_store.ts";
export { changesTaskStore, TASK_TOOL_NAMES, taskToolDefinitions } from "./task_tool_definitions.ts";
export { openSharedTaskStore, openTaskStore } from "./open_task_store.ts";
export { LeaseKeeper } from "./lease_keeper.ts";
export { machineName } from "./machine_name.ts";
export { TaskTools } from "./task_tools.ts";
