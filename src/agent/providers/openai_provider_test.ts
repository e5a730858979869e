import assert from "node:assert/strict";
import { ModelError, type ModelRequest } from "../model_provider.ts";
import type { ToolDescriptor } from "../../tools/tool_definition.ts";
import type { ToolResult } from "../../tools/tool_result.ts";
import { OpenAiProvider } from "./openai_provider.ts";

interface Received {
  body: Record<string, unknown>;
  authorization: string | null;
  path: string;
}
type Reply = { status: number; body: unknown; headers?: Record<string, string> } | {
  delayMs: number;
};

/** A real loopback server replaying recorded answers and recording what it received. */
async function withServer(
  replies: Reply[],
  test: (baseUrl: string, received: Received[]) => Promise<void>,
) {
  const received: Received[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      received.push({
        body: await request.json(),
        authorization: request.headers.get("authorization"),
        path: new URL(request.url).pathname,
      });
      const reply = replies.shift() ?? { status: 500, body: { error: "no more replies" } };
      if ("delayMs" in reply) {
        await new Promise<void>((resolve) => setTimeout(resolve, reply.delayMs));
        return Response.json(completion({ content: "too late" }));
      }
      return Response.json(reply.body, { status: reply.status, headers: reply.headers ?? {} });
    },
  );
  try {
    await test(`http://127.0.0.1:${server.addr.port}/v1/`, received);
  } finally {
    await server.shutdown();
  }
}

function completion(message: Record<string, unknown>, finishReason = "stop") {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    model: "gpt-test",
    choices: [{
      index: 0,
      message: { role: "assistant", content: null, ...message },
      finish_reason: finishReason,
    }],
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
  };
}

const ok = (message: Record<string, unknown>, finishReason?: string) => ({
  status: 200,
  body: completion(message, finishReason),
});

const tool = (name: string): ToolDescriptor => ({
  name,
  description: `The ${name} tool`,
  input_schema: { type: "object", properties: { path: { type: "string" } } },
} as unknown as ToolDescriptor);

const run = { run_id: "r1", workspace: "/w", deliverables: "/w/d", scratch: "/w/s" };
const request = (messages: ModelRequest["messages"] = []): ModelRequest => ({
  system: "You are careful.",
  messages: [{ role: "user", content: "List the files" }, ...messages],
  tools: [tool("fs.read_file"), tool("fs.list_files")],
  run,
});

const provider = (baseUrl: string, extra: { retries?: number; timeout_ms?: number } = {}) =>
  new OpenAiProvider({
    model: "gpt-test",
    base_url: baseUrl,
    api_key: "sk-test-secret",
    temperature: 0,
    timeout_ms: extra.timeout_ms ?? 5_000,
    retries: extra.retries ?? 0,
    sleep: () => Promise.resolve(),
  });

async function rejection(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelError);
    return error;
  }
  throw new Error("expected a rejection");
}

Deno.test("OpenAiProvider returns a plain answer and sends model, tools and key", async () => {
  await withServer([ok({ content: "All done" })], async (baseUrl, received) => {
    const turn = await provider(baseUrl).complete(request());
    assert.deepEqual(turn, {
      text: "All done",
      tool_calls: [],
      usage: { input_tokens: 12, output_tokens: 5 },
    });
    assert.equal(received.length, 1);
    const [first] = received;
    assert.equal(first?.path, "/v1/chat/completions");
    assert.equal(first?.authorization, "Bearer sk-test-secret");
    assert.equal(first?.body.model, "gpt-test");
    assert.equal(first?.body.temperature, 0);
    assert.deepEqual(first?.body.messages, [
      { role: "system", content: "You are careful." },
      { role: "user", content: "List the files" },
    ]);
    assert.deepEqual(first?.body.tools, [
      {
        type: "function",
        function: {
          name: "fs__read_file",
          description: "The fs.read_file tool",
          parameters: { type: "object", properties: { path: { type: "string" } } },
        },
      },
      {
        type: "function",
        function: {
          name: "fs__list_files",
          description: "The fs.list_files tool",
          parameters: { type: "object", properties: { path: { type: "string" } } },
        },
      },
    ]);
  });
});

Deno.test("OpenAiProvider maps a single tool call back to its canonical name", async () => {
  const reply = ok({
    tool_calls: [{
      id: "call_abc",
      type: "function",
      function: { name: "fs__read_file", arguments: '{"path":"a.txt"}' },
    }],
  }, "tool_calls");
  await withServer([reply], async (baseUrl) => {
    const turn = await provider(baseUrl).complete(request());
    assert.equal(turn.text, null);
    assert.deepEqual(turn.tool_calls, [
      { id: "call_abc", name: "fs.read_file", arguments: '{"path":"a.txt"}' },
    ]);
  });
});

