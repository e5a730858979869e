// Whole runs against a loopback fake of Amazon Bedrock's ConverseStream API (`@ai-sdk/amazon-
// bedrock`, provider "bedrock"), answering in the AWS event-stream binary framing (frames built
// with @smithy/eventstream-codec, the package's own decoder): requests signed with SigV4 from the
// configured credential variables (the session token sent, never written to the run folder), a
// reasoning block with its signature sent back unmodified before the tool use, a tool input split
// across deltas run once whole, the `x-amzn-requestid` recorded. max_tokens, a guardrail and an
// exceeded context window never run their call (near miss: tool_use runs it).
import assert from "node:assert/strict";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { type CloudRun, cloudRun } from "./_cloud_fake.ts";

const ACCESS_KEY_ID = "AKIAKAGENTTESTKEY000";
const SECRET = "kagent/test/secret/access/key/0123456789ab";
const SESSION = "IQoJb3JpZ2luX2VjEKagentTestSessionToken0123456789";
const MODEL = "us.anthropic.claude-sonnet-5-5-v1:0";
const THINKING = "The README will say what the project is.";
const SIGNATURE = "EqgBCkYIBxgCKkBbedrock-signature-of-the-thinking";

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One event-stream frame of a ConverseStream event. */
function frame(eventType: string, payload: Record<string, unknown>): Uint8Array {
  return codec.encode({
    headers: {
      ":message-type": { type: "string", value: "event" },
      ":event-type": { type: "string", value: eventType },
      ":content-type": { type: "string", value: "application/json" },
    },
    body: fromUtf8(JSON.stringify({ ...payload, p: "abcdefghijklmnop" })),
  });
}

/** A ConverseStream answer: `blocks` (each a start and deltas), then `stopReason` and usage. */
function converseStream(
  blocks: { start?: Record<string, unknown>; deltas: Record<string, unknown>[] }[],
  stopReason: string,
  requestId: string,
): Response {
  const frames = [frame("messageStart", { role: "assistant" })];
  blocks.forEach((block, contentBlockIndex) => {
    if (block.start !== undefined) {
      frames.push(frame("contentBlockStart", { contentBlockIndex, start: block.start }));
    }
    for (const delta of block.deltas) {
      frames.push(frame("contentBlockDelta", { contentBlockIndex, delta }));
    }
    frames.push(frame("contentBlockStop", { contentBlockIndex }));
  });
  frames.push(
    frame("messageStop", { stopReason }),
    frame("metadata", {
      usage: { inputTokens: 300, outputTokens: 50, totalTokens: 350, cacheReadInputTokens: 200 },
      metrics: { latencyMs: 420 },
    }),
  );
  // Split the bytes mid-frame, as a network does.
  const bytes = new Uint8Array(frames.reduce((sum, piece) => sum + piece.length, 0));
  let offset = 0;
  for (const piece of frames) {
    bytes.set(piece, offset);
    offset += piece.length;
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let start = 0; start < bytes.length; start += 37) {
        controller.enqueue(bytes.slice(start, start + 37));
      }
      controller.close();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "application/vnd.amazon.eventstream",
      "x-amzn-requestid": requestId,
    },
  });
}

function toolUse(name: string, input: string) {
  return {
    start: { toolUse: { toolUseId: "tooluse_kagent1", name } },
    deltas: [input.slice(0, 4), input.slice(4, 13), input.slice(13)].map((piece) => ({
      toolUse: { input: piece },
    })),
  };
}

const reasoning = {
  deltas: [
    { reasoningContent: { text: THINKING.slice(0, 15) } },
    { reasoningContent: { text: THINKING.slice(15) } },
    { reasoningContent: { signature: SIGNATURE } },
  ],
};

const answer = { deltas: [{ text: "A small project." }] };

function run(
  first: { blocks: Parameters<typeof converseStream>[0]; stop: string },
): Promise<CloudRun> {
  return cloudRun(
    {
      provider: "bedrock",
      model: MODEL,
      region: "us-east-1",
      access_key_id_env: "KAGENT_TEST_AWS_ID",
      secret_access_key_env: "KAGENT_TEST_AWS_SECRET",
      session_token_env: "KAGENT_TEST_AWS_SESSION",
    },
    (_request, index) =>
      index === 0
        ? converseStream(first.blocks, first.stop, "bedrock-req-0")
        : converseStream([answer], "end_turn", `bedrock-req-${index}`),
    {
      KAGENT_TEST_AWS_ID: ACCESS_KEY_ID,
      KAGENT_TEST_AWS_SECRET: SECRET,
      KAGENT_TEST_AWS_SESSION: SESSION,
    },
  );
}

