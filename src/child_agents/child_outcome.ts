/**
 * A child agent as its parent sees it: the record kept while it runs and after, the view
 * `agent.inspect_agent` and `agent.list_workers` show, and the ToolResult its start call answers
 * with (final answer, end reason, usage, run id).
 *
 * @module
 */

import type { AgentOutcome, TokenUsage } from "../agent/mod.ts";
import { type ErrorType, failure, type ToolOutcome } from "../result/mod.ts";

/** One child agent started by an agent. */
export interface ChildRecord {
  child_run_id: string;
  agent_id: string;
  definition: string;
  agent_type: "sub" | "fork" | "worker";
  depth: number;
  /** The child's run folder, relative to its parent's: `agents/<child_run_id>`. */
  run_dir: string;
  /** The parent's call that started it. */
  tool_call_id: string;
  /** Null while it runs. */
  outcome: AgentOutcome | null;
}

/** What {@linkcode childView} returns. */
export interface ChildView {
  child_run_id: string;
  agent_id: string;
  definition: string;
  agent_type: string;
  depth: number;
  run_dir: string;
  state: "running" | "ended";
  end_reason: string | null;
  final_text: string | null;
  turns: number | null;
  usage: TokenUsage | null;
  error: string | null;
}

/**
 * The plain view of a child: identity, state, end reason, answer, usage.
 *
 * @example
 * ```ts
 * import { childView } from "./child_outcome.ts";
 * const view = childView({
 *   child_run_id: "r2", agent_id: "reviewer-1", definition: "reviewer", agent_type: "sub",
 *   depth: 2, run_dir: "agents/r2", tool_call_id: "c1", outcome: null,
 * });
 * console.assert(view.state === "running");
 * ```
 */
export function childView(record: ChildRecord): ChildView {
  const outcome = record.outcome;
  return {
    child_run_id: record.child_run_id,
    agent_id: record.agent_id,
    definition: record.definition,
    agent_type: record.agent_type,
    depth: record.depth,
    run_dir: record.run_dir,
    state: outcome === null ? "running" : "ended",
    end_reason: outcome?.end_reason ?? null,
    final_text: outcome?.final_text ?? null,
    turns: outcome?.turns ?? null,
    usage: outcome?.usage ?? null,
    error: outcome?.error ?? null,
  };
}

/**
 * The start call's outcome for an ended child: ok with its final answer when it completed;
 * otherwise `aborted` (the run was interrupted) or `agent_failed` (max turns, model error), each
 * with the same data: child run id, agent id, type, end reason, usage, turns, run folder.
 */
export function childOutcome(record: ChildRecord, outcome: AgentOutcome): ToolOutcome {
  const view = childView({ ...record, outcome });
  const usage = outcome.usage === null
    ? "no usage reported"
    : `${outcome.usage.input_tokens} input and ${outcome.usage.output_tokens} output tokens`;
  const header = `${record.agent_type} agent ${record.agent_id} (run ${record.child_run_id}) ` +
    `ended ${outcome.end_reason} after ${outcome.turns} turns, ${usage}`;
  if (outcome.end_reason === "completed") {
    return {
      ok: true,
      summary: header,
      output: `${header}.\n\n${outcome.final_text ?? "(no final message)"}`,
      data: view,
      error: null,
    };
  }
  const type: ErrorType = outcome.end_reason === "aborted" ||
      outcome.end_reason === "aborted_tools"
    ? "aborted"
    : "agent_failed";
  const why = outcome.error === null ? "" : `: ${outcome.error}`;
  const failed = failure(type, `Cannot complete ${header}${why}`, {
    child_run_id: record.child_run_id,
    end_reason: outcome.end_reason,
    ...(type === "aborted"
      ? { aborted: true, partial: true, abort_reason: outcome.end_reason }
      : {}),
  });
  return { ...failed, data: view };
}
