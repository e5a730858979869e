/**
 * The rules of whole tasks as pure functions over rows: creation (ids, bounds, cycle refusal,
 * readiness), the creator's changes, closing, and the read-side shapes (summaries, step filters).
 * Stores read the rows inside their transaction, call these, and write what they return.
 *
 * @module
 */

import { replaced, type RuleChange, stepOf } from "./_step_rules.ts";
import {
  checkActor,
  checkNewSteps,
  checkTextBytes,
  countStates,
  waitingState,
} from "./task_graph.ts";
import {
  MAX_RESULT_BYTES,
  MAX_TASKS_PER_STORE,
  MAX_TEXT_BYTES,
  MAX_TITLE_BYTES,
  type NewStep,
  type Step,
  type StepFilter,
  type Task,
  type TaskActor,
  type TaskChanges,
  type TaskFilter,
  TaskStoreError,
  type TaskSummary,
} from "./task_model.ts";
import type { TaskClosing } from "./task_store.ts";

/** What a store knows of its tasks when it creates one. */
export interface StoreCount {
  /** How many tasks the store holds. */
  tasks: number;
  /** The highest task number so far (0 for none): the new task is `task-<last + 1>`. */
  last: number;
  /** The store's name for messages (a file path, `postgres schema "kagent"`). */
  name: string;
}

/**
 * The new open task `task-<last + 1>` owned by `actor`: steps without dependencies `ready`, the
 * others `pending`.
 *
 * @throws {TaskStoreError} `invalid_input` for a cycle, an unknown or duplicate id, a bound, or a
 *   full store.
 */
export function createRule(
  actor: TaskActor,
  input: { title: string; description?: string; steps: readonly NewStep[] },
  count: StoreCount,
  time: string,
): Task {
  checkActor(actor);
  checkTextBytes("task title", input.title, MAX_TITLE_BYTES);
  checkTextBytes("task description", input.description ?? "", MAX_TEXT_BYTES);
  checkNewSteps([], input.steps);
  if (count.tasks >= MAX_TASKS_PER_STORE) {
    throw new TaskStoreError(
      "invalid_input",
      `Cannot create a task: the store ${count.name} holds ${count.tasks} tasks, the most allowed`,
      { tasks: count.tasks, max_tasks: MAX_TASKS_PER_STORE },
    );
  }
  const task: Task = {
    id: `task-${count.last + 1}`,
    title: input.title,
    description: input.description ?? "",
    state: "open",
    created_by: actor.agent_id,
    created_by_run_id: actor.run_id,
    result: null,
    created_at: time,
    updated_at: time,
    steps: [],
  };
  return { ...task, steps: newSteps(task, input.steps, time) };
}

/**
 * Applies the creator's `changes` to an open task: title and description, then step edits, then
 * added steps, then retries. A refusal throws before anything is written.
 *
 * @throws {TaskStoreError} `not_owner`, `state_conflict` (closed task, editing a claimed step,
 *   retrying one that neither failed nor is claimed), `invalid_input` (nothing to change, a bound,
 *   a bad added step), `not_found` (an unknown step).
 */
export function changeRule(
  task: Task,
  actor: TaskActor,
  changes: TaskChanges,
  time: string,
): RuleChange<Task> {
  checkActor(actor);
  checkCreator(task, actor, "change");
  if (
    changes.title === undefined && changes.description === undefined &&
    (changes.edit_steps ?? []).length === 0 && (changes.add_steps ?? []).length === 0 &&
    (changes.retry_steps ?? []).length === 0
  ) {
    throw new TaskStoreError(
      "invalid_input",
      `Cannot update task "${task.id}": the call changes nothing (give title, description, ` +
        "edit_steps, add_steps or retry_steps)",
      { task_id: task.id },
    );
  }
  if (changes.title !== undefined) checkTextBytes("task title", changes.title, MAX_TITLE_BYTES);
  if (changes.description !== undefined) {
    checkTextBytes("task description", changes.description, MAX_TEXT_BYTES);
  }
  let after: Task = {
    ...task,
    title: changes.title ?? task.title,
    description: changes.description ?? task.description,
    updated_at: time,
  };
  const touched = new Set<string>();
  const put = (step: Step) => {
    after = { ...after, steps: after.steps.map((row) => row.id === step.id ? step : row) };
    touched.add(step.id);
  };
  for (const edit of changes.edit_steps ?? []) {
    const row = stepOf(after, edit.id);
    if (row.state !== "pending" && row.state !== "ready") {
      throw new TaskStoreError(
        "state_conflict",
        `Cannot edit step "${edit.id}" of task "${task.id}": it is ${row.state}${
          row.owner === null ? "" : ` (owner "${row.owner}")`
        }; only pending and ready steps can be edited`,
        { task_id: task.id, step_id: edit.id, state: row.state },
      );
    }
    const title = edit.title ?? row.title;
    const instructions = edit.instructions ?? row.instructions;
    checkTextBytes(`title of step "${edit.id}"`, title, MAX_TITLE_BYTES);
    checkTextBytes(`instructions of step "${edit.id}"`, instructions, MAX_TEXT_BYTES);
    put({ ...row, title, instructions, updated_at: time });
  }
  const added = changes.add_steps ?? [];
  if (added.length > 0) {
    checkNewSteps(after.steps, added);
    const steps = newSteps(after, added, time);
    after = { ...after, steps: [...after.steps, ...steps] };
    for (const step of steps) touched.add(step.id);
  }
  for (const stepId of changes.retry_steps ?? []) {
    const row = stepOf(after, stepId);
    if (row.state !== "failed" && row.state !== "claimed") {
      throw new TaskStoreError(
        "state_conflict",
        `Cannot retry step "${stepId}" of task "${task.id}": it is ${row.state}; only failed or ` +
          "claimed steps can be retried",
        { task_id: task.id, step_id: stepId, state: row.state },
      );
    }
    const states = new Map(after.steps.map((step) => [step.id, step.state]));
    put({
      ...row,
      state: waitingState(row.depends_on, (id) => states.get(id)),
      owner: null,
      owner_run_id: null,
      owner_machine: null,
      lease_until: null,
      result: null,
      updated_at: time,
    });
  }
  return {
    task: after,
    taskChanged: true,
    steps: after.steps.filter((step) => touched.has(step.id)).map((step) => step.id),
    result: after,
  };
}

