/**
 * What the SQLite store's operations do inside one transaction: read rows, check the caller, and
 * the writes several operations share (insert steps, promote ready steps). Private to the folder;
 * only the store opens transactions.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { type StepRow, taskOf, type TaskRow } from "./_sqlite_schema.ts";
import { waitingState } from "./task_graph.ts";
import {
  type NewStep,
  type StepState,
  type Task,
  type TaskActor,
  TaskStoreError,
} from "./task_model.ts";

/** One open transaction of the store, and the time its changes are stamped with. */
export class Transaction {
  readonly database: DatabaseSync;
  /** ISO 8601 time of every change in this transaction. */
  readonly time: string;

  constructor(database: DatabaseSync, time: string) {
    this.database = database;
    this.time = time;
  }

  /** The task's row; `not_found` when there is none. */
  taskRow(taskId: string): TaskRow {
    const row = this.database.prepare("SELECT * FROM tasks WHERE id = ?").get(taskId);
    if (row === undefined) {
      throw new TaskStoreError("not_found", `Cannot find task "${taskId}": no task has that id`, {
        task_id: taskId,
      });
    }
    return row as unknown as TaskRow;
  }

  /** The task's steps' rows, in the order they were added. */
  stepRows(taskId: string): StepRow[] {
    return this.database.prepare("SELECT * FROM steps WHERE task_id = ? ORDER BY position")
      .all(taskId) as unknown as StepRow[];
  }

  /** One step's row; `not_found` (naming the task's steps) when there is none. */
  stepRow(taskId: string, stepId: string): StepRow {
    const row = this.database.prepare("SELECT * FROM steps WHERE task_id = ? AND id = ?")
      .get(taskId, stepId);
    if (row !== undefined) return row as unknown as StepRow;
    const ids = this.stepRows(taskId).map((step) => step.id);
    this.taskRow(taskId);
    throw new TaskStoreError(
      "not_found",
      `Cannot find step "${stepId}" of task "${taskId}": its steps are ${ids.join(", ")}`,
      { task_id: taskId, step_id: stepId, steps: ids },
    );
  }

  /** The whole task as the model shows it. */
  task(taskId: string): Task {
    return taskOf(this.taskRow(taskId), this.stepRows(taskId));
  }

  /**
   * The task's row when `actor` created it and it is open.
   *
   * @param verb What the caller wants to do, for the message (`change`, `cancel`).
   * @throws {TaskStoreError} `not_found`, `not_owner` (another agent's task), `state_conflict`
   *   (the task is closed).
   */
  openTaskOf(taskId: string, actor: TaskActor, verb: string): TaskRow {
    const row = this.taskRow(taskId);
    if (row.created_by !== actor.agent_id) {
      throw new TaskStoreError(
        "not_owner",
        `Cannot ${verb} task "${taskId}": it was created by "${row.created_by}", and only its ` +
          `creator may ${verb} it, not "${actor.agent_id}"`,
        { task_id: taskId, created_by: row.created_by, agent_id: actor.agent_id },
      );
    }
    if (row.state !== "open") {
      throw new TaskStoreError(
        "state_conflict",
        `Cannot ${verb} task "${taskId}": it is already ${row.state}`,
        { task_id: taskId, task_state: row.state },
      );
    }
    return row;
  }

  /** Stamps the task's `updated_at`. */
  touchTask(taskId: string): void {
    this.database.prepare("UPDATE tasks SET updated_at = ? WHERE id = ?").run(this.time, taskId);
  }

  /**
   * Inserts checked steps after the task's last one: `ready` when every dependency is done,
   * else `pending`.
   */
  insertSteps(taskId: string, steps: readonly NewStep[]): void {
    const existing = this.stepRows(taskId);
    const states = new Map(existing.map((row) => [row.id, row.state as StepState]));
    let position = existing.reduce((last, row) => Math.max(last, row.position), -1);
    const insert = this.database.prepare(
      `INSERT INTO steps (task_id, id, position, title, instructions, depends_on, state, owner,
         owner_run_id, result, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?)`,
    );
    for (const step of steps) {
      const dependsOn = step.depends_on ?? [];
      position++;
      insert.run(
        taskId,
        step.id,
        position,
        step.title,
        step.instructions ?? "",
        JSON.stringify(dependsOn),
        waitingState(dependsOn, (id) => states.get(id)),
        this.time,
      );
      states.set(step.id, "pending");
    }
  }

  /**
   * Makes `ready` every `pending` step whose dependencies are all done.
   *
   * @returns The ids of the steps that became ready, in task order.
   */
  promoteReady(taskId: string): string[] {
    const rows = this.stepRows(taskId);
    const states = new Map(rows.map((row) => [row.id, row.state as StepState]));
    const promote = this.database.prepare(
      "UPDATE steps SET state = 'ready', updated_at = ? WHERE task_id = ? AND id = ?",
    );
    const ready: string[] = [];
    for (const row of rows) {
      if (row.state !== "pending") continue;
      const dependsOn = JSON.parse(row.depends_on) as string[];
      if (waitingState(dependsOn, (id) => states.get(id)) === "ready") {
        promote.run(this.time, taskId, row.id);
        ready.push(row.id);
      }
    }
    return ready;
  }
}
