/**
 * Agents that start agents (issue 14): the handlers of the agent tools and the task tools for one
 * agent ({@linkcode AgentTools}), the tree every agent of a run shares ({@linkcode AgentTree}),
 * and one child agent run from its parent's call to the call's result.
 *
 * @module
 */

export { AgentTools } from "./agent_tools.ts";
export { AgentTree, type ChildSessionOptions } from "./agent_tree.ts";
export { recordSystemPrompt } from "./agent_run_records.ts";

export { runTaskStep, TASK_ROWS_FILE, type TaskStepResult } from "./task_step_run.ts";
