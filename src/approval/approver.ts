/**
 * Approvers: who answers an `ask`. The request carries everything a person needs to decide; the
 * answer is one of three choices. An approver that throws or exceeds its time denies (fail closed).
 *
 * @module
 */

/** What an approver is asked. Plain data, also written to `approvals/pending.jsonl`. */
export interface ApprovalRequest {
  tool: string;
  tool_call_id: string;
  permission: "readonly" | "write";
  tags: readonly string[];
  /** 0–4 (Safe … Critical). */
  risk_level: number;
  /** Arguments with long strings summarised. */
  arguments_summary: unknown;
  /**
   * Resolved targets: paths (access, real path), commands (executable, argv, cwd) and hosts
   * (`hostname:port`, `net.fetch`).
   */
  target_scope: {
    paths: { requested: string; real: string; access: string }[];
    commands: { program: string; path: string; argv: readonly string[]; cwd: string }[];
    hosts: string[];
  };
  /** The working folder of the call (the workspace for file tools). */
  cwd: string;
  /** Names of the environment variables a command would get (values never). */
  env_summary: string[];
  dangerous: boolean;
  /** What PreToolUse hooks said, when one asked. */
  hook_result: { hook: string; decision: string; reason: string } | null;
  /** What kagent-run suggests: deny for risk ≥ 3 or a sensitive path, else allow_once. */
  suggested_decision: "allow_once" | "deny";
  /** Which rule asked, from which layer, and why. */
  rule: string;
  layer: string;
  reason: string;
  /**
   * Who asks: the agent's id (`main`, or a child's `<definition>-<n>`), its run, its parent agent
   * and run (null for the main agent), the ancestors' run ids from the root (`parent_ids`), and
   * its role (`main`, `sub`, `fork`, `worker`).
   */
  agent: {
    agent_id: string;
    run_id: string;
    parent_agent_id: string | null;
    parent_run_id: string | null;
    parent_ids: string[];
    role: string;
  };
  policy_hash: string;
}

/** The three answers. `allow_for_session` is remembered for the run as tool + exact scope. */
export type ApprovalChoice = "allow_once" | "allow_for_session" | "deny";

/** An approver's answer. */
export interface ApprovalAnswer {
  decision: ApprovalChoice;
  reason?: string;
}

/** Answers approval requests; may be slow (a person), must be bounded (see the gate's timeout). */
export interface Approver {
  readonly name: string;
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
  /**
   * Whether someone can answer this request (an MCP server serving several clients can ask only
   * those that support elicitation). False: the gate goes on as without an approver (the call
   * ends `approval_required` with its grant). @default always true
   */
  canAnswer?(request: ApprovalRequest): boolean;
}
