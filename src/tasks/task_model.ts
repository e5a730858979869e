/**
 * The task graph's data: a task is a DAG of steps with owners and states, created by one agent and
 * worked on by others (issue 14). Plain JSON-ready values; the store keeps them, the tools show them.
 *
 * States:
 * - task: `open` → `completed` | `failed` | `cancelled` (closed states are final);
 * - step: `pending` → `ready` → `claimed` → `done` | `failed` | `cancelled`. A step is `ready` when
 *   every step it depends on is `done` (a step without dependencies is ready at creation).
 *
 * @module
 */

/** A task's state; the three closed states are final. */
export type TaskState = "open" | "completed" | "failed" | "cancelled";

/** Every {@linkcode TaskState}, in lifecycle order. */
export const TASK_STATES = [
  "open",
  "completed",
  "failed",
  "cancelled",
] as const satisfies readonly TaskState[];

/** A step's state; `done`, `failed` and `cancelled` end it (a failed step can be retried). */
export type StepState = "pending" | "ready" | "claimed" | "done" | "failed" | "cancelled";

/** Every {@linkcode StepState}, in lifecycle order. */
export const STEP_STATES = [
  "pending",
  "ready",
  "claimed",
  "done",
  "failed",
  "cancelled",
] as const satisfies readonly StepState[];

/** Most steps one task may hold (creation and later additions together). */
export const MAX_STEPS_PER_TASK = 100;
/** Most tasks one store keeps (open and closed): the store file stays small. */
export const MAX_TASKS_PER_STORE = 1_000;
/** Longest task or step title, in UTF-8 bytes. */
export const MAX_TITLE_BYTES = 200;
/** Longest task description or step instructions, in UTF-8 bytes (16 KiB). */
export const MAX_TEXT_BYTES = 16 * 1024;
/** Longest step result or task closing note, in UTF-8 bytes (32 KiB). */
export const MAX_RESULT_BYTES = 32 * 1024;
/** Longest agent id or run id the store records, in UTF-8 bytes. */
export const MAX_AGENT_ID_BYTES = 200;
/**
 * What a step id must look like: 1–64 characters, letters, digits, `_`, `-` and `.`, starting with
 * a letter or digit (`build`, `test-2`).
 */
export const STEP_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** One step of a task, as stored. */
export interface Step {
  /** Unique within its task, given by the task's creator, e.g. `build`. */
  id: string;
  title: string;
  /** What to do, for the agent that claims it; `""` when none. */
  instructions: string;
  /** Ids of steps of the same task that must be `done` first. */
  depends_on: string[];
  state: StepState;
  /** The agent id that claimed it; null until claimed (and again after a retry). */
  owner: string | null;
  /** The run id of the owner's run; null with `owner`. */
  owner_run_id: string | null;
  /** The machine (host name) the owner ran on; null with `owner`. */
  owner_machine: string | null;
  /**
   * The fencing token of the latest claim: 0 before the first, one more at each claim (never
   * reset, also not by a retry). A report or renewal naming an older token is refused `conflict`.
   */
  fencing_token: number;
  /**
   * ISO 8601 time the claim's lease ends while `claimed`, else null. After it the step may be
   * claimed again (with the next fencing token) unless the owner renewed it.
   */
  lease_until: string | null;
  /** What the owner reported with `done` or `failed`; null before. */
  result: string | null;
  /** ISO 8601 time of the last change, with milliseconds. */
  updated_at: string;
}

/** A task with its steps, in the order they were added. */
export interface Task {
  /** Given by the store, e.g. `task-3`. */
  id: string;
  title: string;
  /** `""` when none. */
  description: string;
  state: TaskState;
  /** The agent id of the creator: only it may change, complete, fail or cancel the task. */
  created_by: string;
  /** The run id of the creator's run. */
  created_by_run_id: string;
  /** The completion summary, failure reason or cancellation reason; null while open. */
  result: string | null;
  /** ISO 8601, with milliseconds. */
  created_at: string;
  updated_at: string;
  steps: Step[];
}

/** A task without its steps' texts, for listings. */
export interface TaskSummary {
  id: string;
  title: string;
  state: TaskState;
  created_by: string;
  created_at: string;
  updated_at: string;
  /** How many steps are in each state (states with none are absent). */
  step_counts: Partial<Record<StepState, number>>;
}

