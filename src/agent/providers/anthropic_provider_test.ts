import assert from "node:assert/strict";
import {
  rejection,
  type Reply,
  request,
  tool,
  withReplayServer,
} from "./_provider_test_helpers.ts";
import type { ToolDescriptor } from "../../tools/tool_definition.ts";
import type { ToolResult } from "../../result/tool_result.ts";
import { AnthropicProvider } from "./anthropic_provider.ts";
import { anthropicTemperatureWarning, rejectsTemperature } from "./anthropic_temperature.ts";

interface Received {
  body: Record<string, unknown>;
  apiKey: string | null;
  version: string | null;
  contentType: string | null;
  path: string;
}
/** A loopback server replaying `replies` (see {@linkcode withReplayServer}). */
function withServer(
  replies: Reply[],
  test: (baseUrl: string, received: Received[]) => Promise<void>,
) {
  return withReplayServer(replies, {
    capture: (request, body): Received => ({
      body,
      apiKey: request.headers.get("x-api-key"),
      version: request.headers.get("anthropic-version"),
      contentType: request.headers.get("content-type"),
      path: new URL(request.url).pathname,
    }),
    late: message([{ type: "text", text: "too late" }]),
  }, test);
}

function message(content: unknown[], stopReason = "end_turn") {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content,
    stop_reason: stopReason,
    usage: { input_tokens: 12, output_tokens: 5 },
  };
}

const ok = (content: unknown[], stopReason?: string) => ({
  status: 200,
  body: message(content, stopReason),
});

const provider = (baseUrl: string, extra: { retries?: number; timeout_ms?: number } = {}) =>
  new AnthropicProvider({
    model: "claude-test",
    base_url: baseUrl,
    api_key: "sk-ant-test-secret",
    temperature: 0,
    timeout_ms: extra.timeout_ms ?? 5_000,
    retries: extra.retries ?? 0,
    sleep: () => Promise.resolve(),
  });

Deno.test("AnthropicProvider returns a plain answer and sends model, tools, headers", async () => {
  const reply = ok([{ type: "text", text: "All " }, { type: "text", text: "done" }]);
  await withServer([reply], async (baseUrl, received) => {
    const turn = await provider(baseUrl).complete(request());
    assert.deepEqual(turn, {
      text: "All done",
      tool_calls: [],
      usage: { input_tokens: 12, output_tokens: 5 },
      stop: { reason: "end", provider: { stop_reason: "end_turn" } },
    });
    assert.equal(received.length, 1);
    const [first] = received;
    assert.equal(first?.path, "/v1/messages");
    assert.equal(first?.apiKey, "sk-ant-test-secret");
    assert.equal(first?.version, "2026-10-21");
    assert.equal(first?.contentType, "application/json");
    assert.deepEqual(first?.body, {
      model: "claude-test",
      max_tokens: 4096,
      // The system block and the last tool close the cached prefix.
      system: [{ type: "text", text: "You are careful.", cache_control: { type: "ephemeral" } }],
      // temperature 0 is configured, but API version 2026-10-21 refuses it on every model.
      stream: true,
      messages: [{ role: "user", content: "List the files" }],
      tools: [
        {
          name: "fs__read_file",
          description: "The fs.read_file tool",
          input_schema: { type: "object", properties: { path: { type: "string" } } },
        },
        {
          name: "fs__list_files",
          description: "The fs.list_files tool",
          input_schema: { type: "object", properties: { path: { type: "string" } } },
          cache_control: { type: "ephemeral" },
        },
      ],
    });
  });
});

Deno.test("AnthropicProvider sends no key when null, omits empty tools, honours max_tokens", async () => {
  await withServer([ok([{ type: "text", text: "Hi" }])], async (baseUrl, received) => {
    const model = new AnthropicProvider({
      model: "claude-test",
      base_url: baseUrl,
      api_key: null,
      max_tokens: 100,
      timeout_ms: 5_000,
      retries: 0,
    });
    await model.complete({ ...request(), tools: [] });
    assert.equal(received[0]?.apiKey, null);
    assert.equal(received[0]?.version, "2026-10-21");
    assert.equal(received[0]?.body.max_tokens, 100);
    assert.equal("tools" in (received[0]?.body ?? {}), false);
    assert.equal("temperature" in (received[0]?.body ?? {}), false);
  });
});

