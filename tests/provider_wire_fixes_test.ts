// Whole runs against loopback servers that speak the wire the way the official SDKs' own recorded
// fixtures do, for what kagent-run used to get wrong: Anthropic thinking blocks before a tool_use
// go back complete and unmodified; an OpenAI-compatible stream whose tool-call pieces carry no
// `index`, or whose arguments come as an object, runs each call once and whole; a `data:` line
// that is not JSON, an `event: error` without an `error` key, and a `[DONE]` without a
// finish_reason end the run failed with the server's words and no call run; an empty end_turn is
// answered once with "Please continue". Each beside its near miss.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import {
  serveEventStream,
  sseEvent,
  type StreamScript,
} from "../src/testing/event_stream_server.ts";
import { OpenAiProvider } from "../src/agent/providers/mod.ts";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";

type Json = Record<string, unknown>;

/** A Messages API stream (named events, as the API and the SDK fixtures send them). */
function messagesStream(blocks: { start: Json; deltas?: Json[] }[], stopReason: string) {
  const chunks = [
    sseEvent({
      type: "message_start",
      message: {
        id: "msg_01",
        type: "message",
        role: "assistant",
        content: [],
        model: "claude-test",
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 20, output_tokens: 1 },
      },
    }, "message_start"),
  ];
  blocks.forEach((block, index) => {
    chunks.push(sseEvent(
      { type: "content_block_start", index, content_block: block.start },
      "content_block_start",
    ));
    for (const delta of block.deltas ?? []) {
      chunks.push(sseEvent({ type: "content_block_delta", index, delta }, "content_block_delta"));
    }
    chunks.push(sseEvent({ type: "content_block_stop", index }, "content_block_stop"));
  });
  chunks.push(
    sseEvent({
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 30 },
    }, "message_delta"),
    sseEvent({ type: "message_stop" }, "message_stop"),
  );
  return { chunks };
}

const THINKING = "The user wants the README. I should read it first.";
const SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds";
const REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr";

Deno.test("kagent-run sends Anthropic thinking and redacted_thinking blocks back complete and unmodified, and records them", async () => {
  await using server = serveEventStream((_body, index) =>
    index === 0
      ? messagesStream([
        {
          start: { type: "thinking", thinking: "", signature: "" },
          deltas: [
            { type: "thinking_delta", thinking: THINKING.slice(0, 20) },
            { type: "thinking_delta", thinking: THINKING.slice(20) },
            { type: "signature_delta", signature: SIGNATURE },
          ],
        },
        { start: { type: "redacted_thinking", data: REDACTED } },
        {
          start: { type: "tool_use", id: "toolu_read", name: "fs__read_file", input: {} },
          deltas: [
            { type: "input_json_delta", partial_json: '{"path": "REA' },
            { type: "input_json_delta", partial_json: 'DME.md"}' },
          ],
        },
      ], "tool_use")
      : messagesStream([{
        start: { type: "text", text: "" },
        deltas: [{ type: "text_delta", text: "It is small." }],
      }], "end_turn")
  );
  await using project = await createProject({
    config: {
      model: { provider: "anthropic", model: "claude-test", base_url: server.baseUrl, retries: 0 },
      task: "Read the README",
    },
  });
  const { code, stdout, stderr } = await runCli(["--config", project.configPath]);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /It is small\./);
  const messages = server.received[1]?.messages as { role: string; content: unknown }[];
  assert.deepEqual(messages[1], {
    role: "assistant",
    content: [
      { type: "thinking", thinking: THINKING, signature: SIGNATURE },
      { type: "redacted_thinking", data: REDACTED },
      { type: "tool_use", id: "toolu_read", name: "fs__read_file", input: { path: "README.md" } },
    ],
  });
  // The tool ran and its result followed (near miss: the turn still acts on its call).
  assert.match(JSON.stringify(messages[2]), /A small project\./);
  const events = await readJsonl(nodePath.join(await onlyRunDir(project), "events.jsonl"));
  const turns = events.filter((event) => event.type === "model.responded");
  assert.deepEqual((turns[0]?.provider_content as Json[]).slice(0, 2), [
    { type: "thinking", thinking: THINKING, signature: SIGNATURE },
    { type: "redacted_thinking", data: REDACTED },
  ]);
  // A turn without thinking records none.
  assert.equal("provider_content" in (turns[1] ?? {}), false);
});

const chunk = (delta: Json, finishReason: string | null = null) =>
  sseEvent({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    model: "gpt-test",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });

