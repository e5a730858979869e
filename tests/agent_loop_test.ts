// The agent loop over the real pipeline: every call answered by id, max_turns, denials fed back,
// the tool set checked against the provider before the first request, raw provider names kept,
// ids unique across the run, a cut-off turn never completed (and retried once when asked).
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { type ModelProvider, runAgent, ScriptProvider } from "../src/agent/mod.ts";
import type { AgentOptions } from "../src/agent/agent_loop.ts";
import { countResults } from "../src/runtime/result_counts.ts";
import type { ModelRequest, ModelTurn } from "../src/agent/model_provider.ts";
import { OpenAiProvider } from "../src/agent/providers/openai_provider.ts";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import { describeTool } from "../src/tools/tool_definition.ts";

async function agentRun(lines: unknown[], maxTurns = 10) {
  const run = await openTestRun({
    prepare: (sandbox) => Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "alpha\n"),
  });
  const provider = ScriptProvider.fromText(lines.map((line) => JSON.stringify(line)).join("\n"));
  const outcome = await runAgent({
    provider,
    runtime: run.session.runtime,
    recorder: run.session.recorder,
    tools: run.session.registry.list().map((tool) => describeTool(tool.definition)).filter((tool) =>
      run.session.policy.isAvailable(tool.name)
    ),
    system: "test",
    task: "test",
    run: {
      run_id: run.session.folder.id,
      workspace: run.sandbox.workspace,
      deliverables: run.session.folder.paths.deliverables,
      scratch: run.session.folder.paths.workspace,
    },
    maxTurns,
  });
  return { run, provider, outcome };
}

Deno.test("agent loop answers every tool call by id, denials and bad arguments included", async () => {
  const { run, provider, outcome } = await agentRun([
    {
      tool_calls: [
        { id: "ok", name: "fs.read_file", arguments: { path: "a.txt" } },
        { id: "bad-json", name: "fs.read_file", arguments: "{oops" },
        { id: "unknown", name: "fs.teleport", arguments: {} },
        { id: "outside", name: "fs.read_file", arguments: { path: "/etc/passwd" } },
      ],
    },
    { content: "done" },
  ]);
  await using _ = run;
  assert.equal(outcome.end_reason, "completed");
  assert.equal(outcome.final_text, "done");
  assert.deepEqual(
    outcome.results.map((result) => [result.tool_call_id, result.error?.type ?? "ok"]),
    [
      ["ok", "ok"],
      ["bad-json", "invalid_arguments"],
      ["unknown", "tool_not_available"],
      // An unknown tool is a readonly failure (issue 11): the read after it still runs (and
      // the guard denies it), where a denial would have skipped it.
      ["outside", "path_outside_sandbox"],
    ],
  );
  // The second request carries one tool message per call, paired by id.
  const second = provider.requests[1];
  assert.ok(second);
  const toolMessages = second.messages.filter((message) => message.role === "tool");
  assert.deepEqual(
    toolMessages.map((message) => message.role === "tool" ? message.tool_call_id : ""),
    ["ok", "bad-json", "unknown", "outside"],
  );
  assert.doesNotMatch(JSON.stringify(second.messages), /root:x:0:0/);
  // Only the effective tool set is offered: fs.delete_file is off.
  assert.ok(!second.tools.some((tool) => tool.name === "fs.delete_file"));
  // The unknown tool and the outside read are denials; the malformed arguments a failure.
  assert.deepEqual(countResults(outcome.results), { calls: 4, denied: 2, failed: 1, skipped: 0 });
});

Deno.test("agent loop stops at max_turns", async () => {
  const turn = { tool_calls: [{ name: "fs.list_files", arguments: { path: "." } }] };
  const { run, outcome } = await agentRun([turn, turn, turn, turn], 2);
  await using _ = run;
  assert.equal(outcome.end_reason, "max_turns");
  assert.equal(outcome.turns, 2);
  assert.equal(outcome.results.length, 2);
});

/** A loopback OpenAI-compatible server answering with `replies` in order; counts requests. */
function chatServer(replies: Record<string, unknown>[]) {
  const received: Record<string, unknown>[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    received.push(await req.json());
    const message = replies.shift() ?? { content: "no more replies" };
    return Response.json({
      choices: [{
        index: 0,
        message: { role: "assistant", content: null, ...message },
        finish_reason: "tool_calls" in message ? "tool_calls" : "stop",
      }],
    });
  });
  return { received, baseUrl: `http://127.0.0.1:${server.addr.port}/v1`, server };
}

/** Runs the loop over `run` with `provider` and the run's effective tool set. */
function runWith(run: TestRun, provider: ModelProvider) {
  return runAgent(agentOptions(run, provider));
}

