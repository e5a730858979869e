/**
 * Agents that start agents (issue 14): the handlers of the agent tools and the task tools for one
 * agent (`AgentTools`), the tree every agent of a run shares, one child agent run from its
 * parent's call to the call's result, and one step of a shared task worked by a worker.
 *
 * @module
 */

export { mainAgentTools } from "./main_agent_tools.ts";
export { runTaskStep, TASK_ROWS_FILE, type TaskStepResult } from "./task_step_run.ts";