/** Who calls the store: the ids checked against owners and creators, and recorded. */
export interface TaskActor {
  /** The agent id, e.g. `main` or `worker-1`; ownership is checked on it. */
  agent_id: string;
  /** The run id of the agent's run; ownership is checked on it too. */
  run_id: string;
  /**
   * The machine the agent runs on (its host name, see `machineName()`), recorded beside ownership.
   * @default null (recorded as unknown)
   */
  machine?: string;
}

/**
 * How long a claim holds its step without a renewal, in milliseconds (60 s). After it another
 * worker may claim the step; the first one's report is then refused `conflict`.
 */
export const DEFAULT_LEASE_MS = 60_000;
/** How often a worker renews the lease of the step it works on, in milliseconds (20 s). */
export const DEFAULT_RENEW_MS = 20_000;

/** A step as its creator describes it. */
export interface NewStep {
  /** Unique within the task; see {@linkcode STEP_ID_PATTERN}. */
  id: string;
  /** At most {@linkcode MAX_TITLE_BYTES}. */
  title: string;
  /** At most {@linkcode MAX_TEXT_BYTES}. @default "" */
  instructions?: string;
  /** Ids of steps of the same task (existing or in the same call). @default [] */
  depends_on?: string[];
}

/** A new task. */
export interface NewTask {
  /** At most {@linkcode MAX_TITLE_BYTES}. */
  title: string;
  /** At most {@linkcode MAX_TEXT_BYTES}. @default "" */
  description?: string;
  /** 1 to {@linkcode MAX_STEPS_PER_TASK} steps forming a DAG. */
  steps: NewStep[];
}

/** Changes the creator may make to an open task; absent fields change nothing. */
export interface TaskChanges {
  title?: string;
  description?: string;
  /** New steps; their dependencies may name existing steps or each other. */
  add_steps?: NewStep[];
  /** New title or instructions of steps not yet claimed (`pending` or `ready`). */
  edit_steps?: { id: string; title?: string; instructions?: string }[];
  /**
   * Steps to run again: a `failed` step, or a `claimed` one whose owner stopped, goes back to
   * `ready` (or `pending` when a dependency is no longer done) without owner or result.
   */
  retry_steps?: string[];
}

/** What a step's owner reports. */
export interface StepReport {
  state: "done" | "failed";
  /** What was done, or why it failed; at most {@linkcode MAX_RESULT_BYTES}. */
  result: string;
  /**
   * The fencing token of the reporter's claim (`Step.fencing_token` as claimed). When given and
   * the step was claimed again since, the report is refused `conflict`.
   * @default the owner check alone
   */
  fencing_token?: number;
}

/** Filters of {@linkcode TaskStore.querySteps}; absent ones match everything. */
export interface StepFilter {
  states?: readonly StepState[];
  /** Only steps this agent owns. */
  owner?: string;
}

/** Filters of {@linkcode TaskStore.listTasks}; absent ones match everything. */
export interface TaskFilter {
  states?: readonly TaskState[];
  created_by?: string;
}

/** The closed set of {@linkcode TaskStoreError} codes. */
export type TaskStoreErrorCode =
  /** The input breaks a rule: a cycle, an unknown dependency, a duplicate id, a bound. */
  | "invalid_input"
  /** The task or step named does not exist. */
  | "not_found"
  /** The task or step is not in a state that allows the change (claimed by another, closed…). */
  | "state_conflict"
  /** The caller is not the step's owner or the task's creator. */
  | "not_owner"
  /**
   * The caller's claim was superseded: its lease ran out and the step was claimed again (a newer
   * fencing token), or the creator retried it. What the caller did with the step is not recorded.
   */
  | "conflict"
  /** The store itself failed: the file cannot be opened, is locked too long, or is not a store. */
  | "store_failure";

/**
 * Why a store operation refused or failed. `message` follows the house style and names the task,
 * step and agent; `details` holds the same facts as data (`task_id`, `step_id`, `cycle`, `owner`…).
 */
export class TaskStoreError extends Error {
  override readonly name = "TaskStoreError";
  readonly code: TaskStoreErrorCode;
  readonly details: Record<string, unknown>;

  constructor(
    code: TaskStoreErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.code = code;
    this.details = details;
  }
}
