/**
 * The work on steps inside the store's write transaction: claiming a ready step and its owner's
 * report, with the readiness of dependents in the same transaction.
 *
 * @module
 */

import { stepOf, type StepRow } from "./_sqlite_schema.ts";
import type { Transaction } from "./_transaction.ts";
import { checkActor, checkTextBytes, countStates } from "./task_graph.ts";
import {
  MAX_RESULT_BYTES,
  type Step,
  type StepReport,
  type TaskActor,
  TaskStoreError,
} from "./task_model.ts";
import type { StepUpdate } from "./task_store.ts";

/**
 * Claims `stepId` (or the first ready step) of an open task for `actor`. The row is updated only
 * while still `ready`, inside the write transaction, so two claimers never both win.
 *
 * @throws {TaskStoreError} `not_found`, `state_conflict` (closed task, no ready step, step not
 *   ready or already claimed, naming its owner).
 */
export function claim(
  transaction: Transaction,
  actor: TaskActor,
  taskId: string,
  stepId: string | undefined,
): Step {
  checkActor(actor);
  const task = transaction.taskRow(taskId);
  const steps = transaction.stepRows(taskId);
  const named = stepId === undefined ? undefined : transaction.stepRow(taskId, stepId);
  const chosen = named ?? steps.find((step) => step.state === "ready");
  const what = chosen === undefined
    ? `Cannot claim a step of task "${taskId}"`
    : `Cannot claim step "${chosen.id}" of task "${taskId}"`;
  if (task.state !== "open") {
    throw new TaskStoreError("state_conflict", `${what}: the task is ${task.state}`, {
      task_id: taskId,
      task_state: task.state,
    });
  }
  if (chosen === undefined) {
    throw new TaskStoreError(
      "state_conflict",
      `${what}: no step is ready (${tally(steps)})`,
      {
        task_id: taskId,
        step_counts: countStates(steps.map((step) => step.state)),
      },
    );
  }
  if (chosen.state !== "ready") {
    throw new TaskStoreError(
      "state_conflict",
      `${what}: ${notReadyReason(chosen, steps, actor)}`,
      { task_id: taskId, step_id: chosen.id, state: chosen.state, owner: chosen.owner },
    );
  }
  const changed = transaction.database.prepare(
    `UPDATE steps SET state = 'claimed', owner = ?, owner_run_id = ?, updated_at = ?
       WHERE task_id = ? AND id = ? AND state = 'ready'`,
  ).run(actor.agent_id, actor.run_id, transaction.time, taskId, chosen.id);
  if (changed.changes !== 1) throw new Error(`claim of "${chosen.id}" changed no row`);
  transaction.touchTask(taskId);
  return stepOf(transaction.stepRow(taskId, chosen.id));
}

/**
 * Records the owner's report on its claimed step; when `done`, promotes the dependents whose
 * dependencies are now all done.
 *
 * @throws {TaskStoreError} `not_found`, `state_conflict` (the step is not claimed, or the task was
 *   closed), `not_owner` (another agent claimed it), `invalid_input` (result too long).
 */
export function report(
  transaction: Transaction,
  actor: TaskActor,
  taskId: string,
  stepId: string,
  stepReport: StepReport,
): StepUpdate {
  checkActor(actor);
  const what = `Cannot mark step "${stepId}" of task "${taskId}" ${stepReport.state}`;
  const task = transaction.taskRow(taskId);
  const step = transaction.stepRow(taskId, stepId);
  if (step.state !== "claimed") {
    const reason = task.state !== "open"
      ? `the task is ${task.state}`
      : `it is ${step.state}${step.state === "ready" ? "; claim it first" : ""}`;
    throw new TaskStoreError("state_conflict", `${what}: ${reason}`, {
      task_id: taskId,
      step_id: stepId,
      state: step.state,
      task_state: task.state,
    });
  }
  if (step.owner !== actor.agent_id) {
    throw new TaskStoreError(
      "not_owner",
      `${what}: it is claimed by "${step.owner}", not by "${actor.agent_id}"`,
      { task_id: taskId, step_id: stepId, owner: step.owner, agent_id: actor.agent_id },
    );
  }
  checkTextBytes(`result of step "${stepId}"`, stepReport.result, MAX_RESULT_BYTES);
  transaction.database.prepare(
    "UPDATE steps SET state = ?, result = ?, updated_at = ? WHERE task_id = ? AND id = ?",
  ).run(stepReport.state, stepReport.result, transaction.time, taskId, stepId);
  const becameReady = stepReport.state === "done" ? transaction.promoteReady(taskId) : [];
  transaction.touchTask(taskId);
  const steps = transaction.stepRows(taskId);
  return {
    step: stepOf(transaction.stepRow(taskId, stepId)),
    became_ready: becameReady,
    all_done: steps.every((row) => row.state === "done"),
  };
}

/** `2 pending, 1 claimed`. */
function tally(steps: readonly StepRow[]): string {
  return Object.entries(countStates(steps.map((step) => step.state)))
    .map(([state, count]) => `${count} ${state}`).join(", ");
}

/** Why a step cannot be claimed, for the message. */
function notReadyReason(step: StepRow, steps: readonly StepRow[], actor: TaskActor): string {
  if (step.state === "claimed") {
    return `it is already claimed by "${step.owner}"${
      step.owner === actor.agent_id ? " (you)" : ""
    }`;
  }
  if (step.state === "pending") {
    const dependsOn = JSON.parse(step.depends_on) as string[];
    const waiting = steps.filter((other) => dependsOn.includes(other.id) && other.state !== "done");
    return `it is not ready: it waits on ${
      waiting.map((other) => `"${other.id}" (${other.state})`).join(", ")
    }`;
  }
  return `it is ${step.state}`;
}