const finalAnswer: StreamScript = {
  chunks: [chunk({ role: "assistant", content: "Done." }), chunk({}, "stop"), "data: [DONE]\n\n"],
};

/** A run against a loopback OpenAI-compatible server answering `first`, then `finalAnswer`. */
async function openAiRun(first: StreamScript) {
  const server = serveEventStream((_body, index) => index === 0 ? first : finalAnswer);
  const project = await createProject({
    config: {
      model: { provider: "openai", model: "gpt-test", base_url: server.baseUrl, retries: 0 },
      task: "Read the files",
    },
    permissions: {
      rules: [{ tools: ["fs.write_file"], paths: ["notes.md"], decision: "allow" }],
    },
  });
  try {
    const run = await runCli(["--config", project.configPath]);
    const runDir = await onlyRunDir(project);
    const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
    const tools = await readJsonl(nodePath.join(runDir, "logs/tools.jsonl"));
    return { ...run, received: server.received, events, tools };
  } finally {
    await project[Symbol.asyncDispose]();
    await server[Symbol.asyncDispose]();
  }
}

interface SentCall {
  id: string;
  function: { name: string; arguments: string };
}

function sentCalls(received: Json[]): SentCall[] {
  const messages = received[1]?.messages as { role: string; tool_calls?: SentCall[] }[];
  return messages.find((message) => message.role === "assistant")?.tool_calls ?? [];
}

Deno.test("kagent-run joins tool-call pieces that carry no index: a piece without id or name continues the last call", async () => {
  const piece = (fields: Json) => chunk({ tool_calls: [fields] });
  const run = await openAiRun({
    chunks: [
      piece({ id: "call_a", type: "function", function: { name: "fs__read_file", arguments: "" } }),
      ...['{"pa', 'th": ', '"READ', 'ME.md"', "}"].map((text) =>
        piece({ function: { arguments: text } })
      ),
      // Near miss: a piece with its own id starts a second call.
      piece({ id: "call_b", type: "function", function: { name: "fs__read_file" } }),
      piece({ function: { arguments: '{"path": "src/main.ts"}' } }),
      chunk({}, "tool_calls"),
      "data: [DONE]\n\n",
    ],
  });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(
    sentCalls(run.received).map((call) => [call.id, call.function.name, call.function.arguments]),
    [
      ["call_a", "fs__read_file", '{"path": "README.md"}'],
      ["call_b", "fs__read_file", '{"path": "src/main.ts"}'],
    ],
  );
  const results = run.events.filter((event) => event.type === "tool.completed");
  assert.deepEqual(results.map((event) => event.tool_call_id), ["call_a", "call_b"]);
  assert.equal(run.tools.length, 2);
});

Deno.test("kagent-run reads tool-call arguments streamed as an object (Ollama-style) as their JSON text", async () => {
  const run = await openAiRun({
    chunks: [
      chunk({
        tool_calls: [{
          index: 0,
          id: "call_obj",
          type: "function",
          function: { name: "fs__read_file", arguments: { path: "README.md" } },
        }],
      }),
      chunk({}, "tool_calls"),
      "data: [DONE]\n\n",
    ],
  });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(sentCalls(run.received)[0]?.function.arguments, '{"path":"README.md"}');
  assert.match(JSON.stringify(run.received[1]?.messages), /A small project\./);
});

/** A stream that asks to write `notes.md`, then goes wrong as `ending` says. */
function writeThen(ending: string[]): StreamScript {
  return {
    chunks: [
      chunk({
        tool_calls: [{
          index: 0,
          id: "call_write",
          type: "function",
          function: { name: "fs__write_file", arguments: '{"path":"notes.md","content":"x"}' },
        }],
      }),
      ...ending,
    ],
  };
}

