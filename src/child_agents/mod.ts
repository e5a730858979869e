/**
 * Agents that start agents (issue 14): the handlers of the agent tools and the task tools for one
 * agent ({@linkcode AgentTools}), the tree every agent of a run shares ({@linkcode AgentTree}),
 * and one child agent run from its parent's call to the call's result.
 *
 * @module
 */

export { type AgentRunParts, type AgentSelf, AgentTools } from "./agent_tools.ts";
export { AgentTree, type AgentTreeOptions, type ChildSessionOptions } from "./agent_tree.ts";
export { recordRunCompleted, recordSystemPrompt } from "./agent_run_records.ts";
export { type ChildRecord, type ChildView, childView } from "./child_outcome.ts";
export { forkHistory } from "./fork_history.ts";
export {
  runTaskStep,
  TASK_ROWS_FILE,
  type TaskStepOptions,
  type TaskStepResult,
} from "./task_step_run.ts";
