/**
 * `--output stream-json`: the run as it goes, one JSON object a line on stdout, made from the
 * run's own `events.jsonl` records (so a line says what the audit says, redacted as it is) and the
 * final report. The shape is documented in docs/STREAM_JSON.md; every line carries `type` and
 * `version` ({@linkcode STREAM_JSON_VERSION}), and a change that would break a reader raises the
 * version.
 *
 * @module
 */

import type { Redactor } from "../audit/mod.ts";
import { reportJson } from "./_ci_output.ts";
import type { RunSummary } from "../report/mod.ts";

/** The version of the line shapes; raised when a field is removed or changes meaning. */
export const STREAM_JSON_VERSION = 1;

/** The `type` of each line, in the order a run prints them. */
export const STREAM_JSON_TYPES = [
  "run.started",
  "model.responded",
  "tool.started",
  "approval.needed",
  "agent.started",
  "agent.ended",
  "tool.ended",
  "run.ended",
] as const;

/** One line's `type`. */
export type StreamJsonType = (typeof STREAM_JSON_TYPES)[number];

/** What every line starts with. */
export interface StreamJsonBase {
  type: StreamJsonType;
  version: typeof STREAM_JSON_VERSION;
  /** ISO-8601 UTC with milliseconds: the audit record's time (for `run.ended`, the line's). */
  ts: string;
  run_id: string;
  /** The `seq` of the `events.jsonl` line this one comes from; absent on `run.ended`. */
  event_seq?: number;
}

/** A `model.responded` line's own fields. */
export interface StreamJsonModelTurn {
  /** The turn's number, from 1 (a retried turn repeats its number). */
  turn: number;
  /** `script`, `openai` or `anthropic`. */
  provider: string;
  /** The model's name; null for the script provider. */
  model: string | null;
  /**
   * Token counts the provider reported for the turn, or null; the cache and reasoning counts only
   * when the provider sent them (as the `model.responded` event's).
   */
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
    reasoning_tokens?: number;
  } | null;
  /** Milliseconds the model took to answer, or null when not measured. */
  duration_ms: number | null;
  /** A streamed answer: milliseconds from the request to its first token; absent otherwise. */
  first_token_ms?: number;
  /** `end`, `truncated`, `refused`, `context_window_exceeded` or `paused`. */
  stop_reason: string;
  tool_calls: { id: string; name: string }[];
  text: string | null;
}

/** What {@linkcode streamLineOf} needs besides the record. */
export interface StreamContext {
  /** The run's model name (after `--model`); null for the script provider. */
  model: string | null;
  /** The next measured model answer time in milliseconds (one a `model.responded`), or null. */
  takeTurnDuration: () => number | null;
}

const str = (value: unknown): string => typeof value === "string" ? value : String(value ?? "");

/**
 * The stream line for one `events.jsonl` record, or null for a record the stream leaves out
 * (`network_boundary.measured`, `hook.*`, `run.completed` (the CLI prints `run.ended` from the
 * final report instead)…).
 *
 * @param record An event record as written (`AuditRecorder.observeEvents`).
 * @param context The model name and the turn timer.
 * @returns The line's object, not yet redacted or serialised.
 * @example
 * ```ts
 * import { streamLineOf } from "./_stream_json.ts";
 * const line = streamLineOf(
 *   { type: "tool.started", ts: "2026-01-01T00:00:00.000Z", run_id: "r", seq: 4, tool_call_id: "c", tool: "fs.read_file" },
 *   { model: null, takeTurnDuration: () => null },
 * );
 * console.assert(line?.type === "tool.started" && line.version === 1 && line.event_seq === 4);
 * ```
 */
