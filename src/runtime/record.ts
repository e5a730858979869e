/**
 * Pipeline step 8: record one call in the audit — an event in `events.jsonl`, a record in
 * `logs/tools.jsonl`, and for failures a record in `logs/errors.jsonl`. Calls from a model
 * provider also carry `provider: {name, id}`, the raw name and id the model sent.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { AuditRecorder } from "../audit/mod.ts";
import { summariseValue } from "../audit/mod.ts";
import type { PolicyDecision } from "../policy/policy_rule.ts";
import type { ToolResult } from "../tools/tool_result.ts";
import type { ProviderCallOrigin } from "./tool_call.ts";

/** Everything known about a finished call. */
export interface CallRecord {
  result: ToolResult;
  /** Risk level of the tool, or null when the tool is unknown. */
  risk_level: number | null;
  started: Date;
  ended: Date;
  /** Parsed arguments, or the raw text when they did not parse. */
  params: unknown;
  arguments_text: string;
  decision: PolicyDecision | null;
  /**
   * The call's raw provider name and id (`ToolCall.provider`), written as `provider` in the
   * `tool.*` event, the `logs/tools.jsonl` record and the `logs/errors.jsonl` line when present.
   */
  provider?: ProviderCallOrigin;
}

/** The event type of a finished call: denied by lookup, policy, or approval; failed; completed. */
export function eventTypeOf(result: ToolResult): "tool.completed" | "tool.failed" | "tool.denied" {
  if (result.ok) return "tool.completed";
  const type = result.error?.type;
  const denied = type === "tool_not_available" || type === "permission_denied" ||
    type === "path_outside_sandbox" ||
    type === "approval_required" || type === "approval_denied" || type === "hook_denied" ||
    type === "sensitive_path";
  return denied ? "tool.denied" : "tool.failed";
}

/** Writes the three audit records of one call (the recorder redacts). */
export async function record(recorder: AuditRecorder, entry: CallRecord): Promise<void> {
  const { result, decision } = entry;
  const policy = decision === null ? null : {
    decision: decision.decision,
    rule: decision.rule,
    layer: decision.layer,
    reason: decision.reason,
  };
  const type = eventTypeOf(result);
  const origin = entry.provider === undefined ? {} : { provider: { ...entry.provider } };
  await recorder.event(type, {
    tool_call_id: result.tool_call_id,
    tool: result.tool,
    ...origin,
    ok: result.ok,
    summary: result.summary,
    error_type: result.error?.type ?? null,
    duration_ms: result.duration_ms,
    policy,
    artifacts: result.artifacts.map((artifact) => artifact.ref),
  });
  await recorder.toolRecord({
    tool: result.tool,
    tool_call_id: result.tool_call_id,
    ...origin,
    risk: entry.risk_level,
    ts_start: entry.started.toISOString(),
    ts_end: entry.ended.toISOString(),
    duration_ms: result.duration_ms,
    params: summariseValue(entry.params),
    result: {
      ok: result.ok,
      summary: result.summary,
      error_type: result.error?.type ?? null,
      artifacts: result.artifacts,
    },
    policy,
    hashes: {
      arguments_sha256: sha256(entry.arguments_text),
      output_sha256: sha256(result.output),
    },
  });
  if (!result.ok && result.error !== null) {
    await recorder.error({
      source: "tool",
      tool: result.tool,
      tool_call_id: result.tool_call_id,
      ...origin,
      error_type: result.error.type,
      message: result.error.message,
      details: result.error.details,
      policy,
    });
  }
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
