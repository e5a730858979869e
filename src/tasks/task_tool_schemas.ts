/**
 * The arguments of the task tools as zod schemas: their JSON Schema is what the model sees (inside
 * the supported subset), and `TaskTools` parses with them again before it touches the store.
 * Lengths are in characters here; the store checks the same bounds in UTF-8 bytes.
 *
 * @module
 */

import { z } from "zod";
import {
  MAX_RESULT_BYTES,
  MAX_STEPS_PER_TASK,
  MAX_TEXT_BYTES,
  MAX_TITLE_BYTES,
  STEP_STATES,
  TASK_STATES,
} from "./task_model.ts";

const taskId = z.string().min(1).max(64).describe('The task id the store gave, e.g. "task-1"');
const stepId = z.string().min(1).max(64).describe(
  'A step id, unique in its task: letters, digits, "_", "-", "." (e.g. "build")',
);
const title = z.string().min(1).max(MAX_TITLE_BYTES);

const newStep = z.strictObject({
  id: stepId,
  title: title.describe("One line: what the step achieves"),
  instructions: z.string().max(MAX_TEXT_BYTES).optional().describe(
    "What the agent that claims the step must do, and what to report",
  ),
  depends_on: z.array(stepId).max(MAX_STEPS_PER_TASK - 1).optional().describe(
    "Ids of steps of the same task that must be done first; no cycles",
  ),
});

/** `agent.plan_template` and `agent.task_template`: no arguments. */
export const NO_ARGUMENTS = z.strictObject({});

/** `agent.task_create`. */
export const TASK_CREATE = z.strictObject({
  title: title.describe("One line: what the task achieves"),
  description: z.string().max(MAX_TEXT_BYTES).optional().describe(
    "The goal, context and what done means, for every agent working on it",
  ),
  steps: z.array(newStep).min(1).max(MAX_STEPS_PER_TASK).describe(
    `The steps, 1 to ${MAX_STEPS_PER_TASK}, forming a graph without cycles`,
  ),
});

/** `agent.task_get`. */
export const TASK_GET = z.strictObject({ task_id: taskId });

/** `agent.task_list`. */
export const TASK_LIST = z.strictObject({
  states: z.array(z.enum(TASK_STATES)).optional().describe(
    "Only tasks in these states; all when absent",
  ),
});

/** `agent.task_update`. */
export const TASK_UPDATE = z.strictObject({
  task_id: taskId,
  title: title.optional().describe("A new title"),
  description: z.string().max(MAX_TEXT_BYTES).optional().describe("A new description"),
  edit_steps: z.array(z.strictObject({
    id: stepId,
    title: title.optional(),
    instructions: z.string().max(MAX_TEXT_BYTES).optional(),
  })).max(MAX_STEPS_PER_TASK).optional().describe(
    "New title or instructions of steps not yet claimed",
  ),
  add_steps: z.array(newStep).max(MAX_STEPS_PER_TASK).optional().describe(
    "Steps to add; they may depend on existing steps and on each other",
  ),
  retry_steps: z.array(stepId).max(MAX_STEPS_PER_TASK).optional().describe(
    "Failed steps (or claimed ones whose agent stopped) to make claimable again",
  ),
});

/** `agent.task_query_steps`. */
export const TASK_QUERY_STEPS = z.strictObject({
  task_id: taskId,
  states: z.array(z.enum(STEP_STATES)).optional().describe(
    'Only steps in these states, e.g. ["ready"]; all when absent',
  ),
  mine: z.boolean().optional().describe("Only the steps you claimed"),
});

/** `agent.task_claim_step`. */
export const TASK_CLAIM_STEP = z.strictObject({
  task_id: taskId,
  step_id: stepId.optional().describe("The ready step to claim; the first ready one when absent"),
});

/** `agent.task_update_step`. */
export const TASK_UPDATE_STEP = z.strictObject({
  task_id: taskId,
  step_id: stepId,
  state: z.enum(["done", "failed"]).describe("done when the step is achieved, failed if not"),
  result: z.string().max(MAX_RESULT_BYTES).describe(
    "What you did and found (done), or why it failed (failed); other agents read it",
  ),
});

/** `agent.task_complete`. */
export const TASK_COMPLETE = z.strictObject({
  task_id: taskId,
  summary: z.string().max(MAX_RESULT_BYTES).optional().describe("What the task achieved"),
});

/** `agent.task_fail`. */
export const TASK_FAIL = z.strictObject({
  task_id: taskId,
  reason: z.string().min(1).max(MAX_RESULT_BYTES).describe("Why the task failed"),
});

/** `agent.task_cancel`. */
export const TASK_CANCEL = z.strictObject({
  task_id: taskId,
  reason: z.string().max(MAX_RESULT_BYTES).optional().describe("Why the task is cancelled"),
});
