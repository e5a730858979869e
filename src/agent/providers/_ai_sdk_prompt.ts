/**
 * The conversation as a Vercel AI SDK prompt (`LanguageModelV4Prompt`, private to this folder),
 * and the content parts a turn keeps to send back. The system text leads; an assistant turn that
 * carried reasoning or provider metadata (Responses reasoning items with their encrypted content,
 * Bedrock reasoning signatures, Gemini thought signatures) is sent back part by part exactly as
 * it came, each part's `providerMetadata` as its `providerOptions`; tool results follow as one
 * `tool` message per turn.
 *
 * @module
 */

import type {
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolCallPart,
  SharedV4ProviderMetadata,
} from "@ai-sdk/provider";
import type { ModelMessage } from "../model_provider.ts";
import type { ToolNameMap } from "../tool_names.ts";

/**
 * One part of an assistant turn as kept in `provider_content`: its text (or reasoning, or tool
 * call with its JSON input text) and the provider's metadata for it, all JSON.
 */
export type KeptPart =
  | { type: "text"; text: string; providerMetadata?: SharedV4ProviderMetadata }
  | { type: "reasoning"; text: string; providerMetadata?: SharedV4ProviderMetadata }
  | {
    type: "tool-call";
    toolCallId: string;
    toolName: string;
    input: string;
    providerMetadata?: SharedV4ProviderMetadata;
  };

/** Builds the prompt: system text, then the conversation. */
export function toAiSdkPrompt(
  system: string,
  messages: readonly ModelMessage[],
  names: ToolNameMap,
): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [{ role: "system", content: system }];
  for (const message of messages) {
    const last = prompt.at(-1) as LanguageModelV4Message;
    switch (message.role) {
      case "user":
        if (last.role === "user") last.content.push({ type: "text", text: message.content });
        else prompt.push({ role: "user", content: [{ type: "text", text: message.content }] });
        break;
      case "assistant":
        prompt.push({ role: "assistant", content: assistantParts(message, names) });
        break;
      case "tool": {
        const part = {
          type: "tool-result" as const,
          toolCallId: message.tool_call_id,
          toolName: names.toProvider(message.name),
          output: message.result.ok
            ? { type: "text" as const, value: message.content }
            : { type: "error-text" as const, value: message.content },
        };
        if (last.role === "tool") last.content.push(part);
        else prompt.push({ role: "tool", content: [part] });
        break;
      }
    }
  }
  return prompt;
}

type AssistantPart = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number];

/**
 * An assistant turn's parts: its kept parts when it has them (each tool call in its place
 * carrying the id the run answered), else its text and tool calls.
 */
function assistantParts(
  message: Extract<ModelMessage, { role: "assistant" }>,
  names: ToolNameMap,
): AssistantPart[] {
  const calls: LanguageModelV4ToolCallPart[] = message.tool_calls.map((call) => ({
    type: "tool-call",
    toolCallId: call.id,
    toolName: names.toProvider(call.name),
    input: parseInput(call.arguments),
  }));
  // Only parts this adapter kept go back as they came; another provider's content (a fork of an
  // Anthropic conversation) is rebuilt from the text and the calls.
  const kept = isKeptParts(message.provider_content) ? message.provider_content : null;
  if (kept === null) {
    return [
      ...(message.content === null || message.content === ""
        ? []
        : [{ type: "text" as const, text: message.content }]),
      ...calls,
    ];
  }
  let next = 0;
  return kept.flatMap((part): AssistantPart[] => {
    const options = part.providerMetadata === undefined
      ? {}
      : { providerOptions: part.providerMetadata };
    if (part.type !== "tool-call") return [{ type: part.type, text: part.text, ...options }];
    const call = calls[next++];
    return call === undefined ? [] : [{ ...call, ...options }];
  });
}

const KEPT_TYPES: ReadonlySet<unknown> = new Set(["text", "reasoning", "tool-call"]);

/** Whether `value` is a list of {@linkcode KeptPart}s (kept by this adapter). */
function isKeptParts(value: unknown): value is KeptPart[] {
  return Array.isArray(value) &&
    value.every((part) =>
      typeof part === "object" && part !== null && KEPT_TYPES.has((part as { type?: unknown }).type)
    );
}

/** The arguments as a JSON value; `{}` when they are not JSON (the runtime refused them). */
function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
