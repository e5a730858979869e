// Streamed answers over a loopback server sending real server-sent events: a tool call split
// across chunks (and an event split mid-line), usage from the final events, the stop rules on
// the assembled turn, and a stream cut mid-way refused whole; each with its near miss.
import assert from "node:assert/strict";
import { serveEventStream, sseEvent } from "../../testing/event_stream_server.ts";
import { rejection, request } from "./_provider_test_helpers.ts";
import { AnthropicProvider } from "./anthropic_provider.ts";
import { OpenAiProvider } from "./openai_provider.ts";

const openai = (baseUrl: string, extra: { stream?: boolean; max_tokens?: number } = {}) =>
  new OpenAiProvider({
    model: "gpt-test",
    base_url: baseUrl,
    api_key: null,
    timeout_ms: 5_000,
    retries: 0,
    reasoning_effort: "low",
    ...extra,
  });

const anthropic = (baseUrl: string) =>
  new AnthropicProvider({
    model: "claude-test",
    base_url: baseUrl,
    api_key: null,
    timeout_ms: 5_000,
    retries: 0,
  });

/** A Chat Completions chunk with one choice `delta`. */
const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
  sseEvent({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });

/** The first pieces of a streamed call of `fs__read_file` whose arguments come in three parts. */
function splitReadCall(): string[] {
  const third = chunk({ tool_calls: [{ index: 0, function: { arguments: 'ME.md"}' } }] });
  return [
    chunk({ role: "assistant", content: null }),
    chunk({
      tool_calls: [{
        index: 0,
        id: "call_read",
        type: "function",
        function: { name: "fs__read_file", arguments: '{"pa' },
      }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"READ' } }] }),
    // One event split mid-line across two network chunks.
    third.slice(0, 17),
    third.slice(17),
  ];
}

Deno.test("OpenAiProvider assembles a streamed tool call split across chunks, with its usage", async () => {
  await using server = serveEventStream(() => ({
    chunks: [
      ...splitReadCall(),
      chunk({
        tool_calls: [{
          index: 1,
          id: "call_list",
          type: "function",
          function: { name: "fs__list_files", arguments: "{}" },
        }],
      }),
      chunk({}, "tool_calls"),
      sseEvent({
        choices: [],
        usage: {
          prompt_tokens: 1200,
          completion_tokens: 300,
          prompt_tokens_details: { cached_tokens: 1024 },
          completion_tokens_details: { reasoning_tokens: 256 },
        },
      }),
      "data: [DONE]\n\n",
    ],
  }));
  const turn = await openai(server.baseUrl, { max_tokens: 2000 }).complete(request());
  assert.deepEqual(turn.tool_calls.map((call) => [call.id, call.name, call.arguments]), [
    ["call_read", "fs.read_file", '{"path":"README.md"}'],
    ["call_list", "fs.list_files", "{}"],
  ]);
  assert.deepEqual(turn.usage, {
    input_tokens: 1200,
    output_tokens: 300,
    cache_read_input_tokens: 1024,
    reasoning_tokens: 256,
  });
  assert.deepEqual(turn.stop, { reason: "end", provider: { finish_reason: "tool_calls" } });
  assert.equal(typeof turn.first_token_ms, "number");
  const body = server.received[0] ?? {};
  assert.equal(body.stream, true);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.equal(body.max_completion_tokens, 2000);
  assert.equal("max_tokens" in body, false);
  assert.equal(body.reasoning_effort, "low");
});

Deno.test("OpenAiProvider refuses a stream cut mid tool call whole, naming the call that never ran", async () => {
  await using server = serveEventStream(() => ({ chunks: splitReadCall(), cut: true }));
  const error = await rejection(openai(server.baseUrl).complete(request()));
  assert.equal(error.code, "provider_failed");
  assert.match(
    error.message,
    /^Cannot use the streamed answer of "gpt-test": the stream stopped before the answer ended \(connection lost .*\); its tool call \(call_read fs__read_file\) never ran$/,
  );
  assert.deepEqual(error.details.incomplete_tool_calls, [{
    index: 0,
    id: "call_read",
    name: "fs__read_file",
    arguments_characters: '{"path":"README.md"}'.length,
  }]);
  // Closed cleanly but before any finish_reason: refused the same way.
  await using closed = serveEventStream(() => ({ chunks: splitReadCall() }));
  const early = await rejection(openai(closed.baseUrl).complete(request()));
  assert.match(early.message, /the server closed it without a finish_reason, after 4 events/);
});

Deno.test("OpenAiProvider takes a stream closed after its finish_reason without [DONE]", async () => {
  await using server = serveEventStream(() => ({
    chunks: [...splitReadCall(), chunk({}, "tool_calls")],
  }));
  const turn = await openai(server.baseUrl).complete(request());
  assert.equal(turn.tool_calls[0]?.arguments, '{"path":"README.md"}');
  assert.equal(turn.usage, null);
});

Deno.test("OpenAiProvider reads a streamed finish_reason length as truncated and a refusal as refused", async () => {
  await using server = serveEventStream((_body, index) => ({
    chunks: index === 0
      ? [...splitReadCall().slice(0, 3), chunk({}, "length"), "data: [DONE]\n\n"]
      : [chunk({ refusal: "I can't " }), chunk({ refusal: "help." }), chunk({}, "stop")],
  }));
  const model = openai(server.baseUrl, { max_tokens: 8 });
  const cut = await model.complete(request());
  assert.deepEqual(cut.stop, {
    reason: "truncated",
    provider: { finish_reason: "length" },
    max_tokens: 8,
  });
  assert.equal(cut.tool_calls[0]?.arguments, '{"path":"READ');
  const refused = await model.complete(request());
  assert.deepEqual(refused.stop, {
    reason: "refused",
    provider: { finish_reason: "stop" },
    refusal: "I can't help.",
  });
});

Deno.test("OpenAiProvider with stream false sends no stream fields and reads the JSON answer", async () => {
  await using server = serveEventStream(() =>
    Response.json({
      choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }],
    })
  );
  const turn = await openai(server.baseUrl, { stream: false }).complete(request());
  assert.equal(turn.text, "Hi");
  assert.equal(turn.first_token_ms, undefined);
  assert.equal("stream" in (server.received[0] ?? {}), false);
  assert.equal("stream_options" in (server.received[0] ?? {}), false);
});

/** The opening events of a streamed Messages answer: text, then a tool_use in three parts. */
function splitToolUse(): string[] {
  const delta = (index: number, value: Record<string, unknown>) =>
    sseEvent({ type: "content_block_delta", index, delta: value }, "content_block_delta");
  const last = delta(1, { type: "input_json_delta", partial_json: 'ME.md"}' });
  return [
    sseEvent({
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        content: [],
        stop_reason: null,
        usage: {
          input_tokens: 20,
          cache_read_input_tokens: 2000,
          cache_creation_input_tokens: 100,
          output_tokens: 1,
        },
      },
    }, "message_start"),
    sseEvent({
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    }, "content_block_start"),
    delta(0, { type: "text_delta", text: "Reading " }),
    delta(0, { type: "text_delta", text: "it." }),
    sseEvent({ type: "content_block_stop", index: 0 }, "content_block_stop"),
    sseEvent({ type: "ping" }, "ping"),
    sseEvent({
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: "toolu_read", name: "fs__read_file", input: {} },
    }, "content_block_start"),
    delta(1, { type: "input_json_delta", partial_json: '{"pa' }),
    delta(1, { type: "input_json_delta", partial_json: 'th":"READ' }),
    last.slice(0, 30),
    last.slice(30),
  ];
}

