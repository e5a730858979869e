/**
 * The task graph (issue 14): tasks as DAGs of steps that agents claim and report, kept in a
 * {@linkcode TaskStore} (by default {@linkcode SqliteTaskStore}, one SQLite file in the run folder;
 * {@linkcode PostgresTaskStore} shares one graph among many machines).
 *
 * @module
 */

export {
  DEFAULT_LEASE_MS,
  DEFAULT_RENEW_MS,
  MAX_AGENT_ID_BYTES,
  MAX_RESULT_BYTES,
  MAX_STEPS_PER_TASK,
  MAX_TASKS_PER_STORE,
  MAX_TEXT_BYTES,
  MAX_TITLE_BYTES,
  type NewStep,
  type NewTask,
  type Step,
  STEP_ID_PATTERN,
  STEP_STATES,
  type StepFilter,
  type StepReport,
  type StepState,
  type Task,
  TASK_STATES,
  type TaskActor,
  type TaskChanges,
  type TaskFilter,
  type TaskState,
  TaskStoreError,
  type TaskStoreErrorCode,
  type TaskSummary,
} from "./task_model.ts";
export { checkNewSteps, countStates, findCycle } from "./task_graph.ts";
export { type StepUpdate, type TaskClosing, type TaskStore } from "./task_store.ts";
export {
  SqliteTaskStore,
  type SqliteTaskStoreOptions,
  TASK_STORE_FILE_NAME,
} from "./sqlite_task_store.ts";
export {
  POSTGRES_SCHEMA_PATTERN,
  postgresHost,
  PostgresTaskStore,
  type PostgresTaskStoreOptions,
} from "./postgres_task_store.ts";
export {
  changesTaskStore,
  CHILD_TASK_TOOL_NAMES,
  TASK_TOOL_NAMES,
  taskToolDefinitions,
  type TaskToolName,
} from "./task_tool_definitions.ts";
export {
  openSharedTaskStore,
  openTaskStore,
  type OpenTaskStoreOptions,
  type TaskStoreConfig,
} from "./open_task_store.ts";
export { LeaseKeeper, type LeaseKeeperOptions } from "./lease_keeper.ts";
export { machineName } from "./machine_name.ts";
export { TaskTools, type TaskToolsIdentity, type TaskToolsOptions } from "./task_tools.ts";
export { PLAN_SECTIONS, PLAN_TEMPLATE, TASK_EXAMPLE, TASK_RULES } from "./templates.ts";
