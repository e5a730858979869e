/**
 * The request bodies the HTTP providers send, as types (private to this folder). They are
 * checked against the official SDKs' request types (`openai`'s `ChatCompletionCreateParams`,
 * `@anthropic-ai/sdk`'s `MessageCreateParams`) by `wire_types_test.ts`, so a field the API renamed
 * or removed fails type-checking here instead of at the provider.
 *
 * @module
 */

/** OpenAI `reasoning_effort` values (`openai` 7.x `ReasoningEffort`). */
export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

/** One Chat Completions message as sent. */
export type OpenAiWireMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
    role: "assistant";
    content: string | null;
    tool_calls?: {
      id: string;
      type: "function";
      function: { name: string; arguments: string };
    }[];
  }
  | { role: "tool"; tool_call_id: string; content: string };

/** A Chat Completions request body. */
export interface OpenAiChatBody {
  model: string;
  messages: OpenAiWireMessage[];
  tools?: {
    type: "function";
    function: {
      name: string;
      description: string;
      parameters: Record<string, unknown>;
      strict?: boolean;
    };
  }[];
  temperature?: number;
  max_completion_tokens?: number;
  reasoning_effort?: ReasoningEffort;
  stream?: true;
  stream_options?: { include_usage: boolean };
}

/** The prompt-cache breakpoint the Anthropic provider sets. */
export interface CacheControl {
  type: "ephemeral";
}

/**
 * One Messages API content block as sent (a paused turn's own blocks, and a turn's thinking and
 * redacted thinking blocks, are sent back as the API sent them).
 */
export type AnthropicContentBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error: boolean };

/** One Messages API message as sent. */
export interface AnthropicWireMessage {
  role: "user" | "assistant";
  content: string | AnthropicContentBlock[];
}

/** A Messages API request body (API version 2026-10-21: no sampling parameters). */
export interface AnthropicMessagesBody {
  model: string;
  max_tokens: number;
  system: { type: "text"; text: string; cache_control: CacheControl }[];
  messages: AnthropicWireMessage[];
  tools?: {
    name: string;
    description: string;
    input_schema: { type: "object"; [key: string]: unknown };
    cache_control?: CacheControl;
  }[];
  stream?: true;
}
