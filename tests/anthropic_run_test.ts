// A whole run against an Anthropic Messages endpoint served on loopback: tool_use blocks in,
// tool_result blocks first in the next user turn, a file edited in the workspace, a deliverable,
// an answer.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";

interface MessagesRequest {
  /** One text block marked for prompt caching. */
  system?: { type: string; text: string; cache_control?: unknown }[];
  messages: {
    role: string;
    content: string | { type: string; tool_use_id?: string; is_error?: boolean }[];
  }[];
  tools?: { name: string }[];
}

function reply(content: unknown[], stop = "end_turn") {
  return Response.json({
    id: "msg",
    type: "message",
    role: "assistant",
    content,
    stop_reason: stop,
    usage: { input_tokens: 9, output_tokens: 5 },
  });
}

Deno.test("kagent-run drives an Anthropic model end to end: tool_use, tool_result, edit, deliverable", async () => {
  const seen: MessagesRequest[] = [];
  const keys: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.json() as MessagesRequest;
      seen.push(body);
      keys.push(request.headers.get("x-api-key") ?? "");
      const results = body.messages.flatMap((message) =>
        Array.isArray(message.content)
          ? message.content.filter((block) => block.type === "tool_result")
          : []
      );
      if (results.length === 0) {
        return reply([{
          type: "tool_use",
          id: "toolu_read",
          name: "fs__read_file",
          input: { path: "README.md" },
        }, {
          type: "tool_use",
          id: "toolu_missing",
          name: "fs__read_file",
          input: { path: "missing.md" },
        }], "tool_use");
      }
      if (results.length === 2) {
        return reply([{
          type: "tool_use",
          id: "toolu_edit",
          name: "fs__edit_file",
          input: {
            path: "README.md",
            edits: [{ old: "A small project.", new: "A small, tested project." }],
          },
        }], "tool_use");
      }
      if (results.length === 3) {
        const deliverables =
          /hand over \(reports, patches\) under "([^"]+)"/.exec(body.system?.[0]?.text ?? "")
            ?.[1] ??
            "missing";
        return reply([{
          type: "tool_use",
          id: "toolu_write",
          name: "fs__write_file",
          input: { path: `${deliverables}/notes.md`, content: "noted\n" },
        }], "tool_use");
      }
      return reply([{ type: "text", text: "Notes written." }]);
    },
  );
  Deno.env.set("KAGENT_TEST_ANTHROPIC_KEY", "sk-ant-test-key-not-real-123456");
  try {
    await using project = await createProject({
      config: {
        model: {
          provider: "anthropic",
          model: "test-model",
          base_url: `http://127.0.0.1:${server.addr.port}/v1`,
          api_key_env: "KAGENT_TEST_ANTHROPIC_KEY",
          retries: 0,
        },
        task: "Write notes and sharpen the README",
      },
      permissions: {
        rules: [{ tools: ["fs.edit_file"], paths: ["README.md"], decision: "allow" }],
      },
    });
    const { code, stdout, stderr } = await runCli(["--config", project.configPath]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /Notes written\./);
    const runDir = await onlyRunDir(project);
    assert.equal(
      await Deno.readTextFile(nodePath.join(runDir, "deliverables/notes.md")),
      "noted\n",
    );
    // The edit changed only its line: the heading is kept, the other file untouched.
    const workspace = project.sandbox.workspace;
    assert.equal(
      await Deno.readTextFile(nodePath.join(workspace, "README.md")),
      "# Demo\n\nA small, tested project.\n",
    );
    assert.equal(
      await Deno.readTextFile(nodePath.join(workspace, "src/main.ts")),
      "// TODO: write the program\nconsole.log(1);\n",
    );
    const edited = seen[2]?.messages.at(-1);
    const editBlocks = Array.isArray(edited?.content) ? edited.content : [];
    assert.deepEqual(editBlocks.map((block) => [block.tool_use_id, block.is_error]), [
      ["toolu_edit", false],
    ]);
    // Results come first in the next user turn, paired by id, the failed one marked is_error.
    const second = seen[1]?.messages.at(-1);
    assert.equal(second?.role, "user");
    const blocks = Array.isArray(second?.content) ? second.content : [];
    assert.deepEqual(blocks.map((block) => [block.type, block.tool_use_id, block.is_error]), [
      ["tool_result", "toolu_read", false],
      ["tool_result", "toolu_missing", true],
    ]);
    assert.ok(keys.every((key) => key === "sk-ant-test-key-not-real-123456"));
    assert.doesNotMatch(
      await Deno.readTextFile(nodePath.join(runDir, "events.jsonl")),
      /sk-ant-test-key-not-real/,
    );
  } finally {
    Deno.env.delete("KAGENT_TEST_ANTHROPIC_KEY");
    await server.shutdown();
  }
});

/**
 * A run whose model answers from `answer(body, index)` on a loopback Messages endpoint; returns
 * the CLI's result, the requests the server saw, and the run folder.
 */
