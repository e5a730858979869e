/**
 * The fields that several event types of {@link ./audit_event.ts} start with. Private to the
 * folder.
 *
 * @module
 */

/** The fields every `approval.*` event starts with. */
export interface ApprovalBase {
  tool_call_id: string;
  tool: string;
  /** The id of the rule that asked. */
  rule: string;
  /** The call's targets as a grant names them (`<workspace>/.env`, `git status`…). */
  scope: string[];
}

/** The fields every `agent.*` event (a child agent run started by a call) starts with. */
export interface ChildAgentBase {
  /** The parent's call that started the child. */
  tool_call_id: string;
  /** The child's run id; its folder is `agents/<child_run_id>/` in this run's folder. */
  child_run_id: string;
  /** The child's agent id, `<definition>-<n>` (unique in the agent tree). */
  agent_id: string;
  /** The `agents` entry it was started from. */
  definition: string;
  /** `sub`, `fork` or `worker`. */
  agent_type: string;
  /** Its level in the agent tree (the main agent is 1). */
  depth: number;
}
