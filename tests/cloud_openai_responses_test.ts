// Whole runs against a loopback fake of the OpenAI Responses API (`@ai-sdk/openai`, provider
// "openai-responses"), speaking its documented server-sent events: a reasoning item with its
// encrypted content and a function call whose arguments come in pieces; the reasoning goes back
// in the next request's input (store: false), the call runs once whole, the request id is
// recorded and the key is in no file of the run. A turn cut at max_output_tokens never runs its
// call (near miss: the same call completed runs).
import assert from "node:assert/strict";
import { type CloudRun, cloudRun, sse, typedEvent } from "./_cloud_fake.ts";

const KEY = "sk-proj-test-responses-key-0123456789";
const ENCRYPTED = "gAAAAABo_encrypted_reasoning_of_turn_one==";

/** One streamed Responses answer: `items` (each with its delta events), then the end event. */
function responseStream(
  items: {
    item: Record<string, unknown>;
    deltas?: Record<string, unknown>[];
    done: Record<string, unknown>;
  }[],
  end: "response.completed" | "response.incomplete" = "response.completed",
) {
  const events = [
    typedEvent({
      type: "response.created",
      sequence_number: 0,
      response: {
        id: "resp_1",
        object: "response",
        created_at: 1_764_000_000,
        model: "gpt-5.5",
        status: "in_progress",
        output: [],
      },
    }),
  ];
  items.forEach(({ item, deltas, done }, index) => {
    events.push(typedEvent({ type: "response.output_item.added", output_index: index, item }));
    for (const delta of deltas ?? []) {
      events.push(typedEvent({ type: "", ...delta, output_index: index }));
    }
    events.push(typedEvent({ type: "response.output_item.done", output_index: index, item: done }));
  });
  events.push(typedEvent({
    type: end,
    response: {
      id: "resp_1",
      status: end === "response.completed" ? "completed" : "incomplete",
      incomplete_details: end === "response.completed" ? null : { reason: "max_output_tokens" },
      usage: {
        input_tokens: 120,
        input_tokens_details: { cached_tokens: 64 },
        output_tokens: 40,
        output_tokens_details: { reasoning_tokens: 24 },
        total_tokens: 160,
      },
    },
  }));
  return events;
}

const reasoning = {
  item: { type: "reasoning", id: "rs_1", summary: [], encrypted_content: ENCRYPTED },
  done: { type: "reasoning", id: "rs_1", summary: [], encrypted_content: ENCRYPTED },
};

function functionCall(name: string, args: string, status = "completed") {
  const pieces = [args.slice(0, 5), args.slice(5, 12), args.slice(12)];
  return {
    item: {
      type: "function_call",
      id: "fc_1",
      call_id: "call_1",
      name,
      arguments: "",
      status: "in_progress",
    },
    deltas: pieces.map((delta) => ({
      type: "response.function_call_arguments.delta",
      item_id: "fc_1",
      delta,
    })),
    done: { type: "function_call", id: "fc_1", call_id: "call_1", name, arguments: args, status },
  };
}

const answer = {
  item: { type: "message", id: "msg_1", role: "assistant", status: "in_progress", content: [] },
  deltas: [
    {
      type: "response.content_part.added",
      item_id: "msg_1",
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    },
    {
      type: "response.output_text.delta",
      item_id: "msg_1",
      content_index: 0,
      delta: "It is small.",
    },
  ],
  done: {
    type: "message",
    id: "msg_1",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "It is small.", annotations: [] }],
  },
};

function run(
  first: string[],
  env: Record<string, string> = { KAGENT_TEST_OPENAI_KEY: KEY },
): Promise<CloudRun> {
  return cloudRun(
    { provider: "openai-responses", model: "gpt-5.5", api_key_env: "KAGENT_TEST_OPENAI_KEY" },
    (_request, index) =>
      sse(index === 0 ? first : responseStream([answer]), { "x-request-id": `req_${index}` }),
    env,
    "/v1",
  );
}

