// The request bodies both providers build, checked against the official SDKs' request types
// (`openai` and `@anthropic-ai/sdk`, types only: neither SDK is loaded at run time). A field the
// API renamed or removed (e.g. `max_tokens` for OpenAI, `temperature` on Anthropic API version
// 2026-10-21) fails type-checking of this file. Each body is also the one the provider sends.
import assert from "node:assert/strict";
import type OpenAI from "openai";
import type Anthropic from "@anthropic-ai/sdk";
import type { ModelMessage, ModelRequest } from "../model_provider.ts";
import { request } from "./_provider_test_helpers.ts";
import { AnthropicProvider } from "./anthropic_provider.ts";
import { OpenAiProvider } from "./openai_provider.ts";
import type { AnthropicMessagesBody, OpenAiChatBody } from "./_wire_types.ts";

/**
 * Checks at compile time that `value`'s type is assignable to `Target` AND names no field
 * `Target` lacks (plain assignability would let a removed field through).
 */
function conforms<Target>() {
  return <T extends Target>(value: T & Record<Exclude<keyof T, keyof Target>, never>): T => value;
}

/** A conversation with every kind of message: a call, its result, a failed result. */
const conversation: ModelMessage[] = [
  {
    role: "assistant",
    content: "Reading.",
    tool_calls: [
      { id: "call_1", name: "fs.read_file", arguments: '{"path":"a.md"}' },
      { id: "call_2", name: "fs.list_files", arguments: "{}" },
    ],
  },
  {
    role: "tool",
    tool_call_id: "call_1",
    name: "fs.read_file",
    content: "text",
    result: { ok: true } as never,
  },
  {
    role: "tool",
    tool_call_id: "call_2",
    name: "fs.list_files",
    content: "denied",
    result: { ok: false } as never,
  },
  { role: "user", content: "Go on" },
];
const full: ModelRequest = { ...request(conversation), max_tokens: 1000 };

/** Sends `full` through `provider` and returns the JSON body the server received. */
async function sent(complete: (fetchImpl: typeof fetch) => Promise<unknown>): Promise<unknown> {
  let body: unknown = null;
  const fetchImpl = ((_url: string | URL | Request, init?: RequestInit) => {
    body = JSON.parse(String(init?.body));
    return Promise.resolve(new Response("{}", { status: 400 }));
  }) as typeof fetch;
  await complete(fetchImpl).catch(() => {});
  return body;
}

Deno.test("OpenAiProvider's request bodies are ChatCompletionCreateParams of the official SDK", async () => {
  for (const stream of [true, false]) {
    const options = {
      model: "gpt-5.5",
      base_url: "https://api.openai.com/v1",
      api_key: null,
      timeout_ms: 1000,
      retries: 0,
      strict: true,
      temperature: 0.2,
      reasoning_effort: "high" as const,
      stream,
    };
    const body: OpenAiChatBody = new OpenAiProvider(options).requestBody(full);
    // The type checks: our body type is assignable to the SDK's request type.
    const params: OpenAI.Chat.ChatCompletionCreateParams = conforms<
      OpenAI.Chat.ChatCompletionCreateParams
    >()(body);
    if (stream) {
      const streaming: OpenAI.Chat.ChatCompletionCreateParamsStreaming = {
        ...body,
        stream: true,
      };
      assert.deepEqual(streaming.stream_options, { include_usage: true });
    }
    assert.equal(params.max_completion_tokens, 1000);
    const wire = await sent((fetchImpl) =>
      new OpenAiProvider({ ...options, fetch: fetchImpl }).complete(full)
    );
    assert.deepEqual(wire, body);
  }
});

Deno.test("AnthropicProvider's request bodies are MessageCreateParams of the official SDK", async () => {
  for (const stream of [true, false]) {
    const options = {
      model: "claude-sonnet-5-5",
      api_key: null,
      timeout_ms: 1000,
      retries: 0,
      stream,
    };
    const body: AnthropicMessagesBody = new AnthropicProvider(options).requestBody(full);
    const params: Anthropic.MessageCreateParams = conforms<Anthropic.MessageCreateParams>()(body);
    if (stream) {
      const streaming: Anthropic.MessageCreateParamsStreaming = { ...body, stream: true };
      assert.equal(streaming.stream, true);
    }
    assert.equal(params.max_tokens, 1000);
    const wire = await sent((fetchImpl) =>
      new AnthropicProvider({ ...options, fetch: fetchImpl }).complete(full)
    );
    assert.deepEqual(wire, body);
  }
});