Deno.test("AnthropicProvider maps a single tool_use back to its canonical name", async () => {
  const reply = ok([
    { type: "tool_use", id: "toolu_abc", name: "fs__read_file", input: { path: "a.txt" } },
  ], "tool_use");
  await withServer([reply], async (baseUrl) => {
    const turn = await provider(baseUrl).complete(request());
    assert.equal(turn.text, null);
    assert.deepEqual(turn.tool_calls, [
      {
        id: "toolu_abc",
        name: "fs.read_file",
        arguments: '{"path":"a.txt"}',
        provider: { name: "fs__read_file", id: "toolu_abc" },
      },
    ]);
  });
});

Deno.test("AnthropicProvider returns parallel tool_use blocks with text, raw ids kept", async () => {
  const reply = ok([
    { type: "text", text: "Reading both" },
    { type: "tool_use", id: "toolu_1", name: "fs__read_file", input: {} },
    { type: "tool_use", id: "toolu_2", name: "fs__list_files", input: { path: "." } },
    { type: "tool_use", name: "fs__list_files", input: {} },
    { type: "tool_use", id: "toolu_2", name: "nope__tool", input: {} },
  ], "tool_use");
  await withServer([reply], async (baseUrl) => {
    const turn = await provider(baseUrl).complete(request());
    assert.equal(turn.text, "Reading both");
    assert.deepEqual(turn.tool_calls, [
      {
        id: "toolu_1",
        name: "fs.read_file",
        arguments: "{}",
        provider: { name: "fs__read_file", id: "toolu_1" },
      },
      {
        id: "toolu_2",
        name: "fs.list_files",
        arguments: '{"path":"."}',
        provider: { name: "fs__list_files", id: "toolu_2" },
      },
      // No id sent: one is generated and the raw id recorded as null.
      {
        id: "toolu-1",
        name: "fs.list_files",
        arguments: "{}",
        provider: { name: "fs__list_files", id: null },
      },
      // A repeated id is replaced; the raw one is kept.
      {
        id: "toolu-2",
        name: "nope__tool",
        arguments: "{}",
        provider: { name: "nope__tool", id: "toolu_2" },
      },
    ]);
  });
});

Deno.test("AnthropicProvider checkTools refuses a schema whose root is not an object", () => {
  const model = provider("http://127.0.0.1:9/v1");
  const list = { ...tool("fs.list_files"), input_schema: { type: "array", items: {} } };
  assert.deepEqual(model.checkTools([tool("fs.read_file"), list as ToolDescriptor]), [
    'Cannot send tool "fs.list_files" to anthropic: its input schema has "type": "array"; ' +
    '"input_schema" must have "type": "object"',
  ]);
  assert.deepEqual(model.checkTools([tool("fs.read_file"), tool("fs.list_files")]), []);
});

Deno.test("AnthropicProvider keeps an unknown tool name raw so the runtime refuses it", async () => {
  const reply = ok([
    { type: "tool_use", id: "t1", name: "shell__exec", input: { cmd: "rm -rf /" } },
  ], "tool_use");
  await withServer([reply], async (baseUrl) => {
    const turn = await provider(baseUrl).complete(request());
    assert.equal(turn.tool_calls[0]?.name, "shell__exec");
  });
});

Deno.test("AnthropicProvider sends all tool results first in one user message", async () => {
  const good = { ok: true } as unknown as ToolResult;
  const bad = { ok: false } as unknown as ToolResult;
  await withServer([ok([{ type: "text", text: "Done" }])], async (baseUrl, received) => {
    await provider(baseUrl).complete(request([
      {
        role: "assistant",
        content: "Looking",
        tool_calls: [
          { id: "c1", name: "fs.read_file", arguments: '{"path":"a"}' },
          { id: "c2", name: "fs.list_files", arguments: '{"path": ' },
        ],
      },
      { role: "tool", tool_call_id: "c1", name: "fs.read_file", content: "A", result: good },
      { role: "tool", tool_call_id: "c2", name: "fs.list_files", content: "B", result: bad },
      { role: "user", content: "Continue" },
    ]));
    assert.deepEqual((received[0]?.body.messages as unknown[]).slice(1), [
      {
        role: "assistant",
        content: [
          { type: "text", text: "Looking" },
          { type: "tool_use", id: "c1", name: "fs__read_file", input: { path: "a" } },
          { type: "tool_use", id: "c2", name: "fs__list_files", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "c1", content: "A", is_error: false },
          { type: "tool_result", tool_use_id: "c2", content: "B", is_error: true },
          { type: "text", text: "Continue" },
        ],
      },
    ]);
  });
});

