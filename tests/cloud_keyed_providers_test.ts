// The providers reached with an API key through their AI SDK packages (Gemini API "google",
// "mistral", "groq"), each against a loopback fake of its own streamed wire: the key from its
// variable in the provider's header, the request id recorded, and the stop contract: a write cut
// at the output limit (Gemini MAX_TOKENS, Mistral model_length, Groq length) never runs, while the
// same call ending normally writes the file.
import assert from "node:assert/strict";
import { cloudRun, dataEvent, sse } from "./_cloud_fake.ts";

const KEY = "kagent-test-provider-key-0123456789abcdef";
const WRITE = { path: "notes.md", content: "x" };

interface Case {
  provider: string;
  model: string;
  basePath: string;
  path: string;
  auth: [string, string];
  requestIdHeader: string;
  /** The first answer: a write call that ends with `finish` (cut when `cut`). */
  call: (cut: boolean) => string[];
  done: string[];
}

const gemini = (parts: unknown[], finishReason: string) =>
  dataEvent({
    candidates: [{ content: { role: "model", parts }, index: 0, finishReason }],
    usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 9, totalTokenCount: 59 },
  });

const chat = (delta: Record<string, unknown>, finish: string | null, model: string) =>
  dataEvent({
    id: "chunk-1",
    object: "chat.completion.chunk",
    created: 1_764_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

const chatCall = (model: string, finish: string, id: string) => [
  chat(
    {
      role: "assistant",
      content: "",
      tool_calls: [{
        index: 0,
        id,
        type: "function",
        function: { name: "fs__write_file", arguments: JSON.stringify(WRITE) },
      }],
    },
    null,
    model,
  ),
  chat({}, finish, model),
  "data: [DONE]\n\n",
];

const cases: Case[] = [
  {
    provider: "google",
    model: "gemini-3-flash",
    basePath: "/v1beta",
    path: "/v1beta/models/gemini-3-flash:streamGenerateContent",
    auth: ["x-goog-api-key", KEY],
    requestIdHeader: "x-goog-request-id",
    call: (cut) => [
      gemini(
        [{ functionCall: { name: "fs__write_file", args: WRITE } }],
        cut ? "MAX_TOKENS" : "STOP",
      ),
    ],
    done: [gemini([{ text: "Written." }], "STOP")],
  },
  {
    provider: "mistral",
    model: "mistral-large-latest",
    basePath: "/v1",
    path: "/v1/chat/completions",
    auth: ["authorization", `Bearer ${KEY}`],
    requestIdHeader: "mistral-correlation-id",
    call: (cut) =>
      chatCall("mistral-large-latest", cut ? "model_length" : "tool_calls", "Wr1teN0te"),
    done: [
      chat({ role: "assistant", content: "Written." }, "stop", "mistral-large-latest"),
      "data: [DONE]\n\n",
    ],
  },
  {
    provider: "groq",
    model: "openai/gpt-oss-120b",
    basePath: "/openai/v1",
    path: "/openai/v1/chat/completions",
    auth: ["authorization", `Bearer ${KEY}`],
    requestIdHeader: "x-request-id",
    call: (cut) => chatCall("openai/gpt-oss-120b", cut ? "length" : "tool_calls", "call_groq"),
    done: [
      chat({ role: "assistant", content: "Written." }, "stop", "openai/gpt-oss-120b"),
      "data: [DONE]\n\n",
    ],
  },
];

for (const fake of cases) {
  Deno.test(`kagent-run drives "${fake.provider}" through its package: key header, request id, a cut write never runs`, async () => {
    for (const cut of [true, false]) {
      const result = await cloudRun(
        { provider: fake.provider, model: fake.model, api_key_env: "KAGENT_TEST_PROVIDER_KEY" },
        (_request, index) =>
          sse(index === 0 ? fake.call(cut) : fake.done, {
            [fake.requestIdHeader]: `${fake.provider}-${index}`,
          }),
        { KAGENT_TEST_PROVIDER_KEY: KEY },
        fake.basePath,
      );
      const first = result.requests[0];
      assert.equal(first?.url.pathname, fake.path);
      assert.equal(first?.headers.get(fake.auth[0]), fake.auth[1]);
      const turn = result.events.find((event) => event.type === "model.responded");
      assert.equal(turn?.request_id, `${fake.provider}-0`);
      for (const [path, text] of result.files) assert.equal(text.includes(KEY), false, path);
      if (cut) {
        assert.notEqual(result.code, 0);
        const end = result.events.find((event) => event.type === "run.completed");
        assert.deepEqual([end?.end_reason, end?.error_code], ["model_error", "truncated"]);
        assert.equal(result.events.some((event) => event.type === "tool.started"), false);
        assert.equal(result.workspaceFiles.has("notes.md"), false);
      } else {
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.workspaceFiles.get("notes.md"), "x");
      }
    }
  });
}

Deno.test("a cloud package's requests get the run's retries: a 429 is waited out, a 400 fails the run with the server's words", async () => {
  const groq = cases[2]!;
  const answers = [
    () =>
      Response.json({ error: { message: "Rate limit reached" } }, {
        status: 429,
        headers: { "retry-after-ms": "5" },
      }),
    () => sse(groq.done, { "x-request-id": "groq-after-retry" }),
  ];
  const retried = await cloudRun(
    { provider: "groq", model: groq.model, api_key_env: "KAGENT_TEST_PROVIDER_KEY", retries: 1 },
    (_request, index) => answers[index]!(),
    { KAGENT_TEST_PROVIDER_KEY: KEY },
    groq.basePath,
  );
  assert.equal(retried.code, 0, retried.stderr);
  assert.equal(retried.requests.length, 2);
  const turn = retried.events.find((event) => event.type === "model.responded");
  assert.equal(turn?.request_id, "groq-after-retry");
  const refused = await cloudRun(
    { provider: "groq", model: groq.model, api_key_env: "KAGENT_TEST_PROVIDER_KEY", retries: 3 },
    () => Response.json({ error: { message: "tools[0] is invalid" } }, { status: 400 }),
    { KAGENT_TEST_PROVIDER_KEY: KEY },
    groq.basePath,
  );
  assert.notEqual(refused.code, 0);
  assert.equal(refused.requests.length, 1, "a 400 is not retried");
  const end = refused.events.find((event) => event.type === "run.completed");
  assert.deepEqual([end?.end_reason, end?.error_code], ["model_error", "provider_failed"]);
  assert.match(String(end?.error), /HTTP 400/);
  const errors = [...refused.files].find(([path]) => path.endsWith("logs/errors.jsonl"))?.[1] ?? "";
  assert.match(errors, /tools\[0\] is invalid/);
});