/** The closing events: the block's stop, the stop reason with the output usage, message_stop. */
const ending = (stopReason: string) => [
  sseEvent({ type: "content_block_stop", index: 1 }, "content_block_stop"),
  sseEvent({
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 42 },
  }, "message_delta"),
  sseEvent({ type: "message_stop" }, "message_stop"),
];

Deno.test("AnthropicProvider assembles a streamed tool_use split across chunks, with cache usage", async () => {
  await using server = serveEventStream(() => ({
    chunks: [...splitToolUse(), ...ending("tool_use")],
  }));
  const turn = await anthropic(server.baseUrl).complete(request());
  assert.equal(turn.text, "Reading it.");
  assert.deepEqual(turn.tool_calls.map((call) => [call.id, call.name, call.arguments]), [
    ["toolu_read", "fs.read_file", '{"path":"README.md"}'],
  ]);
  assert.deepEqual(turn.usage, {
    input_tokens: 2120,
    output_tokens: 42,
    cache_read_input_tokens: 2000,
    cache_creation_input_tokens: 100,
  });
  assert.deepEqual(turn.stop, { reason: "end", provider: { stop_reason: "tool_use" } });
  assert.equal(typeof turn.first_token_ms, "number");
  assert.equal(server.received[0]?.stream, true);
});

Deno.test("AnthropicProvider refuses a stream cut mid tool_use whole, naming the call that never ran", async () => {
  await using server = serveEventStream(() => ({ chunks: splitToolUse(), cut: true }));
  const error = await rejection(anthropic(server.baseUrl).complete(request()));
  assert.equal(error.code, "provider_failed");
  assert.match(
    error.message,
    /the stream stopped before the answer ended \(connection lost .*\); its tool call \(toolu_read fs__read_file\) never ran$/,
  );
  assert.deepEqual(error.details.incomplete_tool_calls, [{
    index: 1,
    id: "toolu_read",
    name: "fs__read_file",
    input_characters: '{"path":"README.md"}'.length,
  }]);
  // Near miss: the same events with the closing ones are a whole answer (the test above).
});

Deno.test("AnthropicProvider ends a stream that sends an error event with the error's message", async () => {
  await using server = serveEventStream(() => ({
    chunks: [
      ...splitToolUse().slice(0, 3),
      sseEvent({
        type: "error",
        error: { type: "overloaded_error", message: "Overloaded" },
      }, "error"),
    ],
  }));
  const error = await rejection(anthropic(server.baseUrl).complete(request()));
  assert.equal(
    error.message,
    'Cannot read the streamed answer of "claude-test": the server sent overloaded_error: Overloaded',
  );
});

Deno.test("AnthropicProvider reads a streamed max_tokens as truncated, keeping the cut input as text", async () => {
  await using server = serveEventStream(() => ({
    chunks: [...splitToolUse().slice(0, 9), ...ending("max_tokens")],
  }));
  const turn = await anthropic(server.baseUrl).complete(request());
  assert.deepEqual(turn.stop, {
    reason: "truncated",
    provider: { stop_reason: "max_tokens" },
    max_tokens: 4096,
  });
  assert.equal(turn.tool_calls[0]?.arguments, '{"path":"READ');
});

Deno.test("a stream that stops sending for timeout_ms fails with the wait, never as a whole answer", async () => {
  await using server = serveEventStream(() => ({
    chunks: [chunk({ content: "Hel" }), chunk({ content: "lo" }, "stop")],
    delayMs: 400,
  }));
  const model = new OpenAiProvider({
    model: "gpt-test",
    base_url: server.baseUrl,
    api_key: null,
    timeout_ms: 150,
    retries: 0,
  });
  const error = await rejection(model.complete(request()));
  assert.match(error.message, /the stream stopped before the answer ended \(no data for 150 ms/);
  assert.equal(error.details.cause, "no data for 150 ms");
});