Deno.test("AnthropicProvider retries after a 429 and then succeeds", async () => {
  const replies = [
    {
      status: 429,
      body: { type: "error", error: { type: "rate_limit_error" } },
      headers: { "retry-after": "1" },
    },
    ok([{ type: "text", text: "Finally" }]),
  ];
  await withServer(replies, async (baseUrl, received) => {
    const sleeps: number[] = [];
    const model = new AnthropicProvider({
      model: "claude-test",
      base_url: baseUrl,
      api_key: "sk-ant-test-secret",
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

Deno.test("AnthropicProvider fails when 500s outlast the retries, without the key", async () => {
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
    assert.doesNotMatch(error.message + JSON.stringify(error.details), /sk-ant-test-secret/);
  });
});

Deno.test("AnthropicProvider fails when the answer is slower than the timeout", async () => {
  await withServer([{ delayMs: 500 }], async (baseUrl) => {
    const started = Date.now();
    const error = await rejection(provider(baseUrl, { timeout_ms: 100 }).complete(request()));
    assert.match(error.message, /no response within 100 ms/);
    assert.ok(Date.now() - started < 450);
  });
});

Deno.test("AnthropicProvider fails on an empty answer that claims a normal end", async () => {
  const replies = [
    ok([]),
    { status: 200, body: { type: "message" } },
    ok([{ type: "text", text: "" }]),
  ];
  await withServer(replies, async (baseUrl) => {
    const model = provider(baseUrl);
    assert.match((await rejection(model.complete(request()))).message, /empty response/);
    assert.match((await rejection(model.complete(request()))).message, /empty response/);
    assert.match((await rejection(model.complete(request()))).message, /empty response/);
  });
});

Deno.test("AnthropicProvider sends temperature only on API version 2023-06-01 to a model that takes it", async () => {
  const replies = [ok([{ type: "text", text: "a" }]), ok([{ type: "text", text: "b" }])];
  await withServer(replies, async (baseUrl, received) => {
    const options = {
      base_url: baseUrl,
      api_key: null,
      temperature: 0.2,
      api_version: "2023-06-01" as const,
      timeout_ms: 5_000,
      retries: 0,
    };
    await new AnthropicProvider({ ...options, model: "claude-sonnet-4-6" }).complete(request());
    await new AnthropicProvider({ ...options, model: "claude-opus-4-7" }).complete(request());
    assert.deepEqual(received.map((seen) => seen.version), ["2023-06-01", "2023-06-01"]);
    assert.equal(received[0]?.body.temperature, 0.2);
    assert.equal("temperature" in (received[1]?.body ?? {}), false);
  });
  assert.match(
    anthropicTemperatureWarning({
      model: "claude-opus-4-7",
      temperature: 0.2,
      api_version: "2023-06-01",
    }) ?? "",
    /^Not sending "model.temperature" to "claude-opus-4-7": the model refuses it/,
  );
  assert.match(
    anthropicTemperatureWarning({ model: "claude-sonnet-4-6", temperature: 0.2 }) ?? "",
    /API version 2026-10-21 refuses it on every model/,
  );
  assert.equal(anthropicTemperatureWarning({ model: "claude-opus-4-7" }), null);
});

Deno.test("rejectsTemperature matches Claude Opus 4.7 on and Claude 5 models, not earlier ones", () => {
  for (
    const model of [
      "claude-opus-4-7",
      "claude-opus-4-8",
      "claude-opus-4-7-20260416",
      "claude-sonnet-5",
      "claude-sonnet-5-5",
      "claude-haiku-5-5",
      "claude-fable-5-2",
    ]
  ) {
    assert.ok(rejectsTemperature(model), model);
  }
  for (
    const model of [
      "claude-opus-4-6",
      "claude-sonnet-4-6",
      "claude-sonnet-4-5-20250929",
      "claude-haiku-4-5",
      "claude-3-5-haiku-20241022",
      "llama3.1",
    ]
  ) {
    assert.ok(!rejectsTemperature(model), model);
  }
});
