// Whole runs against a loopback fake of Azure OpenAI (`@ai-sdk/azure`, provider "azure") on its
// deployment URLs: /openai/deployments/<deployment>/chat/completions?api-version=..., the key in
// the `api-key` header (an Entra token as a bearer token instead), a tool call split across
// chunks, the `apim-request-id` recorded; a turn cut at the output limit never runs its call and
// a content filter stop ends the run refused (near miss: the same call completed runs).
import assert from "node:assert/strict";
import { type CloudRun, cloudRun, dataEvent, sse } from "./_cloud_fake.ts";

const KEY = "azure-key-0123456789abcdef0123456789";

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  dataEvent({
    id: "chatcmpl-az1",
    object: "chat.completion.chunk",
    created: 1_764_000_000,
    model: "gpt-5-mini",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

function callChunks(name: string, args: string, finish: string): string[] {
  return [
    chunk({
      role: "assistant",
      tool_calls: [{
        index: 0,
        id: "call_az",
        type: "function",
        function: { name, arguments: args.slice(0, 6) },
      }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(6, 14) } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(14) } }] }),
    chunk({}, finish),
    dataEvent({
      id: "chatcmpl-az1",
      object: "chat.completion.chunk",
      created: 1_764_000_000,
      model: "gpt-5-mini",
      choices: [],
      usage: { prompt_tokens: 90, completion_tokens: 12, total_tokens: 102 },
    }),
    "data: [DONE]\n\n",
  ];
}

const done = [
  chunk({ role: "assistant", content: "Read it." }),
  chunk({}, "stop"),
  "data: [DONE]\n\n",
];

function run(
  first: string[],
  credentials: Record<string, string> = { api_key_env: "KAGENT_TEST_AZURE_KEY" },
): Promise<CloudRun> {
  return cloudRun(
    {
      provider: "azure",
      model: "gpt-5-mini-prod",
      api: "chat",
      api_version: "2025-04-01-preview",
      deployment_urls: true,
      ...credentials,
    },
    (_request, index) => sse(index === 0 ? first : done, { "apim-request-id": `apim-${index}` }),
    { KAGENT_TEST_AZURE_KEY: KEY, KAGENT_TEST_AZURE_TOKEN: "eyJ-entra-token-0123456789" },
    "/openai",
  );
}

Deno.test("kagent-run drives Azure OpenAI by deployment URL with the api-key header; split tool arguments run once whole", async () => {
  const result = await run(callChunks("fs__read_file", '{"path":"README.md"}', "tool_calls"));
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Read it\./);
  const [first, second] = result.requests;
  assert.equal(first?.url.pathname, "/openai/deployments/gpt-5-mini-prod/chat/completions");
  assert.equal(first?.url.searchParams.get("api-version"), "2025-04-01-preview");
  assert.equal(first?.headers.get("api-key"), KEY);
  assert.equal(first?.headers.get("authorization"), null);
  const messages = second?.body.messages as {
    role: string;
    tool_calls?: { id: string; function: { arguments: string } }[];
    tool_call_id?: string;
    content?: unknown;
  }[];
  const assistant = messages.find((message) => message.role === "assistant");
  assert.deepEqual(
    assistant?.tool_calls?.map((call) => [call.id, call.function.arguments]),
    [["call_az", '{"path":"README.md"}']],
  );
  const tool = messages.find((message) => message.role === "tool");
  assert.equal(tool?.tool_call_id, "call_az");
  assert.match(JSON.stringify(tool?.content), /A small project\./);
  const turns = result.events.filter((event) => event.type === "model.responded");
  assert.deepEqual(turns.map((turn) => turn.request_id), ["apim-0", "apim-1"]);
  for (const [path, text] of result.files) assert.doesNotMatch(text, new RegExp(KEY), path);
});

Deno.test("kagent-run sends an Entra ID token from its variable as the Azure bearer token", async () => {
  const result = await run(done, { access_token_env: "KAGENT_TEST_AZURE_TOKEN" });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    result.requests[0]?.headers.get("authorization"),
    "Bearer eyJ-entra-token-0123456789",
  );
  assert.equal(result.requests[0]?.headers.get("api-key"), null);
});

Deno.test("kagent-run never runs an Azure call cut at the output limit, and ends a content-filtered turn refused", async () => {
  const write = '{"path":"notes.md","content":"x"}';
  const cut = await run(callChunks("fs__write_file", write, "length"));
  const filtered = await run(callChunks("fs__write_file", write, "content_filter"));
  for (const [result, code] of [[cut, "truncated"], [filtered, "refused"]] as const) {
    assert.notEqual(result.code, 0, code);
    const end = result.events.find((event) => event.type === "run.completed");
    assert.deepEqual([end?.end_reason, end?.error_code], ["model_error", code]);
    assert.equal(result.events.some((event) => event.type === "tool.started"), false, code);
    assert.equal(result.workspaceFiles.has("notes.md"), false, code);
  }
  // Near miss: the same call with a normal end writes the file.
  const whole = await run(callChunks("fs__write_file", write, "tool_calls"));
  assert.equal(whole.code, 0, whole.stderr);
  assert.equal(whole.workspaceFiles.get("notes.md"), "x");
});

Deno.test("kagent-run's default Azure API is the Responses API, with store: false and the api-key header", async () => {
  const events = [
    {
      type: "response.created",
      response: { id: "resp_az", created_at: 1_764_000_000, model: "gpt-5-mini" },
    },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: {
        type: "message",
        id: "msg_az",
        role: "assistant",
        status: "in_progress",
        content: [],
      },
    },
    {
      type: "response.output_text.delta",
      item_id: "msg_az",
      output_index: 0,
      content_index: 0,
      delta: "Hello from Azure.",
    },
    {
      type: "response.output_item.done",
      output_index: 0,
      item: { type: "message", id: "msg_az", role: "assistant", status: "completed", content: [] },
    },
    {
      type: "response.completed",
      response: {
        incomplete_details: null,
        usage: {
          input_tokens: 20,
          output_tokens: 4,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens_details: { reasoning_tokens: 0 },
        },
      },
    },
  ].map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  const result = await cloudRun(
    { provider: "azure", model: "gpt-5-mini-prod", api_key_env: "KAGENT_TEST_AZURE_KEY" },
    () => sse(events, { "apim-request-id": "apim-responses" }),
    { KAGENT_TEST_AZURE_KEY: KEY },
    "/openai",
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Hello from Azure\./);
  const first = result.requests[0];
  assert.equal(first?.url.pathname, "/openai/responses");
  assert.equal(first?.headers.get("api-key"), KEY);
  assert.equal(first?.body.model, "gpt-5-mini-prod");
  assert.equal(first?.body.store, false);
  const turn = result.events.find((event) => event.type === "model.responded");
  assert.equal(turn?.request_id, "apim-responses");
});
