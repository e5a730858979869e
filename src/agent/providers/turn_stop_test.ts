// How a turn ended, read from each provider's stop field over a loopback server: cut off at the
// output limit, refused, out of context window, paused — each returned with its stop (never run
// here, never called "empty response"), and the normal end beside it as the near miss.
import assert from "node:assert/strict";
import { type Reply, request, withReplayServer } from "./_provider_test_helpers.ts";
import { AnthropicProvider } from "./anthropic_provider.ts";
import { OpenAiProvider } from "./openai_provider.ts";

type Body = Record<string, unknown>;

function serve(replies: Reply[], test: (baseUrl: string, received: Body[]) => Promise<void>) {
  return withReplayServer(replies, { capture: (_request, body) => body, late: {} }, test);
}

const chat = (message: Record<string, unknown>, finishReason: string) => ({
  status: 200,
  body: {
    choices: [{
      index: 0,
      message: { role: "assistant", content: null, ...message },
      finish_reason: finishReason,
    }],
    usage: { prompt_tokens: 12, completion_tokens: 50 },
  },
});

const messages = (content: unknown[], stopReason: string) => ({
  status: 200,
  body: {
    type: "message",
    role: "assistant",
    content,
    stop_reason: stopReason,
    usage: { input_tokens: 12, output_tokens: 50 },
  },
});

const openai = (baseUrl: string, maxTokens?: number) =>
  new OpenAiProvider({
    model: "gpt-test",
    base_url: baseUrl,
    api_key: null,
    timeout_ms: 5_000,
    retries: 0,
    ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
  });

const anthropic = (baseUrl: string) =>
  new AnthropicProvider({
    model: "claude-test",
    base_url: baseUrl,
    api_key: null,
    timeout_ms: 5_000,
    retries: 0,
  });

const halfWrite = {
  id: "call_write",
  type: "function",
  function: { name: "fs__write_file", arguments: '{"path":"report.md","content":"Half a sen' },
};

Deno.test("OpenAiProvider returns a turn cut off at max_tokens as truncated, with the limit it sent", async () => {
  await serve([
    chat({ tool_calls: [halfWrite] }, "length"),
    chat({ tool_calls: [halfWrite] }, "length"),
    chat({ tool_calls: [halfWrite] }, "tool_calls"),
  ], async (baseUrl, received) => {
    const model = openai(baseUrl, 50);
    const cut = await model.complete(request());
    assert.deepEqual(cut.stop, {
      reason: "truncated",
      provider: { finish_reason: "length" },
      max_tokens: 50,
    });
    assert.equal(cut.tool_calls[0]?.arguments, halfWrite.function.arguments);
    // A retry asks for more than the configured limit.
    const retried = await model.complete({ ...request(), max_tokens: 100 });
    assert.equal(retried.stop?.max_tokens, 100);
    assert.deepEqual(received.map((body) => body.max_completion_tokens), [50, 100]);
    assert.ok(received.every((body) => !("max_tokens" in body)));
    // Near miss: the same call with finish_reason "tool_calls" is a normal end.
    const whole = await openai(baseUrl).complete(request());
    assert.deepEqual(whole.stop, { reason: "end", provider: { finish_reason: "tool_calls" } });
    assert.equal(received[2]?.max_completion_tokens, undefined);
  });
});

Deno.test("OpenAiProvider reads message.refusal and content_filter as refused, never as an empty response", async () => {
  await serve([
    chat({ refusal: "I can't help with that." }, "stop"),
    chat({ tool_calls: [halfWrite] }, "content_filter"),
    chat({ content: "Here it is.", refusal: null }, "stop"),
  ], async (baseUrl) => {
    const model = openai(baseUrl);
    assert.deepEqual((await model.complete(request())).stop, {
      reason: "refused",
      provider: { finish_reason: "stop" },
      refusal: "I can't help with that.",
    });
    const filtered = await model.complete(request());
    assert.deepEqual(filtered.stop, {
      reason: "refused",
      provider: { finish_reason: "content_filter" },
    });
    // Near miss: a null refusal beside a normal answer.
    const answer = await model.complete(request());
    assert.equal(answer.text, "Here it is.");
    assert.equal(answer.stop?.reason, "end");
  });
});

Deno.test("AnthropicProvider returns max_tokens as truncated with the limit it sent", async () => {
  const cut = messages([
    { type: "tool_use", id: "toolu_w", name: "fs__write_file", input: { path: "a" } },
  ], "max_tokens");
  await serve([cut, cut], async (baseUrl, received) => {
    const model = anthropic(baseUrl);
    assert.deepEqual((await model.complete(request())).stop, {
      reason: "truncated",
      provider: { stop_reason: "max_tokens" },
      max_tokens: 4096,
    });
    assert.equal((await model.complete({ ...request(), max_tokens: 8192 })).stop?.max_tokens, 8192);
    assert.deepEqual(received.map((body) => body.max_tokens), [4096, 8192]);
  });
});

Deno.test("AnthropicProvider reads refusal and model_context_window_exceeded, never as an empty response", async () => {
  await serve([
    messages([], "refusal"),
    messages([{ type: "text", text: "I won't do that." }], "refusal"),
    messages([{ type: "text", text: "Partial" }], "model_context_window_exceeded"),
    messages([{ type: "text", text: "Done." }], "stop_sequence"),
  ], async (baseUrl) => {
    const model = anthropic(baseUrl);
    assert.deepEqual((await model.complete(request())).stop, {
      reason: "refused",
      provider: { stop_reason: "refusal" },
    });
    assert.deepEqual((await model.complete(request())).stop, {
      reason: "refused",
      provider: { stop_reason: "refusal" },
      refusal: "I won't do that.",
    });
    assert.deepEqual((await model.complete(request())).stop, {
      reason: "context_window_exceeded",
      provider: { stop_reason: "model_context_window_exceeded" },
    });
    // Near miss: another normal stop reason.
    assert.equal((await model.complete(request())).stop?.reason, "end");
  });
});

Deno.test("AnthropicProvider sends a paused turn back as it came and merges its continuation", async () => {
  const paused = [
    { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
    { type: "text", text: "Searching. " },
  ];
  await serve([
    messages(paused, "pause_turn"),
    messages([{ type: "text", text: "Found it." }], "end_turn"),
  ], async (baseUrl, received) => {
    const model = anthropic(baseUrl);
    const first = await model.complete(request());
    assert.equal(first.stop?.reason, "paused");
    assert.deepEqual(first.provider_content, paused);
    const continued = request([
      { role: "assistant", content: first.text, tool_calls: [], provider_content: paused },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "toolu_r", name: "fs.read_file", arguments: '{"path":"a"}' }],
      },
    ]);
    await model.complete(continued);
    // The raw blocks go back unchanged, and the continuation joins the same assistant turn.
    assert.deepEqual((received[1]?.messages as unknown[]).slice(1), [{
      role: "assistant",
      content: [
        ...paused,
        { type: "tool_use", id: "toolu_r", name: "fs__read_file", input: { path: "a" } },
      ],
    }]);
  });
});
