/**
 * The model side of the agent loop: one small interface every provider implements (script,
 * OpenAI-compatible, Anthropic), and the conversation shapes it sees.
 *
 * @module
 */

import type { ToolCall } from "../runtime/mod.ts";
import type { ToolDescriptor } from "../tools/mod.ts";
import type { ToolResult } from "../result/mod.ts";

/** One message of the conversation, provider-neutral. */
export type ModelMessage =
  | { role: "user"; content: string }
  | {
    role: "assistant";
    content: string | null;
    tool_calls: ToolCall[];
    /**
     * The provider's own content of the turn, sent back exactly as received: a paused turn
     * ({@linkcode TurnStop} `paused`, Anthropic `pause_turn`) so that the model continues it, or
     * a turn that carries reasoning the provider requires back (Anthropic `thinking` and
     * `redacted_thinking` blocks, OpenAI Responses `reasoning` items). Absent on every other
     * turn: those are rebuilt from `content` and `tool_calls`.
     */
    provider_content?: unknown;
  }
  | { role: "tool"; tool_call_id: string; name: string; content: string; result: ToolResult };

/** Where the run keeps its files; the system prompt names them, the script model templates them. */
export interface RunContext {
  run_id: string;
  /** The sandbox root (real path). */
  workspace: string;
  /** `runs/<id>/deliverables/`: where the agent puts what it hands over. */
  deliverables: string;
  /** `runs/<id>/workspace/`: scratch space. */
  scratch: string;
}

/** One request to the model. */
export interface ModelRequest {
  system: string;
  messages: ModelMessage[];
  /** Only the run's effective tool set. */
  tools: ToolDescriptor[];
  run: RunContext;
  /**
   * The output limit (tokens) for this request only, above the provider's configured
   * `max_tokens`: set by the loop when it retries a truncated turn (`model.retry_truncated`).
   * Providers without a limit (script) ignore it. @default the provider's configured limit
   */
  max_tokens?: number;
}

/**
 * Token counts of one response (or, summed, of a run), when the provider reports them. The
 * optional counts are there when the provider sent them.
 */
export interface TokenUsage {
  /**
   * Every input token, cached ones included (as OpenAI's `prompt_tokens`; for Anthropic its
   * `input_tokens` plus `cache_read_input_tokens` and `cache_creation_input_tokens`, which the
   * Messages API counts apart), so that the counts of both providers compare.
   */
  input_tokens: number;
  /** Every output token, reasoning tokens included. */
  output_tokens: number;
  /**
   * Of `input_tokens`, those read from the provider's prompt cache (OpenAI
   * `prompt_tokens_details.cached_tokens`, Anthropic `cache_read_input_tokens`).
   */
  cache_read_input_tokens?: number;
  /** Of `input_tokens`, those written to the prompt cache (Anthropic only). */
  cache_creation_input_tokens?: number;
  /** Of `output_tokens`, the model's hidden reasoning (OpenAI `reasoning_tokens`). */
  reasoning_tokens?: number;
}

/**
 * How a turn ended, read from the provider's stop field. Only `end` is a turn the loop acts on:
 *
 * - `end`: the model finished its turn (a final message, or tool calls to run).
 * - `truncated`: cut off at the output limit (OpenAI `finish_reason: "length"`, Anthropic
 *   `stop_reason: "max_tokens"`); its tool calls are never run, their input may be cut mid-value.
 * - `refused`: the model or the provider's filter declined (OpenAI `message.refusal` or
 *   `finish_reason: "content_filter"`, Anthropic `stop_reason: "refusal"`).
 * - `context_window_exceeded`: the conversation no longer fits the model (Anthropic
 *   `stop_reason: "model_context_window_exceeded"`).
 * - `paused`: the provider paused a long turn and expects it back to continue (Anthropic
 *   `stop_reason: "pause_turn"`); `provider_content` holds the turn to send back.
 */
export type TurnStopReason = "end" | "truncated" | "refused" | "context_window_exceeded" | "paused";

/** Why a turn ended, with the provider's own fields kept for the audit. */
export interface TurnStop {
  reason: TurnStopReason;
  /**
   * The provider's stop fields exactly as it sent them, e.g. `{finish_reason: "length"}` or
   * `{stop_reason: "refusal"}` (`null` when the field was missing).
   */
  provider: Record<string, unknown>;
  /** `refused`: the refusal text the provider sent (or the turn's text), when there is one. */
  refusal?: string;
  /** `truncated`: the output limit the request carried, `null` when it sent none. */
  max_tokens?: number | null;
}

/** One assistant turn: tool calls to run, or a final message when there are none. */
export interface ModelTurn {
  text: string | null;
  tool_calls: ToolCall[];
  usage: TokenUsage | null;
  /** How the turn ended. @default {reason: "end", provider: {}} (the script provider) */
  stop?: TurnStop;
  /**
   * The turn's content as the provider sent it, to send back unchanged: a paused turn's, or one
   * carrying reasoning (see {@linkcode ModelMessage}). The loop keeps it in the conversation and
   * records it in `model.responded`.
   */
  provider_content?: unknown;
  /**
   * A streamed turn: milliseconds from sending the request to the first token (text, refusal or
   * tool call) of the answer. Absent when the answer was not streamed.
   */
  first_token_ms?: number;
  /**
   * The id the provider gave this answer in its response headers (`x-request-id`,
   * `request-id`, `x-amzn-requestid`, `apim-request-id`...), to match the audit with the
   * provider's logs. Absent when it sent none.
   */
  request_id?: string;
}

/** A model provider. `complete` may reject with {@linkcode ModelError}; the loop ends the run then. */
export interface ModelProvider {
  readonly name: string;
  /**
   * Checks, without any I/O, that every tool of `tools` can be sent in this provider's mode (for
   * example OpenAI strict mode). The loop calls it once on the initial tool set before the first
   * request and ends the run (`model_error`, code `tools_unsupported`) when anything is returned.
   *
   * @param tools The tool set the first request would carry.
   * @returns One house-style sentence a problem (`Cannot send tool "x" to openai (strict mode):
   *   …`), naming the tool, where in its schema, and what to change; `[]` when all can be sent.
   */
  checkTools(tools: readonly ToolDescriptor[]): string[];
  complete(request: ModelRequest, signal?: AbortSignal): Promise<ModelTurn>;
}

/**
 * Why the model could not answer: the run ends with end_reason `model_error`.
 *
 * - `script_exhausted`, `script_invalid`: the script provider's plan ran out or is malformed
 *   (the message names the file and the line).
 * - `provider_failed`: the HTTP request failed, or the answer was empty or unreadable.
 * - `tools_unsupported`: a tool's schema cannot be sent in the provider's mode
 *   (`details.problems` lists every problem); no request was sent.
 * - `truncated`, `refused`, `context_window_exceeded`: the loop's codes for a turn that ended
 *   that way ({@linkcode TurnStop}); the turn's tool calls were not run.
 */
export class ModelError extends Error {
  readonly code:
    | "script_exhausted"
    | "script_invalid"
    | "provider_failed"
    | "tools_unsupported"
    | "truncated"
    | "refused"
    | "context_window_exceeded";
  readonly details: Record<string, unknown>;
  constructor(code: ModelError["code"], message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "ModelError";
    this.code = code;
    this.details = details;
  }
}
