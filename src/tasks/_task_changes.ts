/**
 * A creator's changes to an open task (`TaskStore.updateTask`), applied inside the store's write
 * transaction: any refusal rolls every change of the call back.
 *
 * @module
 */

import type { StepRow } from "./_sqlite_schema.ts";
import type { Transaction } from "./_transaction.ts";
import { checkNewSteps, checkTextBytes, waitingState } from "./task_graph.ts";
import {
  MAX_TEXT_BYTES,
  MAX_TITLE_BYTES,
  type StepState,
  type TaskChanges,
  TaskStoreError,
} from "./task_model.ts";

/**
 * Applies `changes` to the open task `taskId` (the caller checked creator and state): title and
 * description, then step edits, then added steps, then retries.
 *
 * @throws {TaskStoreError} `invalid_input` (nothing to change, a bound, a bad added step),
 *   `not_found` (an unknown step), `state_conflict` (editing a claimed step, retrying one that
 *   neither failed nor is claimed).
 */
export function applyChanges(transaction: Transaction, taskId: string, changes: TaskChanges): void {
  const database = transaction.database;
  if (
    changes.title === undefined && changes.description === undefined &&
    (changes.edit_steps ?? []).length === 0 && (changes.add_steps ?? []).length === 0 &&
    (changes.retry_steps ?? []).length === 0
  ) {
    throw new TaskStoreError(
      "invalid_input",
      `Cannot update task "${taskId}": the call changes nothing (give title, description, ` +
        "edit_steps, add_steps or retry_steps)",
      { task_id: taskId },
    );
  }
  if (changes.title !== undefined) {
    checkTextBytes("task title", changes.title, MAX_TITLE_BYTES);
    database.prepare("UPDATE tasks SET title = ? WHERE id = ?").run(changes.title, taskId);
  }
  if (changes.description !== undefined) {
    checkTextBytes("task description", changes.description, MAX_TEXT_BYTES);
    database.prepare("UPDATE tasks SET description = ? WHERE id = ?").run(
      changes.description,
      taskId,
    );
  }
  for (const edit of changes.edit_steps ?? []) {
    const row = transaction.stepRow(taskId, edit.id);
    if (row.state !== "pending" && row.state !== "ready") {
      throw new TaskStoreError(
        "state_conflict",
        `Cannot edit step "${edit.id}" of task "${taskId}": it is ${row.state}${
          row.owner === null ? "" : ` (owner "${row.owner}")`
        }; only pending and ready steps can be edited`,
        { task_id: taskId, step_id: edit.id, state: row.state },
      );
    }
    const title = edit.title ?? row.title;
    const instructions = edit.instructions ?? row.instructions;
    checkTextBytes(`title of step "${edit.id}"`, title, MAX_TITLE_BYTES);
    checkTextBytes(`instructions of step "${edit.id}"`, instructions, MAX_TEXT_BYTES);
    database.prepare(
      "UPDATE steps SET title = ?, instructions = ?, updated_at = ? WHERE task_id = ? AND id = ?",
    ).run(title, instructions, transaction.time, taskId, edit.id);
  }
  const added = changes.add_steps ?? [];
  if (added.length > 0) {
    const existing = transaction.stepRows(taskId).map((row) => ({
      id: row.id,
      depends_on: JSON.parse(row.depends_on) as string[],
    }));
    checkNewSteps(existing, added);
    transaction.insertSteps(taskId, added);
  }
  for (const stepId of changes.retry_steps ?? []) retryStep(transaction, taskId, stepId);
  transaction.touchTask(taskId);
}

/** Puts a failed or claimed step back to ready (or pending), without owner or result. */
function retryStep(transaction: Transaction, taskId: string, stepId: string): void {
  const row: StepRow = transaction.stepRow(taskId, stepId);
  if (row.state !== "failed" && row.state !== "claimed") {
    throw new TaskStoreError(
      "state_conflict",
      `Cannot retry step "${stepId}" of task "${taskId}": it is ${row.state}; only failed or ` +
        "claimed steps can be retried",
      { task_id: taskId, step_id: stepId, state: row.state },
    );
  }
  const states = new Map(
    transaction.stepRows(taskId).map((step) => [step.id, step.state as StepState]),
  );
  const state = waitingState(JSON.parse(row.depends_on) as string[], (id) => states.get(id));
  transaction.database.prepare(
    `UPDATE steps SET state = ?, owner = NULL, owner_run_id = NULL, result = NULL, updated_at = ?
     WHERE task_id = ? AND id = ?`,
  ).run(state, transaction.time, taskId, stepId);
}
