/**
 * Pipeline step 8: record one call in the audit — an event in `events.jsonl`, a record in
 * `logs/tools.jsonl`, and for failures a record in `logs/errors.jsonl`. Calls from a model
 * provider also carry `provider: {name, id}`, the raw name and id the model sent.
 *
 * The `logs/tools.jsonl` record keeps what the model sent and got, so that the conversation can be
 * replayed from the run folder alone: the arguments text and the output exactly as the model
 * received it (both redacted), inline up to {@linkcode INLINE_RECORD_BYTES}, above it as an
 * artifact named with its sha256; who approved the call (`approval`); and a command's `exit_code`.
 *
 * @module
 */

import {
  type ArtifactStore,
  type AuditRecorder,
  type Redactor,
  sha256Hex,
  summariseValue,
} from "../audit/mod.ts";
import type { CallApproval } from "../approval/mod.ts";
import type { PolicyDecision } from "../policy/mod.ts";
import { type ArtifactRef, parseJsonWithin, type ToolResult } from "../result/mod.ts";
import { MAX_ARGUMENT_DEPTH } from "../config/base/mod.ts";
import type { ProviderCallOrigin } from "./tool_call.ts";

/**
 * Largest arguments text or output kept inline in a `logs/tools.jsonl` record, in UTF-8 bytes
 * (16 KiB); a longer one is kept as an artifact and the record names it.
 */
export const INLINE_RECORD_BYTES = 16 * 1024;

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
  /**
   * Who let the call run and how; null when nobody did (denied, or an ask nobody answered).
   * @default null
   */
  approval?: CallApproval | null;
  /**
   * The `seq` of the call's `tool.started` event in `events.jsonl`, named by the tools record's
   * `events.started`; null when it was not written.
   * @default null
   */
  started_event?: number | null;
}

