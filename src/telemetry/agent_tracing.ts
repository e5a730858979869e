/**
 * The spans of one agent: `invoke_agent {name}` around its whole loop, `chat {model}` around each
 * model request (token usage, finish reason), both after the GenAI semantic conventions. Tool
 * calls made while the agent's span is active nest under it (`tool_span.ts`); a child agent
 * started inside a tool call nests under that call's span.
 *
 * @module
 */

import { type Attributes, type Context, context, SpanKind, trace } from "@opentelemetry/api";
import type { Redactor } from "../audit/mod.ts";
import { GEN_AI, genAiProviderName, KAGENT, kagentTracer } from "./gen_ai_names.ts";
import { traceContent } from "./trace_content.ts";
import { markError, markThrown } from "./_span_status.ts";

/** What {@linkcode AgentTracing} describes the agent with. */
export interface AgentTracingOptions {
  /** The run id (`kagent.run_id`, `gen_ai.conversation.id`). */
  runId: string;
  /** `gen_ai.agent.id` and `gen_ai.agent.name`: `main` for a run's own agent. */
  agent: { id: string; name: string };
  /** kagent-run's provider name (`openai`, `anthropic`, `script`). */
  provider: string;
  /** The model requested (`gen_ai.request.model`), or null when the provider has none. */
  model: string | null;
  /** The model's base URL, for `server.address` and `server.port`. @default null */
  baseUrl?: string | null;
  /**
   * Redacts what spans carry of answers (`audit.trace_content`); null: spans carry no content.
   */
  content: Redactor | null;
  /**
   * The context the agent's span nests under. @default the active context when
   * {@linkcode AgentTracing.invoke} runs (inside a tool call: that call's span)
   */
  parent?: Context;
}

/** What the agent's span reads of the loop's outcome (an `AgentOutcome`). */
export interface AgentEnd {
  end_reason: string;
  turns: number;
  final_text: string | null;
  error_code: string | null;
}

/** What a chat span reads of one model answer (a `ModelTurn`). */
export interface ChatAnswer {
  text: string | null;
  tool_calls: readonly { id: string; name: string; arguments: string }[];
  usage: { input_tokens: number; output_tokens: number } | null;
  stop?: { reason: string; provider: Record<string, unknown> };
}

/** Starts and ends one agent's spans; see the module doc. */
export class AgentTracing {
  readonly #options: AgentTracingOptions;
  readonly #common: Attributes;

