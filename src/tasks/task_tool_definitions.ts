/**
 * The plan and task tools as kagent-run tool definitions (canonical names from the design:
 * `agent.plan_template`, `agent.task_*`). Their handlers run on the main thread, where the run's
 * task store lives ({@linkcode TaskTools}), never in the tool Worker.
 *
 * @module
 */

import type { z } from "zod";
import { defineTool, type ToolDefinition } from "../tools/mod.ts";
import {
  NO_ARGUMENTS,
  TASK_CANCEL,
  TASK_CLAIM_STEP,
  TASK_COMPLETE,
  TASK_CREATE,
  TASK_FAIL,
  TASK_GET,
  TASK_LIST,
  TASK_QUERY_STEPS,
  TASK_UPDATE,
  TASK_UPDATE_STEP,
} from "./task_tool_schemas.ts";

/** Every plan and task tool, in the order they are listed. */
export const TASK_TOOL_NAMES = [
  "agent.plan_template",
  "agent.task_template",
  "agent.task_create",
  "agent.task_get",
  "agent.task_list",
  "agent.task_update",
  "agent.task_query_steps",
  "agent.task_claim_step",
  "agent.task_update_step",
  "agent.task_complete",
  "agent.task_fail",
  "agent.task_cancel",
] as const;

/** One of {@linkcode TASK_TOOL_NAMES}. */
export type TaskToolName = typeof TASK_TOOL_NAMES[number];

/**
 * The task tools a `sub`, `fork` or `worker` agent may have (the design's hard-coded rule: read
 * a task, query its steps, claim a step, report its own claimed step; never plan, create, change
 * or close a task). It is also the default worker set's task part.
 */
export const CHILD_TASK_TOOL_NAMES: readonly TaskToolName[] = [
  "agent.task_get",
  "agent.task_query_steps",
  "agent.task_claim_step",
  "agent.task_update_step",
];

/** The zod schema of each tool's arguments; `TaskTools` parses with the same ones. */
export const TASK_TOOL_SCHEMAS: Readonly<Record<TaskToolName, z.ZodObject>> = {
  "agent.plan_template": NO_ARGUMENTS,
  "agent.task_template": NO_ARGUMENTS,
  "agent.task_create": TASK_CREATE,
  "agent.task_get": TASK_GET,
  "agent.task_list": TASK_LIST,
  "agent.task_update": TASK_UPDATE,
  "agent.task_query_steps": TASK_QUERY_STEPS,
  "agent.task_claim_step": TASK_CLAIM_STEP,
  "agent.task_update_step": TASK_UPDATE_STEP,
  "agent.task_complete": TASK_COMPLETE,
  "agent.task_fail": TASK_FAIL,
  "agent.task_cancel": TASK_CANCEL,
};

const DESCRIPTIONS: Readonly<Record<TaskToolName, string>> = {
  "agent.plan_template": "Returns the template of a plan (goal, facts, steps with dependencies " +
    "and checks, risks). Fill it in before a task of several steps, then turn its steps into " +
    "agent.task_create.",
  "agent.task_template": "Returns an example of agent.task_create's arguments with the rules " +
    "of a task: step ids, dependencies without cycles, what a step's instructions should say.",
  "agent.task_create": "Creates a task: a graph of steps with dependencies that you or worker " +
    "agents claim and complete. Steps without dependencies are ready at once; a step becomes " +
    "ready when all its dependencies are done. Returns the task id. At most 100 steps.",
  "agent.task_get": "Shows a task: its state and every step with state, owner and result.",
  "agent.task_list": "Lists the tasks of this run with their states and step counts.",
  "agent.task_update": "Changes a task you created while it is open: title, description, " +
    "instructions of steps not yet claimed, new steps, or retry of failed steps.",
  "agent.task_query_steps": 'Lists steps of a task, e.g. states ["ready"] to find work, or ' +
    "mine: true for the steps you claimed.",
  "agent.task_claim_step": "Claims a ready step so that only you work on it (the first ready " +
    "one when step_id is absent). Fails when another agent claimed it first: pick another.",
  "agent.task_update_step": "Reports a step you claimed as done (with what you did and found) " +
    "or failed (with why). Done steps make their dependents ready.",
  "agent.task_complete": "Completes a task you created once every step is done.",
  "agent.task_fail": "Ends a task you created as failed, with the reason; its unfinished steps " +
    "are cancelled.",
  "agent.task_cancel": "Cancels a task you created; its unfinished steps are cancelled.",
};

/** Tools that only read: idempotent, risk 0. The others change the run's task store. */
const READING: ReadonlySet<TaskToolName> = new Set([
  "agent.plan_template",
  "agent.task_template",
  "agent.task_get",
  "agent.task_list",
  "agent.task_query_steps",
]);

/**
 * Tells whether a plan or task tool changes the task store (create, update, claim, report,
 * close): every one but the templates, `agent.task_get`, `agent.task_list` and
 * `agent.task_query_steps`. A scheduler that keeps the model's order for state changes treats
 * these as boundaries although their permission is `readonly`.
 */
export function changesTaskStore(name: string): boolean {
  return (TASK_TOOL_NAMES as readonly string[]).includes(name) &&
    !READING.has(name as TaskToolName);
}

/**
 * The definitions of the plan and task tools, for the registry.
 *
 * Permission: every one is `readonly` (and so, by the registry's rule, `read_only`), so the
 * default policy allows them without asking. The design defines `readonly`/`write` by external
 * side effects and changes to the project ("readonly/write 权限只表示外部副作用或项目目录修改风险";
 * internal tools that write the core's own state, such as `load_skill`, stay readonly); these
 * tools touch nothing but the run's own task store, which no other tool can reach. The ones that
 * change the store are marked `idempotent: false` and risk 1 (Low), see
 * {@linkcode changesTaskStore}; the reading ones are idempotent, risk 0. Tags: `agent` and `task`
 * (`plan` for `agent.plan_template`), category `agent`, for policy rules and listings.
 *
 * Consequence for scheduling: a turn's consecutive readonly calls run in parallel, so two task
 * calls of one turn (report a step, claim the next) may reach the store in either order; each is
 * atomic, and a claim that came too early fails `state_conflict` for the model to retry.
 *
 * Which agent types get which of them is the policy's choice; {@linkcode CHILD_TASK_TOOL_NAMES}
 * names the set children may have. The handlers run on the main thread: calling one in the tool
 * Worker throws.
 *
 * @returns One definition per name of {@linkcode TASK_TOOL_NAMES}, in that order.
 * @example
 * ```ts
 * import { ToolRegistry } from "../tools/mod.ts";
 * import { taskToolDefinitions } from "./task_tool_definitions.ts";
 * const registry = new ToolRegistry();
 * for (const definition of taskToolDefinitions()) registry.register(definition);
 * console.assert(registry.get("agent.task_claim_step")?.definition.permission === "readonly");
 * ```
 */
export function taskToolDefinitions(): ToolDefinition[] {
  return TASK_TOOL_NAMES.map((name) => {
    const reading = READING.has(name);
    return defineTool({
      name,
      description: DESCRIPTIONS[name],
      parameters: TASK_TOOL_SCHEMAS[name],
      permission: "readonly",
      tags: ["agent", name === "agent.plan_template" ? "plan" : "task"],
      annotations: {
        read_only: true,
        idempotent: reading,
        risk_level: reading ? 0 : 1,
        category: "agent",
      },
      handler() {
        throw new Error(`Task tool "${name}" runs on the main thread, not in the tool Worker`);
      },
    });
  });
}
