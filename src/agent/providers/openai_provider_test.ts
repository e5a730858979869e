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
import { OpenAiProvider } from "./openai_provider.ts";

interface Received {
  body: Record<string, unknown>;
  authorization: string | null;
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
      authorization: request.headers.get("authorization"),
      path: new URL(request.url).pathname,
    }),
    late: completion({ content: "too late" }),
  }, test);
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

Deno.test("OpenAiProvider returns a plain answer and sends model, tools and key", async () => {
  await withServer([ok({ content: "All done" })], async (baseUrl, received) => {
    const turn = await provider(baseUrl).complete(request());
    assert.deepEqual(turn, {
      text: "All done",
      tool_calls: [],
      usage: { input_tokens: 12, output_tokens: 5 },
      stop: { reason: "end", provider: { finish_reason: "stop" } },
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
      {
        id: "call_abc",
        name: "fs.read_file",
        arguments: '{"path":"a.txt"}',
        provider: { name: "fs__read_file", id: "call_abc" },
      },
    ]);
  });
});

Deno.test("OpenAiProvider returns parallel tool calls and generates missing ids", async () => {
  const reply = ok({
    content: "Reading both",
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "fs__read_file", arguments: "{}" } },
      { type: "function", function: { name: "fs__list_files", arguments: '{"path":"."}' } },
      { id: "call_1", type: "function", function: { name: "nope__tool", arguments: "{}" } },
    ],
  }, "tool_calls");
  await withServer([reply], async (baseUrl) => {
    const turn = await provider(baseUrl).complete(request());
    assert.equal(turn.text, "Reading both");
    assert.deepEqual(turn.tool_calls, [
      {
        id: "call_1",
        name: "fs.read_file",
        arguments: "{}",
        provider: { name: "fs__read_file", id: "call_1" },
      },
      // No id sent: one is generated and the raw id recorded as null.
      {
        id: "call-1",
        name: "fs.list_files",
        arguments: '{"path":"."}',
        provider: { name: "fs__list_files", id: null },
      },
      // A repeated id is replaced; the raw one is kept, as is the unknown name.
      {
        id: "call-2",
        name: "nope__tool",
        arguments: "{}",
        provider: { name: "nope__tool", id: "call_1" },
      },
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

Deno.test("OpenAiProvider fails on an empty answer that claims a normal end", async () => {
  const replies = [{ status: 200, body: { choices: [] } }, ok({ content: "" })];
  await withServer(replies, async (baseUrl) => {
    const model = provider(baseUrl);
    assert.match((await rejection(model.complete(request()))).message, /empty response/);
    assert.match((await rejection(model.complete(request()))).message, /empty response/);
  });
});

/** fs.read_file's real shape: one required property, two optional ones with defaults. */
const readFile = {
  name: "fs.read_file",
  description: "Read a text file",
  input_schema: {
    type: "object",
    properties: {
      path: { type: "string", minLength: 1, maxLength: 4096, description: "File to read" },
      start_line: { type: "integer", minimum: 1, default: 1, description: "First line" },
      max_lines: { type: "integer", minimum: 1, maximum: 1000, default: 200 },
    },
    required: ["path"],
    additionalProperties: false,
  },
} as unknown as ToolDescriptor;

const strictProvider = (baseUrl: string) =>
  new OpenAiProvider({
    model: "gpt-test",
    base_url: baseUrl,
    api_key: null,
    timeout_ms: 5_000,
    retries: 0,
    strict: true,
  });

Deno.test("OpenAiProvider in strict mode sends strict schemas and removes the nulls of omitted options", async () => {
  const reply = ok({
    tool_calls: [{
      id: "c1",
      type: "function",
      function: {
        name: "fs__read_file",
        arguments: '{"path":"a.txt","start_line":null,"max_lines":50}',
      },
    }],
  }, "tool_calls");
  await withServer([reply], async (baseUrl, received) => {
    const turn = await strictProvider(baseUrl).complete({ ...request(), tools: [readFile] });
    assert.deepEqual(received[0]?.body.tools, [{
      type: "function",
      function: {
        name: "fs__read_file",
        description: "Read a text file",
        parameters: {
          type: "object",
          properties: {
            path: { type: "string", description: "File to read. Length: 1 to 4096 characters." },
            start_line: {
              type: ["integer", "null"],
              minimum: 1,
              description: "First line. Null for the default (1).",
            },
            max_lines: {
              type: ["integer", "null"],
              minimum: 1,
              maximum: 1000,
              description: "Null for the default (200).",
            },
          },
          required: ["path", "start_line", "max_lines"],
          additionalProperties: false,
        },
        strict: true,
      },
    }]);
    // The runtime sees the original shape: the null of the omitted option is gone.
    assert.equal(turn.tool_calls[0]?.arguments, '{"path":"a.txt","max_lines":50}');
  });
});

Deno.test("OpenAiProvider without strict mode sends the schema as it is and keeps nulls", async () => {
  const reply = ok({
    tool_calls: [{
      id: "c1",
      type: "function",
      function: { name: "fs__read_file", arguments: '{"path":"a.txt","start_line":null}' },
    }],
  }, "tool_calls");
  await withServer([reply], async (baseUrl, received) => {
    const turn = await provider(baseUrl).complete({ ...request(), tools: [readFile] });
    const sent = (received[0]?.body.tools as { function: Record<string, unknown> }[])[0];
    assert.deepEqual(sent?.function.parameters, readFile.input_schema);
    assert.equal("strict" in (sent?.function ?? {}), false);
    assert.equal(turn.tool_calls[0]?.arguments, '{"path":"a.txt","start_line":null}');
  });
});

Deno.test("OpenAiProvider checkTools names the tool, the property and the fix in strict mode", () => {
  const fetchUrl = {
    name: "web.fetch_page",
    description: "Fetch a page",
    input_schema: {
      type: "object",
      properties: { url: { type: "string", format: "uri" } },
      required: ["url"],
      additionalProperties: false,
    },
  } as unknown as ToolDescriptor;
  const problems = strictProvider("http://127.0.0.1:9/v1").checkTools([readFile, fetchUrl]);
  assert.deepEqual(problems, [
    'Cannot send tool "web.fetch_page" to openai (strict mode): property "url" of its input ' +
    'schema uses format "uri", which strict mode does not support; remove "format" or use one ' +
    'of "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"',
  ]);
  // Without strict mode the same tool can be sent.
  assert.deepEqual(provider("http://127.0.0.1:9/v1").checkTools([readFile, fetchUrl]), []);
});

Deno.test("OpenAiProvider checkTools refuses a root that is not an object in both modes", () => {
  const list = { ...tool("fs.list_files"), input_schema: { type: "array", items: {} } };
  assert.deepEqual(provider("http://127.0.0.1:9/v1").checkTools([list as ToolDescriptor]), [
    'Cannot send tool "fs.list_files" to openai: its input schema has "type": "array"; ' +
    'function parameters must be a JSON Schema object ("type": "object")',
  ]);
  assert.deepEqual(strictProvider("http://127.0.0.1:9/v1").checkTools([list as ToolDescriptor]), [
    'Cannot send tool "fs.list_files" to openai (strict mode): its input schema has "type": ' +
    '"array"; strict mode needs the root to be "type": "object"',
  ]);
});

Deno.test("OpenAiProvider in strict mode sends nothing when a tool cannot be expressed", async () => {
  const open = {
    ...readFile,
    input_schema: { type: "object", properties: {}, additionalProperties: true },
  } as unknown as ToolDescriptor;
  await withServer([ok({ content: "never" })], async (baseUrl, received) => {
    const error = await rejection(
      strictProvider(baseUrl).complete({ ...request(), tools: [open] }),
    );
    assert.equal(error.code, "tools_unsupported");
    assert.match(error.message, /^Cannot send tool "fs\.read_file" to openai \(strict mode\): /);
    assert.equal(received.length, 0);
  });
});
