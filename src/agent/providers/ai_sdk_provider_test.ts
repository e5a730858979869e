// The adapter's stop contract over a fake LanguageModelV4 that streams recorded parts: every
// unified finish reason of the specification maps onto the loop's TurnStop (stop and tool-calls
// end normally, length is truncated with the request's limit, content-filter refused, a
// context-window raw reason exceeded), while error, other, interrupted, an error part and a
// stream without finish fail the call; tool names map back to canonical; the request id comes
// from the response headers.
import assert from "node:assert/strict";
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import { AiSdkProvider } from "./ai_sdk_provider.ts";
import { rejection, request } from "./_provider_test_helpers.ts";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 4, text: 4, reasoning: undefined },
};

/** A model streaming `parts` (then a finish with `unified`/`raw` unless `finish` is false). */
function fakeModel(
  parts: LanguageModelV4StreamPart[],
  unified: string | null,
  raw?: string,
  calls: LanguageModelV4CallOptions[] = [],
): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "fake",
    modelId: "fake-model",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: (options) => {
      calls.push(options);
      const all: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }, ...parts];
      if (unified !== null) {
        all.push({
          type: "finish",
          usage,
          finishReason: { unified: unified as "stop", raw },
        });
      }
      return Promise.resolve({
        stream: new ReadableStream({
          start(controller) {
            for (const part of all) controller.enqueue(part);
            controller.close();
          },
        }),
        response: { headers: { "x-request-id": "req-fake-1" } },
      });
    },
  };
}

const callParts: LanguageModelV4StreamPart[] = [
  { type: "tool-input-start", id: "c1", toolName: "fs__read_file" },
  { type: "tool-input-delta", id: "c1", delta: '{"path":' },
  { type: "tool-input-delta", id: "c1", delta: '"a.md"}' },
  { type: "tool-input-end", id: "c1" },
  { type: "tool-call", toolCallId: "c1", toolName: "fs__read_file", input: '{"path":"a.md"}' },
];

const provider = (model: LanguageModelV4) =>
  new AiSdkProvider({ name: "fake", model, timeout_ms: 5_000, max_tokens: 256 });

Deno.test("AiSdkProvider maps each finish reason onto the stop contract", async () => {
  const cases: [string, string | undefined, string][] = [
    ["tool-calls", "tool_use", "end"],
    ["stop", "end_turn", "end"],
    ["length", "max_tokens", "truncated"],
    ["content-filter", "guardrail_intervened", "refused"],
    ["other", "model_context_window_exceeded", "context_window_exceeded"],
  ];
  for (const [unified, raw, reason] of cases) {
    const turn = await provider(fakeModel(callParts, unified, raw)).complete(request());
    assert.equal(turn.stop?.reason, reason, unified);
    assert.deepEqual(turn.stop?.provider, { finish_reason: unified, raw_finish_reason: raw });
    // Canonical names back, with the provider's own kept.
    assert.deepEqual(turn.tool_calls, [{
      id: "c1",
      name: "fs.read_file",
      arguments: '{"path":"a.md"}',
      provider: { name: "fs__read_file", id: "c1" },
    }]);
    assert.equal(turn.request_id, "req-fake-1");
    if (reason === "truncated") assert.equal(turn.stop?.max_tokens, 256);
  }
});

Deno.test("AiSdkProvider fails a turn that ended in error, other, interrupted, an error part or no finish", async () => {
  const failing: [LanguageModelV4StreamPart[], string | null, RegExp][] = [
    [callParts, "error", /finish reason "error"/],
    [callParts, "other", /finish reason "other"/],
    [
      callParts.slice(0, 3),
      "interrupted",
      /interrupted.*its tool calls \(c1 fs__read_file\) never ran/,
    ],
    [
      [...callParts.slice(0, 2), { type: "error", error: { message: "Throttled" } }],
      "stop",
      /the server sent an error: Throttled/,
    ],
    [callParts.slice(0, 2), null, /ended without a finish.*never ran/],
  ];
  for (const [parts, unified, expected] of failing) {
    const error = await rejection(provider(fakeModel(parts, unified)).complete(request()));
    assert.equal(error.code, "provider_failed");
    assert.match(error.message, expected);
  }
  // Near miss: a text answer that stops normally is a turn.
  const text = await provider(fakeModel([
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: "Done." },
    { type: "text-end", id: "t" },
  ], "stop")).complete(request());
  assert.deepEqual([text.text, text.stop?.reason], ["Done.", "end"]);
  assert.deepEqual(text.usage, { input_tokens: 10, output_tokens: 4 });
});

Deno.test("AiSdkProvider sends reasoning back with its metadata, in place, and the run's call ids", async () => {
  const calls: LanguageModelV4CallOptions[] = [];
  const metadata = { bedrock: { signature: "sig-1" } };
  const model = fakeModel(
    [
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: "Think." },
      { type: "reasoning-delta", id: "r", delta: "", providerMetadata: metadata },
      { type: "reasoning-end", id: "r" },
      ...callParts,
    ],
    "tool-calls",
    "tool_use",
    calls,
  );
  const turn = await provider(model).complete(request());
  assert.deepEqual(turn.provider_content, [
    { type: "reasoning", text: "Think.", providerMetadata: metadata },
    { type: "tool-call", toolCallId: "c1", toolName: "fs__read_file", input: '{"path":"a.md"}' },
  ]);
  await provider(model).complete(request([
    {
      role: "assistant",
      content: null,
      tool_calls: [{ ...turn.tool_calls[0]!, id: "c1-run" }],
      provider_content: turn.provider_content,
    },
  ]));
  const assistant = calls[1]?.prompt.find((message) => message.role === "assistant");
  assert.deepEqual(assistant?.content, [
    { type: "reasoning", text: "Think.", providerOptions: metadata },
    { type: "tool-call", toolCallId: "c1-run", toolName: "fs__read_file", input: { path: "a.md" } },
  ]);
  // Another provider's content (Anthropic thinking blocks in a forked conversation) is not sent
  // as parts: the turn is rebuilt from its text and calls.
  await provider(model).complete(request([
    {
      role: "assistant",
      content: "Reading.",
      tool_calls: [{ ...turn.tool_calls[0]!, id: "c2-run" }],
      provider_content: [{ type: "thinking", thinking: "x", signature: "s" }],
    },
  ]));
  const rebuilt = calls[2]?.prompt.find((message) => message.role === "assistant");
  assert.deepEqual(rebuilt?.content, [
    { type: "text", text: "Reading." },
    { type: "tool-call", toolCallId: "c2-run", toolName: "fs__read_file", input: { path: "a.md" } },
  ]);
  // Near miss: a turn without reasoning or metadata keeps nothing.
  const plain = await provider(fakeModel(callParts, "tool-calls")).complete(request());
  assert.equal(plain.provider_content, undefined);
});