Deno.test("kagent-run drives Bedrock ConverseStream: SigV4 from the named variables, reasoning sent back signed, split tool input run once", async () => {
  const result = await run({
    blocks: [reasoning, toolUse("fs__read_file", '{"path": "README.md"}')],
    stop: "tool_use",
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /A small project\./);
  const [first, second] = result.requests;
  assert.equal(decodeURIComponent(first?.url.pathname ?? ""), `/model/${MODEL}/converse-stream`);
  assert.match(
    first?.headers.get("authorization") ?? "",
    new RegExp(
      `^AWS4-HMAC-SHA256 Credential=${ACCESS_KEY_ID}/\\d{8}/us-east-1/bedrock/aws4_request`,
    ),
  );
  assert.equal(first?.headers.get("x-amz-security-token"), SESSION);
  const messages = second?.body.messages as { role: string; content: Record<string, unknown>[] }[];
  assert.deepEqual(messages.map((message) => message.role), ["user", "assistant", "user"]);
  assert.deepEqual(messages[1]?.content, [
    { reasoningContent: { reasoningText: { text: THINKING, signature: SIGNATURE } } },
    {
      toolUse: {
        toolUseId: "tooluse_kagent1",
        name: "fs__read_file",
        input: { path: "README.md" },
      },
    },
  ]);
  const result0 = messages[2]?.content[0]?.toolResult as { toolUseId: string; content: unknown };
  assert.equal(result0.toolUseId, "tooluse_kagent1");
  assert.match(JSON.stringify(result0.content), /A small project\./);
  const turns = result.events.filter((event) => event.type === "model.responded");
  assert.deepEqual(turns.map((turn) => turn.request_id), ["bedrock-req-0", "bedrock-req-1"]);
  assert.deepEqual(turns[0]?.usage, {
    input_tokens: 500,
    output_tokens: 50,
    cache_read_input_tokens: 200,
    cache_creation_input_tokens: 0,
  });
  for (const [path, text] of result.files) {
    for (const secret of [SECRET, SESSION]) assert.equal(text.includes(secret), false, path);
  }
  // run.json names the provider, the model and the region, to match with the cloud's logs.
  const runJson = [...result.files].find(([path]) => path.endsWith("/run.json"))?.[1] ?? "{}";
  const model = JSON.parse(runJson).model;
  assert.deepEqual([model.provider, model.model, model.parameters.region], [
    "bedrock",
    MODEL,
    "us-east-1",
  ]);
});

Deno.test("kagent-run never runs a Bedrock call cut at max_tokens, stopped by a guardrail, or out of context window", async () => {
  const write = toolUse("fs__write_file", '{"path":"notes.md","content":"x"}');
  for (
    const [stop, code] of [
      ["max_tokens", "truncated"],
      ["guardrail_intervened", "refused"],
      ["model_context_window_exceeded", "context_window_exceeded"],
    ]
  ) {
    const result = await run({ blocks: [write], stop: stop as string });
    assert.notEqual(result.code, 0, stop);
    const end = result.events.find((event) => event.type === "run.completed");
    assert.deepEqual([end?.end_reason, end?.error_code], ["model_error", code], stop);
    assert.equal(result.events.some((event) => event.type === "tool.started"), false, stop);
    assert.equal(result.workspaceFiles.has("notes.md"), false, stop);
  }
  const whole = await run({ blocks: [write], stop: "tool_use" });
  assert.equal(whole.code, 0, whole.stderr);
  assert.equal(whole.workspaceFiles.get("notes.md"), "x");
});

Deno.test("kagent-run assumes a role with the OIDC token file through STS, and signs Bedrock requests with what STS gave", async () => {
  const folder = await Deno.makeTempDir({ prefix: "kagent-web-identity-" });
  try {
    const jwt = "eyJhbGciOiJSUzI1NiJ9.kagent-test-oidc-token.c2lnbmF0dXJl";
    const tokenFile = `${folder}/token`;
    await Deno.writeTextFile(tokenFile, `${jwt}\n`);
    const assumed = {
      id: "ASIAKAGENTASSUMED001",
      secret: "assumed/secret/access/key/kagent/0123456789",
      session: "FwoGZXIvYXdzEKagentAssumedSessionToken0123456789",
    };
    const stsAnswer =
      `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <Credentials>
      <AccessKeyId>${assumed.id}</AccessKeyId>
      <SecretAccessKey>${assumed.secret}</SecretAccessKey>
      <SessionToken>${assumed.session}</SessionToken>
      <Expiration>2099-01-01T00:00:00Z</Expiration>
    </Credentials>
  </AssumeRoleWithWebIdentityResult>
</AssumeRoleWithWebIdentityResponse>`;
    const result = await cloudRun(
      (origin) => ({
        provider: "bedrock",
        model: MODEL,
        region: "us-east-1",
        role_arn_env: "KAGENT_TEST_ROLE_ARN",
        web_identity_token_file_env: "KAGENT_TEST_TOKEN_FILE",
        sts_base_url: `${origin}/sts`,
      }),
      (request, index) => {
        if (request.url.pathname.startsWith("/sts")) {
          return new Response(stsAnswer, { headers: { "content-type": "text/xml" } });
        }
        return index <= 1
          ? converseStream([toolUse("fs__read_file", '{"path": "README.md"}')], "tool_use", "r0")
          : converseStream([answer], "end_turn", "r1");
      },
      {
        KAGENT_TEST_ROLE_ARN: "arn:aws:iam::123456789012:role/kagent-ci",
        KAGENT_TEST_TOKEN_FILE: tokenFile,
        // Static keys in the environment are not used when a role is named.
        AWS_ACCESS_KEY_ID: "AKIASHOULDNOTBEUSED0",
        AWS_SECRET_ACCESS_KEY: "should/not/be/used/0123456789",
      },
    );
    const forms = result.requests.filter((request) => request.url.pathname.startsWith("/sts"))
      .map((request) => new URLSearchParams(request.text));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(forms.length, 1, "one exchange: the credentials are reused");
    assert.deepEqual(
      [forms[0]?.get("Action"), forms[0]?.get("RoleArn"), forms[0]?.get("WebIdentityToken")],
      ["AssumeRoleWithWebIdentity", "arn:aws:iam::123456789012:role/kagent-ci", jwt],
    );
    const bedrock = result.requests.filter((request) => !request.url.pathname.startsWith("/sts"));
    assert.equal(bedrock.length, 2);
    for (const request of bedrock) {
      assert.match(
        request.headers.get("authorization") ?? "",
        new RegExp(`Credential=${assumed.id}/`),
      );
      assert.equal(request.headers.get("x-amz-security-token"), assumed.session);
    }
    for (const [path, text] of result.files) {
      for (const secret of [jwt, assumed.secret, assumed.session]) {
        assert.equal(text.includes(secret), false, path);
      }
    }
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