  constructor(options: AgentTracingOptions) {
    this.#options = options;
    this.#common = {
      [GEN_AI.provider]: genAiProviderName(options.provider),
      ...(options.model === null ? {} : { [GEN_AI.requestModel]: options.model }),
      [KAGENT.runId]: options.runId,
    };
  }

  /**
   * Runs the agent's loop inside its `invoke_agent` span (kind internal), which becomes the active
   * span for everything the loop starts. The span ends with `kagent.end_reason` and
   * `kagent.turns`; any end but `completed` sets status error and `error.type` (the model error's
   * code, else the end reason). A rejection ends it with the error's name and rejects again.
   */
  async invoke<T extends AgentEnd>(run: () => Promise<T>): Promise<T> {
    const { agent, runId } = this.#options;
    const parent = this.#options.parent ?? context.active();
    const span = kagentTracer().startSpan(`invoke_agent ${agent.name}`, {
      kind: SpanKind.INTERNAL,
      attributes: {
        [GEN_AI.operation]: "invoke_agent",
        ...this.#common,
        [GEN_AI.agentId]: agent.id,
        [GEN_AI.agentName]: agent.name,
        [GEN_AI.conversationId]: runId,
      },
    }, parent);
    try {
      const outcome = await context.with(trace.setSpan(parent, span), run);
      span.setAttributes({ [KAGENT.endReason]: outcome.end_reason, [KAGENT.turns]: outcome.turns });
      if (outcome.end_reason !== "completed") {
        markError(span, outcome.error_code ?? outcome.end_reason);
      }
      const redactor = this.#options.content;
      if (redactor !== null && outcome.final_text !== null && span.isRecording()) {
        span.setAttribute(
          GEN_AI.outputMessages,
          outputMessages(traceContent(outcome.final_text, redactor), [], "stop", redactor),
        );
      }
      return outcome;
    } catch (error) {
      markThrown(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  /**
   * Runs one model request inside a `chat {model}` span (kind client) under the active context:
   * `gen_ai.usage.input_tokens` / `output_tokens` when the provider reported them,
   * `gen_ai.response.finish_reasons` (the provider's own stop value, else kagent-run's stop
   * reason), `kagent.stop_reason`, `kagent.tool_calls`; with content, `gen_ai.output.messages`
   * (the answer's text and tool calls, redacted). A rejection sets status error and `error.type`
   * (a `ModelError`'s `code`, else the error's name) and rejects again.
   *
   * @param request `maxTokens`: the output limit of this request, when the loop set one.
   */
  async chat<T extends ChatAnswer>(
    request: { maxTokens?: number },
    complete: () => Promise<T>,
  ): Promise<T> {
    const { model } = this.#options;
    const span = kagentTracer().startSpan(model === null ? "chat" : `chat ${model}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        [GEN_AI.operation]: "chat",
        ...this.#common,
        ...server(this.#options.baseUrl ?? null),
        ...(request.maxTokens === undefined
          ? {}
          : { [GEN_AI.requestMaxTokens]: request.maxTokens }),
      },
    });
    try {
      const answer = await complete();
      const reason = answer.stop?.reason ?? "end";
      const finish = providerFinishReason(answer.stop?.provider) ?? reason;
      span.setAttributes({
        [GEN_AI.responseFinishReasons]: [finish],
        [KAGENT.stopReason]: reason,
        [KAGENT.toolCalls]: answer.tool_calls.length,
        ...(answer.usage === null ? {} : {
          [GEN_AI.inputTokens]: answer.usage.input_tokens,
          [GEN_AI.outputTokens]: answer.usage.output_tokens,
        }),
      });
      const redactor = this.#options.content;
      if (redactor !== null && span.isRecording()) {
        span.setAttribute(
          GEN_AI.outputMessages,
          outputMessages(
            answer.text === null ? null : traceContent(answer.text, redactor),
            answer.tool_calls,
            finish,
            redactor,
          ),
        );
      }
      return answer;
    } catch (error) {
      markThrown(span, error);
      throw error;
    } finally {
      span.end();
    }
  }
}

/** `server.address` and `server.port` of the model's URL; nothing when there is none. */
function server(baseUrl: string | null): Attributes {
  if (baseUrl === null) return {};
  try {
    const url = new URL(baseUrl);
    const port = url.port === "" ? (url.protocol === "http:" ? 80 : 443) : Number(url.port);
    return { [GEN_AI.serverAddress]: url.hostname, [GEN_AI.serverPort]: port };
  } catch {
    return {};
  }
}

/** The provider's stop value (`finish_reason`, `stop_reason`), when it sent one as text. */
function providerFinishReason(fields: Record<string, unknown> | undefined): string | null {
  for (const key of ["finish_reason", "stop_reason"]) {
    const value = fields?.[key];
    if (typeof value === "string") return value;
  }
  return null;
}

/**
 * `gen_ai.output.messages` as a JSON string (the convention's output messages schema): one
 * assistant message with its text part and tool call parts (ids, names and arguments redacted and
 * cut).
 */
function outputMessages(
  text: string | null,
  toolCalls: ChatAnswer["tool_calls"],
  finishReason: string,
  redactor: Redactor,
): string {
  const parts: Record<string, unknown>[] = [
    ...(text === null ? [] : [{ type: "text", content: text }]),
    ...toolCalls.map((call) => ({
      type: "tool_call",
      id: traceContent(call.id, redactor),
      name: traceContent(call.name, redactor),
      arguments: traceContent(call.arguments, redactor),
    })),
  ];
  return JSON.stringify([{ role: "assistant", parts, finish_reason: finishReason }]);
}