Deno.test("OpenAiProvider returns parallel tool calls and generates missing ids", async () => {
  const reply = ok({
    content: "Reading both",
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "fs__read_file", arguments: "{}" } },
      { type: "function", function: { name: "fs__list_files", arguments: '{"path":"."}' } },
    ],
  }, "tool_calls");
  await withServer([reply], async (baseUrl) => {
    const turn = await provider(baseUrl).complete(request());
    assert.equal(turn.text, "Reading both");
    assert.deepEqual(turn.tool_calls, [
      { id: "call_1", name: "fs.read_file", arguments: "{}" },
      { id: "call-1", name: "fs.list_files", arguments: '{"path":"."}' },
    ]);
  });
});

Deno.test("OpenAiProvider passes malformed arguments through as text", async () => {
  const reply = ok({
    tool_calls: [{
      id: "c1",
      type: "function",
      function: { name: "fs__read_file", arguments: '{"path": "a.txt"' },
    }],
  }, "tool_calls");
  await withServer([reply], async (baseUrl) => {
    const turn = await provider(baseUrl).complete(request());
    assert.equal(turn.tool_calls[0]?.arguments, '{"path": "a.txt"');
  });
});

Deno.test("OpenAiProvider keeps an unknown tool name raw so the runtime refuses it", async () => {
  const reply = ok({
    tool_calls: [{
      id: "c1",
      type: "function",
      function: { name: "shell__exec", arguments: '{"cmd":"rm -rf /"}' },
    }],
  }, "tool_calls");
  await withServer([reply], async (baseUrl) => {
    const turn = await provider(baseUrl).complete(request());
    assert.equal(turn.tool_calls[0]?.name, "shell__exec");
  });
});

Deno.test("OpenAiProvider sends tool results paired by tool_call_id", async () => {
  const result = { ok: true } as unknown as ToolResult;
  await withServer([ok({ content: "Done" })], async (baseUrl, received) => {
    await provider(baseUrl).complete(request([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", name: "fs.read_file", arguments: '{"path":"a"}' },
          { id: "c2", name: "fs.list_files", arguments: "{}" },
        ],
      },
      { role: "tool", tool_call_id: "c1", name: "fs.read_file", content: "A", result },
      { role: "tool", tool_call_id: "c2", name: "fs.list_files", content: "B", result },
    ]));
    assert.deepEqual((received[0]?.body.messages as unknown[]).slice(2), [
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "fs__read_file", arguments: '{"path":"a"}' },
          },
          { id: "c2", type: "function", function: { name: "fs__list_files", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "A" },
      { role: "tool", tool_call_id: "c2", content: "B" },
    ]);
  });
});

Deno.test("OpenAiProvider retries after a 429 and then succeeds", async () => {
  const replies = [
    { status: 429, body: { error: { message: "rate limited" } }, headers: { "retry-after": "1" } },
    ok({ content: "Finally" }),
  ];
  await withServer(replies, async (baseUrl, received) => {
    const sleeps: number[] = [];
    const model = new OpenAiProvider({
      model: "gpt-test",
      base_url: baseUrl,
      api_key: "sk-test-secret",
      timeout_ms: 5_000,
      retries: 2,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
    });
    const turn = await model.complete(request());
    assert.equal(turn.text, "Finally");
    assert.equal(received.length, 2);
    assert.deepEqual(sleeps, [1000]);
  });
});

Deno.test("OpenAiProvider fails when 500s outlast the retries, without the key", async () => {
  const replies = [
    { status: 500, body: { error: "boom" } },
    { status: 500, body: { error: "boom again" } },
  ];
  await withServer(replies, async (baseUrl, received) => {
    const error = await rejection(provider(baseUrl, { retries: 1 }).complete(request()));
    assert.equal(error.code, "provider_failed");
    assert.equal(error.details.status, 500);
    assert.equal(error.details.attempts, 2);
    assert.equal(received.length, 2);
    assert.doesNotMatch(error.message + JSON.stringify(error.details), /sk-test-secret/);
  });
});

Deno.test("OpenAiProvider fails when the answer is slower than the timeout", async () => {
  await withServer([{ delayMs: 500 }], async (baseUrl) => {
    const started = Date.now();
    const error = await rejection(provider(baseUrl, { timeout_ms: 100 }).complete(request()));
    assert.match(error.message, /no response within 100 ms/);
    assert.ok(Date.now() - started < 450);
  });
});

Deno.test("OpenAiProvider fails on an empty or truncated answer", async () => {
  const replies = [
    { status: 200, body: { choices: [] } },
    ok({ content: "" }),
    ok({ content: "Half an ans" }, "length"),
  ];
  await withServer(replies, async (baseUrl) => {
    const model = provider(baseUrl);
    assert.match((await rejection(model.complete(request()))).message, /empty response/);
    assert.match((await rejection(model.complete(request()))).message, /empty response/);
    assert.match((await rejection(model.complete(request()))).message, /truncated/);
  });
});
