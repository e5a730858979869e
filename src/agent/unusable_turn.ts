/**
 * A model turn that ended badly — cut off at the output limit, refused, or out of context window —
 * is never acted on: its tool calls are answered "not executed" in the audit (a `tool.skipped`
 * event, a `logs/tools.jsonl` record and a `logs/errors.jsonl` line each, with `executed: false`),
 * and the run's error names what happened and what to change.
 *
 * @module
 */

import { type AuditRecorder, sha256Hex, summariseValue } from "../audit/mod.ts";
import { type ToolCall, unrunResult } from "../runtime/mod.ts";
import { failure, type ToolResult } from "../result/mod.ts";
import type { TurnStop, TurnStopReason } from "./model_provider.ts";

/** The stop reasons that make a turn unusable. */
export type UnusableStopReason = Exclude<TurnStopReason, "end" | "paused">;

/**
 * Whether a turn that ended with `stop` must never be acted on: cut off, refused, or out of
 * context window. `end` and `paused` are usable.
 *
 * @example
 * ```ts
 * import { isUnusable } from "./unusable_turn.ts";
 * console.assert(isUnusable({ reason: "refused", provider: { stop_reason: "refusal" } }));
 * console.assert(!isUnusable({ reason: "end", provider: { stop_reason: "end_turn" } }));
 * ```
 */
export function isUnusable(stop: TurnStop): stop is TurnStop & { reason: UnusableStopReason } {
  return stop.reason === "truncated" || stop.reason === "refused" ||
    stop.reason === "context_window_exceeded";
}

const REFUSAL_EXCERPT = 500;

/** `finish_reason "length"`, from the provider's own stop fields. */
function stopFields(stop: TurnStop): string {
  const fields = Object.entries(stop.provider).map(([key, value]) =>
    `${key} ${JSON.stringify(value)}`
  );
  return fields.length === 0 ? "no stop field" : fields.join(", ");
}

/** What happened to the turn, one clause without the advice. */
function whatHappened(stop: TurnStop & { reason: UnusableStopReason }): string {
  switch (stop.reason) {
    case "truncated":
      return `the answer was cut off at the output limit (${stopFields(stop)}${
        stop.max_tokens === null || stop.max_tokens === undefined
          ? ""
          : `, max_tokens ${stop.max_tokens}`
      })`;
    case "refused": {
      if (stop.refusal === undefined) return `the model refused (${stopFields(stop)})`;
      const text = stop.refusal.length <= REFUSAL_EXCERPT
        ? stop.refusal
        : `${stop.refusal.slice(0, REFUSAL_EXCERPT)}…`;
      return `the model refused (${stopFields(stop)}): ${JSON.stringify(text)}`;
    }
    case "context_window_exceeded":
      return `the conversation no longer fits the model's context window (${stopFields(stop)})`;
  }
}

/**
 * The run's error for an unusable turn, in house style: what failed, the provider's stop fields,
 * the calls not executed, and what to change.
 *
 * @param provider The provider's name (`openai`, `anthropic`).
 * @param turn The turn number, from 1.
 * @param calls The turn's calls (after ids were made unique), none of which ran.
 * @param retriedAt For a truncated turn retried once: the limit of the retry.
 * @example
 * ```ts
 * import { describeUnusableTurn } from "./unusable_turn.ts";
 * const message = describeUnusableTurn("openai", 2, {
 *   reason: "truncated",
 *   provider: { finish_reason: "length" },
 *   max_tokens: 100,
 * }, []);
 * console.assert(message.startsWith('Cannot use turn 2 of "openai": the answer was cut off'));
 * ```
 */
export function describeUnusableTurn(
  provider: string,
  turn: number,
  stop: TurnStop & { reason: UnusableStopReason },
  calls: readonly ToolCall[],
  retriedAt: number | null = null,
): string {
  const retried = retriedAt === null ? "" : ` again after one retry at max_tokens ${retriedAt}`;
  const notRun = calls.length === 0
    ? ""
    : `; its ${calls.length === 1 ? "tool call" : `${calls.length} tool calls`} (${
      calls.map((call) => `${call.id} ${call.name}`).join(", ")
    }) ${calls.length === 1 ? "was" : "were"} not executed`;
  const advice = stop.reason === "truncated"
    ? retriedAt === null
      ? `; raise "model.max_tokens" or set "model.retry_truncated": true`
      : `; raise "model.max_tokens"`
    : stop.reason === "context_window_exceeded"
    ? "; split the task or use a model with a larger context window"
    : "";
  return `Cannot use turn ${turn} of "${provider}": ${
    whatHappened(stop)
  }${retried}${notRun}${advice}`;
}