/**
 * Closes an open task: only its creator. `completed` needs every step done; `failed` and
 * `cancelled` cancel the steps still `pending`, `ready` or `claimed`.
 *
 * @throws {TaskStoreError} `not_owner`, `state_conflict` (closed already, or steps not done for
 *   `completed`), `invalid_input` (note too long).
 */
export function closeRule(
  task: Task,
  actor: TaskActor,
  state: TaskClosing,
  note: string,
  time: string,
): RuleChange<Task> {
  checkActor(actor);
  const verb = { completed: "complete", failed: "fail", cancelled: "cancel" }[state];
  checkCreator(task, actor, verb);
  checkTextBytes(`note closing task "${task.id}"`, note, MAX_RESULT_BYTES);
  const unfinished = task.steps.filter((step) => step.state !== "done");
  if (state === "completed" && unfinished.length > 0) {
    throw new TaskStoreError(
      "state_conflict",
      `Cannot complete task "${task.id}": ${unfinished.length} of its steps are not done ` +
        `(${unfinished.map((step) => `${step.id}: ${step.state}`).join(", ")}); fail or ` +
        "cancel it instead, or retry the failed steps",
      { task_id: task.id, unfinished: unfinished.map((step) => step.id) },
    );
  }
  const cancelled = task.steps
    .filter((step) => ["pending", "ready", "claimed"].includes(step.state))
    .map((step): Step => ({ ...step, state: "cancelled", lease_until: null, updated_at: time }));
  const after = replaced({ ...task, state, result: note, updated_at: time }, cancelled);
  return { ...after, taskChanged: true, result: after.task };
}

/**
 * `task` with `updated_at` the latest of its own and its steps' (a claim or report writes only
 * the step's row, so concurrent claimers never contend for the task's row).
 */
export function withLatestUpdate(task: Task): Task {
  const latest = task.steps.reduce(
    (time, step) => step.updated_at > time ? step.updated_at : time,
    task.updated_at,
  );
  return latest === task.updated_at ? task : { ...task, updated_at: latest };
}

/** The task's listing entry, or null when `filter` leaves it out. */
export function summaryOf(task: Task, filter: TaskFilter): TaskSummary | null {
  if (filter.states !== undefined && !filter.states.includes(task.state)) return null;
  if (filter.created_by !== undefined && task.created_by !== filter.created_by) return null;
  return {
    id: task.id,
    title: task.title,
    state: task.state,
    created_by: task.created_by,
    created_at: task.created_at,
    updated_at: task.updated_at,
    step_counts: countStates(task.steps.map((step) => step.state)),
  };
}

/** The task's steps matching `filter`, in task order. */
export function filterSteps(task: Task, filter: StepFilter): Step[] {
  return task.steps.filter((step) =>
    (filter.states === undefined || filter.states.includes(step.state)) &&
    (filter.owner === undefined || step.owner === filter.owner)
  );
}

/** The error of a task id no store holds. */
export function taskNotFound(taskId: string): TaskStoreError {
  return new TaskStoreError("not_found", `Cannot find task "${taskId}": no task has that id`, {
    task_id: taskId,
  });
}

/** Checked new steps as rows after the task's last: `ready` when every dependency is done. */
function newSteps(task: Task, steps: readonly NewStep[], time: string): Step[] {
  const states = new Map(task.steps.map((row) => [row.id, row.state]));
  return steps.map((step) => {
    const dependsOn = step.depends_on ?? [];
    const row: Step = {
      id: step.id,
      title: step.title,
      instructions: step.instructions ?? "",
      depends_on: [...dependsOn],
      state: waitingState(dependsOn, (id) => states.get(id)),
      owner: null,
      owner_run_id: null,
      owner_machine: null,
      fencing_token: 0,
      lease_until: null,
      result: null,
      updated_at: time,
    };
    states.set(step.id, "pending");
    return row;
  });
}

/** Refuses anyone but the creator, and a closed task. */
function checkCreator(task: Task, actor: TaskActor, verb: string): void {
  if (task.created_by !== actor.agent_id) {
    throw new TaskStoreError(
      "not_owner",
      `Cannot ${verb} task "${task.id}": it was created by "${task.created_by}", and only its ` +
        `creator may ${verb} it, not "${actor.agent_id}"`,
      { task_id: task.id, created_by: task.created_by, agent_id: actor.agent_id },
    );
  }
  if (task.state !== "open") {
    throw new TaskStoreError(
      "state_conflict",
      `Cannot ${verb} task "${task.id}": it is already ${task.state}`,
      { task_id: task.id, task_state: task.state },
    );
  }
}
