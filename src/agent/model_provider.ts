/**
 * The model side of the agent loop: one small interface every provider implements (script now;
 * OpenAI-compatible and Anthropic later), and the conversation shapes it sees.
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
  complete(request: ModelRequest, signal?: AbortSignal): Promise<ModelTurn>;
}

/** Why the model could not answer: the run ends with end_reason `model_error`. */
export class ModelError extends Error {
  readonly code: "script_exhausted" | "script_invalid" | "provider_failed";
  readonly details: Record<string, unknown>;
  constructor(code: ModelError["code"], message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "ModelError";
    this.code = code;
    this.details = details;
  }
}
