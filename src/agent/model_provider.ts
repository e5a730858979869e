/**
 * The model side of the agent loop: one small interface every provider implements (script,
 * OpenAI-compatible, Anthropic), and the conversation shapes it sees.
 *
 * @module
 */

import type { ToolCall } from "../runtime/tool_call.ts";
import type { ToolDescriptor } from "../tools/tool_definition.ts";
import type { ToolResult } from "../tools/tool_result.ts";

/** One message of the conversation, provider-neutral. */
export type ModelMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls: ToolCall[] }
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
}

/** Token counts of one response, when the provider reports them. */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
}

/** One assistant turn: tool calls to run, or a final message when there are none. */
export interface ModelTurn {
  text: string | null;
  tool_calls: ToolCall[];
  usage: TokenUsage | null;
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
 * - `script_exhausted`, `script_invalid`: the script provider's plan ran out or is malformed.
 * - `provider_failed`: the HTTP request failed, or the answer was empty or truncated.
 * - `tools_unsupported`: a tool's schema cannot be sent in the provider's mode
 *   (`details.problems` lists every problem); no request was sent.
 */
export class ModelError extends Error {
  readonly code: "script_exhausted" | "script_invalid" | "provider_failed" | "tools_unsupported";
  readonly details: Record<string, unknown>;
  constructor(code: ModelError["code"], message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "ModelError";
    this.code = code;
    this.details = details;
  }
}