Deno.test("kagent-run fails a stream whose data is not JSON, whose error event has no error key, or whose [DONE] has no finish_reason; no call runs", async () => {
  const cases: [string, string[], RegExp][] = [
    [
      "not JSON",
      ["data: {not json\n\n", chunk({}, "tool_calls"), "data: [DONE]\n\n"],
      /not a JSON object: \{not json/,
    ],
    [
      "error event",
      [`event: error\ndata: {"message":"Upstream model overloaded","code":503}\n\n`],
      /the server sent an error: Upstream model overloaded/,
    ],
    ["[DONE] without finish_reason", ["data: [DONE]\n\n"], /\[DONE\] came without a finish_reason/],
  ];
  for (const [name, ending, expected] of cases) {
    const run = await openAiRun(writeThen(ending));
    assert.notEqual(run.code, 0, name);
    const end = run.events.find((event) => event.type === "run.completed");
    assert.deepEqual([end?.end_reason, end?.error_code], ["model_error", "provider_failed"], name);
    assert.match(String(end?.error), expected, name);
    assert.equal(run.events.some((event) => event.type === "tool.started"), false, name);
  }
  // Near miss: the same call with a finish_reason and [DONE] runs.
  const whole = await openAiRun(writeThen([chunk({}, "tool_calls"), "data: [DONE]\n\n"]));
  assert.equal(whole.code, 0, whole.stderr);
  assert.ok(whole.events.some((event) => event.type === "tool.completed"));
});

/** A non-streamed Messages answer. */
function message(content: unknown[], stopReason: string) {
  return Response.json({
    id: "msg",
    type: "message",
    role: "assistant",
    content,
    stop_reason: stopReason,
    usage: { input_tokens: 9, output_tokens: 5 },
  });
}

Deno.test("kagent-run answers an empty end_turn after tool results once with 'Please continue', and fails when empty again", async () => {
  for (const emptyTwice of [false, true]) {
    await using server = serveEventStream((_body, index) => {
      if (index === 0) {
        return message([{
          type: "tool_use",
          id: "toolu_read",
          name: "fs__read_file",
          input: { path: "README.md" },
        }], "tool_use");
      }
      if (index === 1 || (index === 2 && emptyTwice)) return message([], "end_turn");
      return message([{ type: "text", text: "The README is short." }], "end_turn");
    });
    await using project = await createProject({
      config: {
        model: {
          provider: "anthropic",
          model: "claude-test",
          base_url: server.baseUrl,
          retries: 0,
          stream: false,
        },
        task: "Read the README",
      },
    });
    const { code, stdout, stderr } = await runCli(["--config", project.configPath]);
    const events = await readJsonl(nodePath.join(await onlyRunDir(project), "events.jsonl"));
    const retried = events.filter((event) => event.type === "model.retried");
    assert.deepEqual(retried.map((event) => [event.turn, event.reason]), [[2, "empty_response"]]);
    assert.equal(server.received.length, 3);
    // The continuation is a text block after the tool results, in the same user turn.
    const messages = server.received[2]?.messages as { role: string; content: unknown }[];
    assert.deepEqual(messages.map((entry) => entry.role), ["user", "assistant", "user"]);
    const last = messages[2]?.content as { type: string; text?: string }[];
    assert.deepEqual(last.map((block) => block.type), ["tool_result", "text"]);
    assert.equal(last[1]?.text, "Please continue");
    const end = events.find((event) => event.type === "run.completed");
    if (emptyTwice) {
      assert.notEqual(code, 0);
      assert.deepEqual([end?.end_reason, end?.error_code], ["model_error", "provider_failed"]);
      assert.match(String(end?.error), /empty response/);
    } else {
      assert.equal(code, 0, stderr);
      assert.match(stdout, /The README is short\./);
      assert.equal(end?.end_reason, "completed");
    }
  }
});

Deno.test("a Retry-After above 60 s is not waited for: the client's own backoff applies (near miss: 2 s is)", async () => {
  for (const [retryAfter, expected] of [["3600", 40], ["2", 2000]] as const) {
    await using server = serveEventStream((_body, index) =>
      index === 0
        ? Response.json({ error: { message: "rate limited" } }, {
          status: 429,
          headers: { "retry-after": retryAfter },
        })
        : finalAnswer
    );
    const sleeps: number[] = [];
    const provider = new OpenAiProvider({
      model: "gpt-test",
      base_url: server.baseUrl,
      api_key: null,
      timeout_ms: 10_000,
      retries: 1,
      backoff_ms: 40,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
    });
    const turn = await provider.complete({
      system: "s",
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      run: { run_id: "r", workspace: "/w", deliverables: "/w/d", scratch: "/w/s" },
    });
    assert.equal(turn.text, "Done.");
    assert.equal(sleeps.length, 1, retryAfter);
    // The own backoff's first wait is 40 ms less up to 25 % jitter.
    if (expected === 40) assert.ok(sleeps[0]! <= 40 && sleeps[0]! >= 30, String(sleeps[0]));
    else assert.equal(sleeps[0], expected);
  }
});
