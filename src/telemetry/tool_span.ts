/**
 * The `execute_tool {tool}` span of one call through the runtime's pipeline (GenAI semantic
 * conventions), with the policy's verdict: `kagent.decision`, `kagent.rule`, `kagent.layer`, who
 * approved it, and its error type. It nests under the active span (the agent's `invoke_agent`),
 * and is itself active while the call runs, so a child agent a tool starts nests under it.
 *
 * @module
 */

import { context, type Span, SpanKind, trace } from "@opentelemetry/api";
import type { Redactor } from "../audit/mod.ts";
import { GEN_AI, KAGENT, kagentTracer } from "./gen_ai_names.ts";
import { traceContent } from "./trace_content.ts";
import { markError } from "./_span_status.ts";

/** What the runtime traces its calls with; one per run. */
export interface ToolTracing {
  /** `kagent.run_id` of every call's span. */
  runId: string;
  /**
   * The run's redactor: the tool name and call id (the model chose both) always go through it,
   * the arguments and result too when `content` is on.
   */
  redactor: Redactor;
  /** Spans carry the call's arguments and result (`audit.trace_content`). @default false */
  content?: boolean;
}

/** Longest tool name or call id a span carries, in UTF-8 bytes (the model chose both). */
export const MAX_TRACE_NAME_BYTES = 256;

/** What a call's span reads when the call is over (its result and the pipeline's findings). */
export interface ToolSpanOutcome {
  /** The call's `ToolResult`: `ok`, `error.type`, the output as the model received it. */
  result: {
    ok: boolean;
    output: string;
    data?: unknown;
    error: { type: string } | null;
  };
  /** The policy's decision, or null when the call never reached it (unknown tool, bad JSON). */
  decision: { decision: string; rule: string; layer: string } | null;
  /** Who let the call run (`rule`, `grant`, `session_grant`, `terminal`), or null. */
  approval: { by: string } | null;
  /** The arguments text exactly as the model sent it. */
  argumentsText: string;
  /** The tool's risk level, or null when the tool is unknown. */
  riskLevel: number | null;
}

/** One call's span; {@linkcode startToolSpan} makes it. */
export class ToolSpan {
  readonly #span: Span;
  readonly #content: Redactor | null;

  constructor(span: Span, content: Redactor | null) {
    this.#span = span;
    this.#content = content;
  }

  /** Runs `steps` with this span active (hooks, the Worker, a child agent nest under it). */
  run<T>(steps: () => Promise<T>): Promise<T> {
    return context.with(trace.setSpan(context.active(), this.#span), steps);
  }

  /**
   * Ends the span with the call's verdict: `kagent.decision`, `kagent.rule`, `kagent.layer` (when
   * the policy decided), `kagent.approval`, `kagent.risk_level`, a command's `kagent.exit_code`;
   * a failed call gets status error and `error.type` (its `ToolResult` error type). With content,
   * `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result`, redacted and cut.
   */
  end(outcome: ToolSpanOutcome): void {
    const span = this.#span;
    if (span.isRecording()) {
      const { result, decision, approval, riskLevel } = outcome;
      if (decision !== null) {
        span.setAttributes({
          [KAGENT.decision]: decision.decision,
          [KAGENT.rule]: decision.rule,
          [KAGENT.layer]: decision.layer,
        });
      }
      if (approval !== null) span.setAttribute(KAGENT.approval, approval.by);
      if (riskLevel !== null) span.setAttribute(KAGENT.riskLevel, riskLevel);
      const exitCode = exitCodeOf(result.data);
      if (exitCode !== null) span.setAttribute(KAGENT.exitCode, exitCode);
      if (!result.ok) markError(span, result.error?.type ?? "_OTHER");
      const redactor = this.#content;
      if (redactor !== null) {
        span.setAttributes({
          [GEN_AI.toolArguments]: traceContent(outcome.argumentsText, redactor),
          [GEN_AI.toolResult]: traceContent(result.output, redactor),
        });
      }
    }
    span.end();
  }
}

/**
 * Starts the `execute_tool {name}` span (kind internal) of a call under the active context, with
 * `gen_ai.tool.name`, `gen_ai.tool.call.id` (both redacted and cut at
 * {@linkcode MAX_TRACE_NAME_BYTES}), `gen_ai.tool.type` (`function`) and `kagent.run_id`.
 *
 * @param tracing The run's tracing; null: no span (and nothing else happens).
 * @returns The span, or null without tracing.
 * @example
 * ```ts
 * import { Redactor } from "../audit/mod.ts";
 * import { startToolSpan } from "./tool_span.ts";
 * // Without Deno's OpenTelemetry on, the span records nothing.
 * const redactor = new Redactor({ secrets: [] });
 * const span = startToolSpan({ runId: "r1", redactor }, { id: "c1", name: "fs.read_file" });
 * span?.end({
 *   result: { ok: true, output: "", error: null },
 *   decision: null,
 *   approval: null,
 *   argumentsText: "{}",
 *   riskLevel: 0,
 * });
 * ```
 */
export function startToolSpan(
  tracing: ToolTracing | null,
  call: { id: string; name: string },
): ToolSpan | null {
  if (tracing === null) return null;
  const name = traceContent(call.name, tracing.redactor, MAX_TRACE_NAME_BYTES);
  const span = kagentTracer().startSpan(`execute_tool ${name}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      [GEN_AI.operation]: "execute_tool",
      [GEN_AI.toolName]: name,
      [GEN_AI.toolCallId]: traceContent(call.id, tracing.redactor, MAX_TRACE_NAME_BYTES),
      [GEN_AI.toolType]: "function",
      [KAGENT.runId]: tracing.runId,
    },
  });
  return new ToolSpan(span, tracing.content === true ? tracing.redactor : null);
}

/** A command's exit code from its result data; null for other tools. */
function exitCodeOf(data: unknown): number | null {
  if (typeof data !== "object" || data === null || !("exit_code" in data)) return null;
  return typeof data.exit_code === "number" ? data.exit_code : null;
}
