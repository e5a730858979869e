/**
 * The task tools' text for the model: compact, one line a step, with the instructions and results
 * a worker or the creator needs indented below it. The same facts go to `data` as JSON.
 *
 * @module
 */

import { countStates } from "./task_graph.ts";
import type { Step, Task, TaskSummary } from "./task_model.ts";

/** `3 done, 1 ready`, or `no steps`. */
export function countsText(counts: Partial<Record<string, number>>): string {
  const parts = Object.entries(counts).map(([state, count]) => `${count} ${state}`);
  return parts.length === 0 ? "no steps" : parts.join(", ");
}

/** Indents every line of `text` below a step line. */
function indented(label: string, text: string): string {
  const lines = text.split("\n");
  return `    ${label}: ${lines[0] ?? ""}` +
    lines.slice(1).map((line) => `\n      ${line}`).join("");
}

/**
 * One step: `- test [claimed by worker-1] Run the tests (after build)`, then its instructions
 * and result when `details` and they are not empty.
 */
export function stepText(step: Step, details: boolean): string {
  const state = step.owner === null ? step.state : `${step.state} by ${step.owner}`;
  const after = step.depends_on.length === 0 ? "" : ` (after ${step.depends_on.join(", ")})`;
  const lines = [`- ${step.id} [${state}] ${step.title}${after}`];
  if (details && step.instructions !== "") lines.push(indented("instructions", step.instructions));
  if (details && step.result !== null && step.result !== "") {
    lines.push(indented("result", step.result));
  }
  return lines.join("\n");
}

/** A task's head line: `Task task-1 "Ship" (open, created by main)`. */
export function taskHead(task: Pick<Task, "id" | "title" | "state" | "created_by">): string {
  return `Task ${task.id} "${task.title}" (${task.state}, created by ${task.created_by})`;
}

/** The whole task: head, description, closing note, and every step with details. */
export function taskText(task: Task): string {
  const lines = [taskHead(task)];
  if (task.description !== "") lines.push(task.description);
  if (task.result !== null && task.result !== "") lines.push(indented("result", task.result));
  lines.push(`Steps (${countsText(countStates(task.steps.map((step) => step.state)))}):`);
  for (const step of task.steps) lines.push(stepText(step, true));
  return lines.join("\n");
}

/** A listing of tasks, one line each. */
export function listText(tasks: readonly TaskSummary[]): string {
  if (tasks.length === 0) return "No tasks.";
  return tasks.map((task) => `${taskHead(task)}: ${countsText(task.step_counts)}`).join("\n");
}