/**
 * The output limit for the one retry of a truncated turn (`model.retry_truncated`): twice the
 * limit the cut-off request carried or, when it carried none (OpenAI without `model.max_tokens`),
 * twice the output tokens the cut-off answer reported. Twice, because the cut-off answer filled
 * its whole limit: doubling gives it as much room again as it already used (enough to finish a
 * tool call cut partway) while bounding the cost: one retry, so a turn costs at most three times
 * its limit in output tokens. A model that asks for more than its own maximum gets an HTTP error
 * from the provider, which ends the run `model_error` as well.
 *
 * @param outputTokens The cut-off answer's output tokens, when the provider reported them.
 * @returns The retry's limit, or `null` when no limit is known (the run ends without a retry).
 * @example
 * ```ts
 * import { truncatedRetryLimit } from "./unusable_turn.ts";
 * const stop = { reason: "truncated" as const, provider: {}, max_tokens: 4096 };
 * console.assert(truncatedRetryLimit(stop, null) === 8192);
 * ```
 */
export function truncatedRetryLimit(stop: TurnStop, outputTokens: number | null): number | null {
  const used = stop.max_tokens ?? outputTokens;
  return used === null || used === undefined || used < 1 ? null : used * 2;
}

/**
 * What `errors.jsonl` and the run's outcome (`error_details`) carry about an unusable turn: the
 * turn number, `stop` (the reason and the provider's stop fields), the refusal text, the limit the
 * request carried, and the ids of the calls not executed.
 *
 * @example
 * ```ts
 * import { unusableTurnDetails } from "./unusable_turn.ts";
 * const details = unusableTurnDetails(1, {
 *   reason: "refused",
 *   provider: { finish_reason: "stop" },
 *   refusal: "No.",
 * }, []);
 * console.assert(details.refusal === "No.");
 * ```
 */
export function unusableTurnDetails(
  turn: number,
  stop: TurnStop & { reason: UnusableStopReason },
  calls: readonly ToolCall[],
): Record<string, unknown> {
  return {
    turn,
    stop: { reason: stop.reason, ...stop.provider },
    ...(stop.refusal === undefined ? {} : { refusal: stop.refusal }),
    ...(stop.max_tokens === undefined ? {} : { max_tokens: stop.max_tokens }),
    not_executed: calls.map((call) => call.id),
  };
}

/**
 * Records each call of an unusable turn as not executed and returns its result (`ok: false`,
 * `error.type` `skipped`, `details: {not_executed: <reason>, executed: false, stop}`). Nothing is
 * run; the arguments (possibly cut mid-value) are kept inline as the model sent them (the
 * recorder redacts), in the same `logs/tools.jsonl` shape as a call that ran.
 *
 * @param recorder The run's recorder (redacts).
 * @param turn The turn number, from 1.
 * @param now The clock for `ts_start`/`ts_end`.
 * @returns One result per call, in order.
 * @example
 * ```ts ignore
 * const results = await recordNotExecuted(session.recorder, 2, turn.stop, calls, () => new Date());
 * ```
 */
export async function recordNotExecuted(
  recorder: Pick<AuditRecorder, "event" | "toolRecord" | "error">,
  turn: number,
  stop: TurnStop & { reason: UnusableStopReason },
  calls: readonly ToolCall[],
  now: () => Date,
): Promise<ToolResult[]> {
  const results: ToolResult[] = [];
  for (const call of calls) {
    const message = `Cannot run tool "${call.name}": not executed because ${whatHappened(stop)}`;
    const details = {
      not_executed: stop.reason,
      executed: false,
      turn,
      stop: { reason: stop.reason, ...stop.provider },
    };
    const outcome = failure("skipped", message, details);
    const result: ToolResult = unrunResult(call, outcome);
    const origin = call.provider === undefined ? {} : { provider: { ...call.provider } };
    const at = now().toISOString();
    const event = await recorder.event("tool.skipped", {
      tool_call_id: call.id,
      tool: call.name,
      ...origin,
      ok: false,
      executed: false,
      summary: result.summary,
      error_type: "skipped",
      duration_ms: 0,
      details,
    });
    await recorder.toolRecord({
      tool: call.name,
      tool_call_id: call.id,
      ...origin,
      executed: false,
      risk: null,
      ts_start: at,
      ts_end: at,
      duration_ms: 0,
      params: summariseValue(call.arguments),
      // Inline whatever its size: the output limit bounds what a turn can carry.
      arguments: call.arguments,
      arguments_artifact: null,
      result: {
        ok: false,
        summary: result.summary,
        error_type: "skipped",
        artifacts: [],
        output: result.output,
        output_artifact: null,
      },
      approval: null,
      policy: null,
      hashes: { arguments_sha256: sha256(call.arguments), output_sha256: sha256(result.output) },
      events: { started: null, ended: event ?? null },
    });
    await recorder.error({
      source: "tool",
      tool: call.name,
      tool_call_id: call.id,
      event: event ?? null,
      ...origin,
      executed: false,
      error_type: "skipped",
      message,
      details,
      policy: null,
    });
    results.push(result);
  }
  return results;
}

function sha256(text: string): string {
  return sha256Hex(text);
}