Deno.test("kagent-run drives the OpenAI Responses API: reasoning goes back encrypted, split arguments run once whole, request ids recorded", async () => {
  const result = await run(
    responseStream([reasoning, functionCall("fs__read_file", '{"path":"README.md"}')]),
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /It is small\./);
  assert.equal(result.requests.length, 2);
  const [first, second] = result.requests;
  assert.equal(first?.url.pathname, "/v1/responses");
  assert.equal(first?.headers.get("authorization"), `Bearer ${KEY}`);
  assert.equal(first?.body.store, false);
  assert.equal(first?.body.stream, true);
  assert.deepEqual(
    (first?.body.tools as { name: string }[]).map((tool) => tool.name).includes("fs__read_file"),
    true,
  );
  // The next request carries the reasoning item back, then the call and its output.
  const input = second?.body.input as Record<string, unknown>[];
  const reasoningIndex = input.findIndex((item) => item.type === "reasoning");
  assert.ok(reasoningIndex >= 0, JSON.stringify(input));
  assert.equal(input[reasoningIndex]?.encrypted_content, ENCRYPTED);
  const call = input.findIndex((item) => item.type === "function_call");
  assert.ok(call > reasoningIndex);
  assert.deepEqual([input[call]?.call_id, input[call]?.name, input[call]?.arguments], [
    "call_1",
    "fs__read_file",
    '{"path":"README.md"}',
  ]);
  const output = input.find((item) => item.type === "function_call_output");
  assert.equal(output?.call_id, "call_1");
  assert.match(String(output?.output), /A small project\./);
  const turns = result.events.filter((event) => event.type === "model.responded");
  assert.deepEqual(turns.map((turn) => [turn.provider, turn.request_id]), [[
    "openai-responses",
    "req_0",
  ], ["openai-responses", "req_1"]]);
  assert.deepEqual(turns[0]?.usage, {
    input_tokens: 120,
    output_tokens: 40,
    cache_read_input_tokens: 64,
    reasoning_tokens: 24,
  });
  for (const [path, text] of result.files) assert.doesNotMatch(text, new RegExp(KEY), path);
});

Deno.test("kagent-run never runs the call of a Responses turn cut at max_output_tokens", async () => {
  const write = functionCall("fs__write_file", '{"path":"notes.md","content":"cut"}', "incomplete");
  const cut = await run(responseStream([write], "response.incomplete"));
  assert.notEqual(cut.code, 0);
  const end = cut.events.find((event) => event.type === "run.completed");
  assert.deepEqual([end?.end_reason, end?.error_code], ["model_error", "truncated"]);
  assert.equal(cut.events.some((event) => event.type === "tool.started"), false);
  assert.equal(cut.workspaceFiles.has("notes.md"), false);
  // Near miss: the same call, completed, writes the file.
  const whole = await run(
    responseStream([functionCall("fs__write_file", '{"path":"notes.md","content":"cut"}')]),
  );
  assert.equal(whole.code, 0, whole.stderr);
  assert.equal(whole.workspaceFiles.get("notes.md"), "cut");
});

Deno.test("kagent-run ends a refused Responses turn failed with the refusal text", async () => {
  const refusal = {
    item: { type: "message", id: "msg_r", role: "assistant", status: "in_progress", content: [] },
    deltas: [
      {
        type: "response.refusal.delta",
        item_id: "msg_r",
        content_index: 0,
        delta: "I can't help with that.",
      },
      {
        type: "response.refusal.done",
        item_id: "msg_r",
        content_index: 0,
        refusal: "I can't help with that.",
      },
    ],
    done: { type: "message", id: "msg_r", role: "assistant", status: "completed", content: [] },
  };
  const result = await run(responseStream([refusal]));
  assert.notEqual(result.code, 0);
  const end = result.events.find((event) => event.type === "run.completed");
  assert.deepEqual([end?.end_reason, end?.error_code], ["model_error", "refused"]);
  assert.match(JSON.stringify(end?.error_details ?? end), /I can't help with that\./);
});