export function streamLineOf(
  record: Readonly<Record<string, unknown>>,
  context: StreamContext,
): (StreamJsonBase & Record<string, unknown>) | null {
  const base = (type: StreamJsonType): StreamJsonBase => ({
    type,
    version: STREAM_JSON_VERSION,
    ts: str(record.ts),
    run_id: str(record.run_id),
    ...(typeof record.seq === "number" ? { event_seq: record.seq } : {}),
  });
  switch (record.type) {
    case "run.started":
      return {
        ...base("run.started"),
        task: record.task ?? null,
        model: record.model ?? null,
        workspace: record.workspace,
        run_dir: record.run_dir,
        policy_hash: record.policy_hash,
        tools: record.tools,
      };
    case "model.responded": {
      const stop = record.stop as { reason?: unknown } | undefined;
      const calls = (record.tool_calls as { id: string; name: string }[] | undefined) ?? [];
      const turn: StreamJsonModelTurn = {
        turn: record.turn as number,
        provider: str(record.provider),
        model: context.model,
        usage: (record.usage as StreamJsonModelTurn["usage"]) ?? null,
        duration_ms: context.takeTurnDuration(),
        ...(typeof record.first_token_ms === "number"
          ? { first_token_ms: record.first_token_ms }
          : {}),
        stop_reason: str(stop?.reason),
        tool_calls: calls.map((call) => ({ id: call.id, name: call.name })),
        text: (record.text as string | null | undefined) ?? null,
      };
      return { ...base("model.responded"), ...turn };
    }
    case "tool.started":
      return { ...base("tool.started"), tool_call_id: record.tool_call_id, tool: record.tool };
    case "tool.completed":
    case "tool.failed":
    case "tool.denied":
    case "tool.skipped": {
      const policy = record.policy as
        | { decision: string; rule: string; layer: string }
        | null
        | undefined;
      return {
        ...base("tool.ended"),
        tool_call_id: record.tool_call_id,
        tool: record.tool,
        status: str(record.type).slice("tool.".length),
        decision: policy?.decision ?? null,
        rule: policy?.rule ?? null,
        layer: policy?.layer ?? null,
        summary: record.summary,
        error_type: record.error_type ?? null,
        duration_ms: record.duration_ms,
      };
    }
    case "approval.requested":
      return {
        ...base("approval.needed"),
        tool_call_id: record.tool_call_id,
        tool: record.tool,
        rule: record.rule,
        scope: record.scope,
        approver: record.approver ?? null,
      };
    case "agent.started":
    case "agent.completed": {
      const { type: _type, ts: _ts, run_id: _run, seq: _seq, ...fields } = record;
      const type = record.type === "agent.started" ? "agent.started" : "agent.ended";
      return { ...base(type), ...fields };
    }
    default:
      return null;
  }
}

/**
 * The last line: `run.ended` with the fields of `--output json` (`end_reason`, `final_text`,
 * `error`, counts, `deliverables`, `approvals_needed`, `replay`…).
 *
 * @param summary The sealed run's summary.
 * @param redactor The run's redactor.
 * @param now The line's time. @default new Date()
 */
export function runEndedLine(
  summary: RunSummary,
  redactor: Redactor,
  now: Date = new Date(),
): StreamJsonBase & Record<string, unknown> {
  const result = JSON.parse(reportJson(summary, redactor)) as Record<string, unknown>;
  return {
    type: "run.ended",
    version: STREAM_JSON_VERSION,
    ts: now.toISOString(),
    run_id: summary.run_id,
    ...result,
  };
}

/**
 * One line of the stream: the object redacted by `redactor` (values of `audit.secret_env`
 * variables, token patterns), then serialised, with its newline.
 *
 * @example
 * ```ts
 * import { Redactor } from "../audit/mod.ts";
 * import { formatStreamLine } from "./_stream_json.ts";
 * const redactor = new Redactor({ secrets: ["s3cr3t-value-1234"] });
 * const line = formatStreamLine({ type: "tool.started", tool: "s3cr3t-value-1234" }, redactor);
 * console.assert(!line.includes("s3cr3t") && line.endsWith("}\n"));
 * ```
 */
export function formatStreamLine(line: Record<string, unknown>, redactor: Redactor): string {
  return `${JSON.stringify(redactor.redactValue(line))}\n`;
}