async function messagesRun(
  answer: (body: MessagesRequest, index: number) => Response,
  config: Record<string, unknown> = {},
) {
  const seen: MessagesRequest[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.json() as MessagesRequest;
      seen.push(body);
      return answer(body, seen.length - 1);
    },
  );
  try {
    const project = await createProject({
      config: {
        model: {
          provider: "anthropic",
          model: "test-model",
          base_url: `http://127.0.0.1:${server.addr.port}/v1`,
          retries: 0,
        },
        task: "Write notes",
        ...config,
      },
    });
    const result = await runCli(["--config", project.configPath]);
    const runDir = await onlyRunDir(project);
    const log = (file: string) => readJsonl(nodePath.join(runDir, file));
    return { ...result, seen, project, runDir, log };
  } finally {
    await server.shutdown();
  }
}

/** A tool_use block writing the deliverable `notes.md`. */
function writeNotes(body: MessagesRequest) {
  const deliverables =
    /hand over \(reports, patches\) under "([^"]+)"/.exec(body.system?.[0]?.text ?? "")?.[1] ??
      "missing";
  return {
    type: "tool_use",
    id: "toolu_write",
    name: "fs__write_file",
    input: { path: `${deliverables}/notes.md`, content: "Half of the no" },
  };
}

Deno.test("kagent-run never runs a tool_use cut off at max_tokens: no deliverable, model_error truncated", async () => {
  const run = await messagesRun((body) => reply([writeNotes(body)], "max_tokens"));
  await using _ = run.project;
  assert.notEqual(run.code, 0);
  await assert.rejects(Deno.lstat(nodePath.join(run.runDir, "deliverables/notes.md")));
  const errors = await run.log("logs/errors.jsonl");
  assert.deepEqual(errors.map((line) => [line.source, line.tool_call_id ?? line.code]), [
    ["tool", "toolu_write"],
    ["model", "truncated"],
  ]);
  assert.deepEqual(errors[1]?.stop, { reason: "truncated", stop_reason: "max_tokens" });
  assert.equal(errors[1]?.max_tokens, 4096);
});

Deno.test("kagent-run runs the same tool_use when the turn ended with stop_reason tool_use", async () => {
  const run = await messagesRun((body, index) =>
    index === 0 ? reply([writeNotes(body)], "tool_use") : reply([{ type: "text", text: "Done." }])
  );
  await using _ = run.project;
  assert.equal(run.code, 0, run.stderr);
  assert.equal(
    await Deno.readTextFile(nodePath.join(run.runDir, "deliverables/notes.md")),
    "Half of the no",
  );
});

Deno.test("kagent-run ends a refusal or an exceeded context window failed with the stop details", async () => {
  for (
    const [stop, content, code] of [
      ["refusal", [], "refused"],
      ["refusal", [{ type: "text", text: "I won't write that." }], "refused"],
      ["model_context_window_exceeded", [{ type: "text", text: "Par" }], "context_window_exceeded"],
    ] as const
  ) {
    const run = await messagesRun(() => reply([...content], stop));
    await using _ = run.project;
    assert.notEqual(run.code, 0, stop);
    assert.doesNotMatch(run.stderr, /empty response/);
    const errors = await run.log("logs/errors.jsonl");
    assert.deepEqual(errors.map((line) => [line.code, line.stop]), [
      [code, { reason: code, stop_reason: stop }],
    ]);
    const end = (await run.log("events.jsonl")).find((event) => event.type === "run.completed");
    assert.deepEqual([end?.end_reason, end?.error_code], ["model_error", code]);
    assert.equal(end?.final_text, null);
    if (content.length > 0 && code === "refused") {
      assert.equal(errors[0]?.refusal, "I won't write that.");
      assert.ok(run.stderr.includes("I won't write that."), run.stderr);
    }
  }
});

Deno.test("kagent-run sends a pause_turn answer back and completes when the model continues", async () => {
  const paused = [{ type: "text", text: "Thinking it over. " }];
  const run = await messagesRun((_body, index) =>
    index === 0 ? reply(paused, "pause_turn") : reply([{ type: "text", text: "Done." }])
  );
  await using _ = run.project;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Thinking it over\. Done\./);
  // The paused content goes back unchanged as the last (assistant) message.
  assert.deepEqual(run.seen[1]?.messages.at(-1), { role: "assistant", content: paused });
  const turns = (await run.log("events.jsonl")).filter((event) => event.type === "model.responded");
  assert.deepEqual(turns.map((turn) => (turn.stop as { reason: string }).reason), [
    "paused",
    "end",
  ]);
});

Deno.test("kagent-run stops a model that pauses every turn at agent.max_turns", async () => {
  const run = await messagesRun(
    () => reply([{ type: "text", text: "Still going. " }], "pause_turn"),
    { agent: { max_turns: 3 } },
  );
  await using _ = run.project;
  assert.notEqual(run.code, 0);
  assert.equal(run.seen.length, 3);
  const end = (await run.log("events.jsonl")).find((event) => event.type === "run.completed");
  assert.equal(end?.end_reason, "max_turns");
});