/** Where {@linkcode record} keeps texts too long to sit inline in `logs/tools.jsonl`. */
export interface RecordKeeping {
  /** The run's artifact store; without one every text stays inline. */
  artifacts: ArtifactStore;
  /** Redacts the arguments text before it is stored (outputs are redacted when shaped). */
  redactor: Redactor;
  /** Largest text kept inline, in UTF-8 bytes. @default INLINE_RECORD_BYTES */
  inlineBytes?: number;
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

/**
 * Writes the three audit records of one call (the recorder redacts). The `logs/tools.jsonl`
 * record holds:
 *
 * - `arguments`: the arguments text as the model sent it, or null and `arguments_artifact`
 *   (`{ref, sha256, bytes, media_type}`) when longer than the inline size;
 * - `result.output`: the output as the model received it, or null and `result.output_artifact`;
 * - `result.display`: the display blocks a person is shown (`result/display_blocks.ts`), `[]`
 *   when the result has none;
 * - `approval`: `{by: "rule" | "grant" | "session_grant" | "terminal", scope, ...}` or null;
 * - `exit_code` and `signal`, for a command (a result whose data carries `exit_code`);
 * - `events`: `{started, ended}`, the `seq` in `events.jsonl` of the call's `tool.started` event
 *   and of the event that ended it (null for one the file system refused); the error line names
 *   the ended event's `seq` as `event`.
 *
 * @param keeping Where long texts go; without it every text stays inline.
 * @throws Whatever the audit writers or the artifact store throw.
 */
export async function record(
  recorder: AuditRecorder,
  entry: CallRecord,
  keeping: RecordKeeping | null = null,
): Promise<void> {
  const { result, decision } = entry;
  const policy = decision === null ? null : {
    decision: decision.decision,
    rule: decision.rule,
    layer: decision.layer,
    reason: decision.reason,
  };
  const type = eventTypeOf(result);
  const origin = entry.provider === undefined ? {} : { provider: { ...entry.provider } };
  const ended = await recorder.event(type, {
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
  // An artifact the disk refuses leaves the record without that text, still written (when the run
  // reports write failures; see AuditRecorder.absorbWriteFailure).
  const absorb = (error: unknown) => recorder.absorbWriteFailure(error);
  const events = { started: entry.started_event ?? null, ended };
  await recorder.toolRecord({ ...(await toolLine(entry, policy, keeping, absorb)), events });
  if (!result.ok && result.error !== null) {
    await recorder.error({
      source: "tool",
      event: ended,
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

/**
 * Writes the `logs/tools.jsonl` record of a call that never reached the runtime (skipped after a
 * denial or a failed write, or aborted before it started), with `executed: false`: the model
 * still received its result, so the record keeps the arguments and the output like any other.
 * The caller writes its event and error line.
 *
 * @param call The call as the model sent it.
 * @param result The result the model received.
 * @param at When the call was answered. @default new Date()
 * @param endedEvent The `seq` of the call's event (`tool.skipped`…) in `events.jsonl`, written
 *   as `events: {started: null, ended}`. @default null
 */
export async function recordNotRun(
  recorder: Pick<AuditRecorder, "toolRecord">,
  call: { arguments: string; provider?: ProviderCallOrigin },
  result: ToolResult,
  at: Date = new Date(),
  endedEvent: number | null = null,
): Promise<void> {
  // Parsed only when shallow enough for the pipeline: deeper or invalid text stays the text the
  // model sent (summarised), never a value nested past what a walk may enter.
  const parsed = parseJsonWithin(call.arguments, MAX_ARGUMENT_DEPTH);
  const params: unknown = parsed.ok ? parsed.value : call.arguments;
  const line = await toolLine(
    {
      result,
      risk_level: null,
      started: at,
      ended: at,
      params,
      arguments_text: call.arguments,
      decision: null,
      ...(call.provider === undefined ? {} : { provider: call.provider }),
    },
    null,
    null,
  );
  await recorder.toolRecord({
    ...line,
    executed: false,
    events: { started: null, ended: endedEvent },
  });
}

/** The `logs/tools.jsonl` record of a call; see {@linkcode record}. */
async function toolLine(
  entry: CallRecord,
  policy: Record<string, unknown> | null,
  keeping: RecordKeeping | null,
  absorb?: (error: unknown) => void,
): Promise<Record<string, unknown>> {
  const { result } = entry;
  const origin = entry.provider === undefined ? {} : { provider: { ...entry.provider } };
  const argumentsText = keeping === null
    ? entry.arguments_text
    : keeping.redactor.redactText(entry.arguments_text);
  const [keptArguments, keptOutput] = [
    await keep(argumentsText, keeping, "application/json", absorb),
    await keep(result.output, keeping, "text/plain; charset=utf-8", absorb),
  ];
  return {
    tool: result.tool,
    tool_call_id: result.tool_call_id,
    ...origin,
    risk: entry.risk_level,
    ts_start: entry.started.toISOString(),
    ts_end: entry.ended.toISOString(),
    duration_ms: result.duration_ms,
    params: summariseValue(entry.params),
    arguments: keptArguments.text,
    arguments_artifact: keptArguments.artifact,
    result: {
      ok: result.ok,
      summary: result.summary,
      error_type: result.error?.type ?? null,
      artifacts: result.artifacts,
      output: keptOutput.text,
      output_artifact: keptOutput.artifact,
      // What a person is shown (display blocks, already redacted and capped); [] when none.
      display: result.display ?? [],
    },
    ...commandStatus(result.data),
    approval: entry.approval ?? null,
    policy,
    hashes: {
      arguments_sha256: sha256(entry.arguments_text),
      // An output kept whole as an artifact was hashed by the store: the same UTF-8 bytes.
      output_sha256: keptOutput.wholeSha256 ?? sha256(result.output),
    },
  };
}

/**
 * A text inline, or (above the inline size, with a store) the artifact holding it; `wholeSha256`
 * is the sha256 of the text's UTF-8 bytes when the artifact holds all of them, else null.
 */
async function keep(
  text: string,
  keeping: RecordKeeping | null,
  mediaType: string,
  absorb?: (error: unknown) => void,
): Promise<{ text: string | null; artifact: ArtifactRef | null; wholeSha256?: string }> {
  const limit = keeping?.inlineBytes ?? INLINE_RECORD_BYTES;
  if (keeping === null || new TextEncoder().encode(text).byteLength <= limit) {
    return { text, artifact: null };
  }
  // An arguments text that is not JSON (a model's broken call) is still kept, as text.
  let stored;
  try {
    stored = await keeping.artifacts.store(
      text,
      mediaType === "application/json" && !isJson(text) ? "text/plain; charset=utf-8" : mediaType,
    );
  } catch (error: unknown) {
    if (absorb === undefined) throw error;
    absorb(error);
    return { text: null, artifact: null };
  }
  const { ref, sha256, bytes, media_type } = stored;
  const artifact = { ref, sha256, bytes, media_type };
  return stored.truncated
    ? { text: null, artifact }
    : { text: null, artifact, wholeSha256: sha256 };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** `exit_code` and `signal` of a command's result data; nothing for other tools. */
function commandStatus(data: unknown): { exit_code?: number | null; signal?: string | null } {
  if (typeof data !== "object" || data === null || !("exit_code" in data)) return {};
  const { exit_code: exitCode, signal } = data as { exit_code: unknown; signal?: unknown };
  return {
    exit_code: typeof exitCode === "number" ? exitCode : null,
    signal: typeof signal === "string" ? signal : null,
  };
}

function sha256(text: string): string {
  return sha256Hex(text);
}