/** The loop's options over `run` with `provider` and the run's effective tool set. */
function agentOptions(run: TestRun, provider: ModelProvider): AgentOptions {
  return {
    provider,
    runtime: run.session.runtime,
    recorder: run.session.recorder,
    tools: run.session.registry.list().map((tool) => describeTool(tool.definition)).filter((tool) =>
      run.session.policy.isAvailable(tool.name)
    ),
    system: "test",
    task: "test",
    run: {
      run_id: run.session.folder.id,
      workspace: run.sandbox.workspace,
      deliverables: run.session.folder.paths.deliverables,
      scratch: run.session.folder.paths.workspace,
    },
    maxTurns: 5,
  };
}

/** A run with one declarative tool whose `when` property has the given string format. */
function runWithFormat(format: string): Promise<TestRun> {
  return openTestRun({
    config: {
      commands: ["echo"],
      sandbox: { command_isolation: "none" },
      tools: { dirs: ["../tools"] },
    },
    prepare: async (sandbox) => {
      await Deno.mkdir(nodePath.join(sandbox.root, "tools"));
      await Deno.writeTextFile(
        nodePath.join(sandbox.root, "tools", "stamp.json"),
        JSON.stringify({
          name: "demo.stamp",
          description: "Prints a timestamp",
          input_schema: {
            type: "object",
            properties: { when: { type: "string", format } },
            required: ["when"],
          },
          permission: "readonly",
          tags: ["demo"],
          command_type: "exec",
          command: "echo",
          args: ["{{when}}"],
          working_dir: ".",
          env_allowlist: [],
          timeout_ms: 10_000,
          stdout_limit_bytes: 65_536,
          stderr_limit_bytes: 16_384,
        }),
      );
    },
  });
}

Deno.test("agent loop ends a strict OpenAI run before any request when a tool schema is unsupported", async () => {
  const chat = chatServer([{ content: "never" }]);
  try {
    await using run = await runWithFormat("uri");
    const provider = new OpenAiProvider({
      model: "gpt-test",
      base_url: chat.baseUrl,
      api_key: null,
      timeout_ms: 5_000,
      retries: 0,
      strict: true,
    });
    const outcome = await runWith(run, provider);
    const message = 'Cannot send tool "demo.stamp" to openai (strict mode): property "when" of ' +
      'its input schema uses format "uri", which strict mode does not support; remove "format" ' +
      'or use one of "date-time", "time", "date", "duration", "email", "hostname", "ipv4", ' +
      '"ipv6", "uuid"';
    assert.equal(outcome.end_reason, "model_error");
    assert.equal(outcome.error, message);
    assert.equal(outcome.turns, 0);
    assert.equal(chat.received.length, 0, "no request may reach the provider");
    const errors = await run.readLog("errors");
    assert.deepEqual(errors.map((line) => [line.source, line.code, line.problems]), [
      ["model", "tools_unsupported", [message]],
    ]);
    const events = await run.readLog("events");
    assert.equal(events.filter((event) => event.type === "model.responded").length, 0);
  } finally {
    await chat.server.shutdown();
  }
});

Deno.test("agent loop runs a strict OpenAI run when every tool schema is supported", async () => {
  const chat = chatServer([{ content: "done" }]);
  try {
    await using run = await runWithFormat("date");
    const provider = new OpenAiProvider({
      model: "gpt-test",
      base_url: chat.baseUrl,
      api_key: null,
      timeout_ms: 5_000,
      retries: 0,
      strict: true,
    });
    const outcome = await runWith(run, provider);
    assert.equal(outcome.end_reason, "completed", outcome.error ?? "");
    assert.equal(chat.received.length, 1);
    const sent = chat.received[0]?.tools as { function: { name: string; strict?: boolean } }[];
    assert.ok(sent.some((tool) => tool.function.name === "demo__stamp"));
    assert.ok(sent.every((tool) => tool.function.strict === true));
  } finally {
    await chat.server.shutdown();
  }
});

Deno.test("agent loop keeps the model's raw tool names and ids in the audit", async () => {
  const chat = chatServer([
    {
      tool_calls: [
        {
          id: "call_read",
          type: "function",
          function: { name: "fs__read_file", arguments: '{"path":"a.txt"}' },
        },
        { type: "function", function: { name: "nope__tool", arguments: "{}" } },
      ],
    },
    { content: "done" },
  ]);
  try {
    await using run = await openTestRun({
      prepare: (sandbox) => Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "alpha\n"),
    });
    const provider = new OpenAiProvider({
      model: "gpt-test",
      base_url: chat.baseUrl,
      api_key: null,
      timeout_ms: 5_000,
      retries: 0,
    });
    const outcome = await runWith(run, provider);
    assert.equal(outcome.end_reason, "completed", outcome.error ?? "");
    assert.deepEqual(
      outcome.results.map((result) => [result.tool_call_id, result.tool, result.error?.type]),
      [["call_read", "fs.read_file", undefined], ["call-1", "nope__tool", "tool_not_available"]],
    );
    const events = await run.readLog("events");
    const turn = events.find((event) => event.type === "model.responded");
    assert.deepEqual(turn?.tool_calls, [
      {
        id: "call_read",
        name: "fs.read_file",
        provider: { name: "fs__read_file", id: "call_read" },
      },
      // The unknown name stays raw; the id was generated, so the raw id is null.
      { id: "call-1", name: "nope__tool", provider: { name: "nope__tool", id: null } },
    ]);
    const denied = events.find((event) => event.type === "tool.denied");
    assert.equal(denied?.tool, "nope__tool");
    assert.deepEqual(denied?.provider, { name: "nope__tool", id: null });
    const completed = events.find((event) => event.type === "tool.completed");
    assert.deepEqual(completed?.provider, { name: "fs__read_file", id: "call_read" });
    const tools = await run.readLog("tools");
    assert.deepEqual(tools.map((line) => [line.tool_call_id, line.tool, line.provider]), [
      ["call_read", "fs.read_file", { name: "fs__read_file", id: "call_read" }],
      ["call-1", "nope__tool", { name: "nope__tool", id: null }],
    ]);
  } finally {
    await chat.server.shutdown();
  }
});

