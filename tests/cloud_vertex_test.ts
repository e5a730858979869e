// Whole runs against a loopback fake of Gemini on Vertex AI (provider "vertex", the Gemini model
// of `@ai-sdk/google-vertex` with an access token), speaking streamGenerateContent?alt=sse: the
// token from its variable as the bearer token (never in the run folder), a thought and a function
// call whose thought signature goes back unmodified in the next request, the frame of the call
// split across network chunks, the `x-goog-request-id` recorded. MAX_TOKENS and SAFETY never run
// their call (near miss: STOP runs it).
import assert from "node:assert/strict";
import { type CloudRun, cloudRun, dataEvent } from "./_cloud_fake.ts";

const TOKEN = "ya29.kagent-test-vertex-access-token-0123456789";
const THOUGHT_SIGNATURE = "CiQBVKhc7vertex-thought-signature-of-turn-one==";
const BASE = "/v1beta1/projects/kagent-ci/locations/us-central1/publishers/google";

function chunk(parts: Record<string, unknown>[], finishReason?: string): string {
  return dataEvent({
    candidates: [{
      content: { role: "model", parts },
      index: 0,
      ...(finishReason === undefined ? {} : { finishReason }),
    }],
    ...(finishReason === undefined ? {} : {
      usageMetadata: {
        promptTokenCount: 210,
        candidatesTokenCount: 30,
        thoughtsTokenCount: 12,
        totalTokenCount: 252,
      },
    }),
    modelVersion: "gemini-3-pro",
    responseId: "vertex-response-1",
  });
}

/** An SSE answer written in 23-byte network chunks (a frame split mid-JSON). */
function split(frames: string[], requestId: string): Response {
  const bytes = new TextEncoder().encode(frames.join(""));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let start = 0; start < bytes.length; start += 23) {
        controller.enqueue(bytes.slice(start, start + 23));
      }
      controller.close();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "x-goog-request-id": requestId },
  });
}

function call(name: string, args: Record<string, unknown>, finishReason: string): string[] {
  return [
    chunk([{ text: "I will read the README first.", thought: true }]),
    chunk([{ functionCall: { name, args }, thoughtSignature: THOUGHT_SIGNATURE }], finishReason),
  ];
}

function run(first: string[]): Promise<CloudRun> {
  return cloudRun(
    {
      provider: "vertex",
      model: "gemini-3-pro",
      project: "kagent-ci",
      location: "us-central1",
      access_token_env: "KAGENT_TEST_VERTEX_TOKEN",
    },
    (_request, index) =>
      split(index === 0 ? first : [chunk([{ text: "A small project." }], "STOP")], `goog-${index}`),
    { KAGENT_TEST_VERTEX_TOKEN: TOKEN },
    BASE,
  );
}

Deno.test("kagent-run drives Gemini on Vertex AI: bearer token from its variable, the thought signature sent back, a split frame read whole", async () => {
  const result = await run(call("fs__read_file", { path: "README.md" }, "STOP"));
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /A small project\./);
  const [first, second] = result.requests;
  assert.equal(first?.url.pathname, `${BASE}/models/gemini-3-pro:streamGenerateContent`);
  assert.equal(first?.url.searchParams.get("alt"), "sse");
  assert.equal(first?.headers.get("authorization"), `Bearer ${TOKEN}`);
  const contents = second?.body.contents as { role: string; parts: Record<string, unknown>[] }[];
  assert.deepEqual(contents.map((content) => content.role), ["user", "model", "user"]);
  const sentCall = contents[1]?.parts.find((part) => part.functionCall !== undefined);
  assert.deepEqual(sentCall?.functionCall, { name: "fs__read_file", args: { path: "README.md" } });
  assert.equal(sentCall?.thoughtSignature, THOUGHT_SIGNATURE);
  const response = contents[2]?.parts[0]?.functionResponse as { name: string; response: unknown };
  assert.equal(response.name, "fs__read_file");
  assert.match(JSON.stringify(response.response), /A small project\./);
  const turns = result.events.filter((event) => event.type === "model.responded");
  assert.deepEqual(turns.map((turn) => turn.request_id), ["goog-0", "goog-1"]);
  assert.equal(turns[0]?.provider, "vertex");
  for (const [path, text] of result.files) assert.equal(text.includes(TOKEN), false, path);
});

Deno.test("kagent-run never runs a Gemini call cut at MAX_TOKENS or stopped for SAFETY", async () => {
  const write = { path: "notes.md", content: "x" };
  for (const [reason, code] of [["MAX_TOKENS", "truncated"], ["SAFETY", "refused"]]) {
    const result = await run(call("fs__write_file", write, reason as string));
    assert.notEqual(result.code, 0, reason);
    const end = result.events.find((event) => event.type === "run.completed");
    assert.deepEqual([end?.end_reason, end?.error_code], ["model_error", code], reason);
    assert.equal(result.events.some((event) => event.type === "tool.started"), false, reason);
    assert.equal(result.workspaceFiles.has("notes.md"), false, reason);
  }
  const whole = await run(call("fs__write_file", write, "STOP"));
  assert.equal(whole.code, 0, whole.stderr);
  assert.equal(whole.workspaceFiles.get("notes.md"), "x");
});

Deno.test("kagent-run drives Vertex AI express mode with an API key from its variable", async () => {
  const key = "AQ.kagent-test-vertex-express-key-0123456789";
  const result = await cloudRun(
    { provider: "vertex", model: "gemini-3-flash", api_key_env: "KAGENT_TEST_VERTEX_KEY" },
    () => split([chunk([{ text: "Express answer." }], "STOP")], "goog-express"),
    { KAGENT_TEST_VERTEX_KEY: key },
    "/v1/publishers/google",
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Express answer\./);
  const first = result.requests[0];
  assert.equal(
    first?.url.pathname,
    "/v1/publishers/google/models/gemini-3-flash:streamGenerateContent",
  );
  assert.equal(first?.headers.get("x-goog-api-key"), key);
  assert.equal(first?.headers.get("authorization"), null);
  for (const [path, text] of result.files) assert.equal(text.includes(key), false, path);
});