Deno.test("agent loop makes ids a plan repeats unique, keeps the plan's id, and templates the latest", async () => {
  const { run, provider, outcome } = await agentRun([
    {
      tool_calls: [
        { id: "a", name: "fs.read_file", arguments: { path: "a.txt" } },
        { id: "a", name: "fs.list_files", arguments: { path: "." } },
      ],
    },
    { tool_calls: [{ id: "a", name: "fs.read_file", arguments: { path: "a.txt" } }] },
    { content: "last: {{a.summary}}" },
  ]);
  await using _ = run;
  assert.equal(outcome.end_reason, "completed", outcome.error ?? "");
  assert.deepEqual(outcome.results.map((result) => result.tool_call_id), ["a", "a-2", "a-3"]);
  // tools.jsonl is in completion order: the first turn's two readonly calls ran in parallel.
  const tools = (await run.readLog("tools")).sort((one, other) =>
    String(one.tool_call_id).localeCompare(String(other.tool_call_id))
  );
  assert.deepEqual(tools.map((line) => [line.tool_call_id, line.provider]), [
    ["a", undefined],
    ["a-2", { name: "fs.list_files", id: "a" }],
    ["a-3", { name: "fs.read_file", id: "a" }],
  ]);
  // Every result pairs with exactly one call on the conversation too.
  const last = provider.requests[2]?.messages ?? [];
  assert.deepEqual(
    last.flatMap((message) => message.role === "tool" ? [message.tool_call_id] : []),
    ["a", "a-2", "a-3"],
  );
  assert.match(outcome.final_text ?? "", /^last: Read/);
});

/** A provider that answers with prepared turns and records the limits it was asked for. */
class PreparedProvider implements ModelProvider {
  readonly name = "prepared";
  readonly limits: (number | undefined)[] = [];
  readonly #turns: ModelTurn[];
  constructor(turns: ModelTurn[]) {
    this.#turns = turns;
  }
  checkTools(): string[] {
    return [];
  }
  complete(request: ModelRequest): Promise<ModelTurn> {
    this.limits.push(request.max_tokens);
    const turn = this.#turns.shift();
    return turn === undefined ? Promise.reject(new Error("no more turns")) : Promise.resolve(turn);
  }
}

const cutText = (usage: ModelTurn["usage"]): ModelTurn => ({
  text: "The answer is forty-",
  tool_calls: [],
  usage,
  stop: { reason: "truncated", provider: { finish_reason: "length" }, max_tokens: null },
});

Deno.test("agent loop ends a text answer cut off at the output limit truncated, never completed", async () => {
  await using run = await openTestRun();
  const provider = new PreparedProvider([cutText(null)]);
  const outcome = await runWith(run, provider);
  assert.equal(outcome.end_reason, "model_error");
  assert.equal(outcome.error_code, "truncated");
  assert.equal(outcome.final_text, null);
  assert.deepEqual(outcome.error_details?.not_executed, []);
});

Deno.test("agent loop retries a cut-off turn at twice its output tokens when no limit was sent", async () => {
  await using run = await openTestRun();
  const provider = new PreparedProvider([
    cutText({ input_tokens: 10, output_tokens: 300 }),
    { text: "The answer is forty-two.", tool_calls: [], usage: null },
  ]);
  const outcome = await runAgent({ ...agentOptions(run, provider), retryTruncated: true });
  assert.equal(outcome.end_reason, "completed", outcome.error ?? "");
  assert.equal(outcome.final_text, "The answer is forty-two.");
  assert.deepEqual(provider.limits, [undefined, 600]);
  assert.equal(outcome.turns, 1, "a retry is the same turn");
});

Deno.test("agent loop ends truncated without a retry when no limit is known", async () => {
  await using run = await openTestRun();
  const provider = new PreparedProvider([cutText(null), cutText(null)]);
  const outcome = await runAgent({ ...agentOptions(run, provider), retryTruncated: true });
  assert.equal(outcome.error_code, "truncated");
  assert.deepEqual(provider.limits, [undefined]);
});
