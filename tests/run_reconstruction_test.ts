// The run folder reconstructs the run (issue 11 §6): from the folder alone an auditor gets the task,
// the model and its parameters, the config, the system prompt, every call's arguments and the exact
// tool results the model received (inline, or as an artifact whose sha256 matches), who approved
// each call and how, and commands' exit codes. Checked against what a loopback OpenAI server got.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";
import { openTestRun } from "../src/testing/run_harness.ts";
import { openRunSession } from "../src/session/mod.ts";
import type { Approver } from "../src/approval/mod.ts";
import type { Grant } from "../src/approval/grant.ts";

interface WireMessage {
  role: string;
  content?: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

interface ChatRequest {
  messages: WireMessage[];
}

function chat(message: Record<string, unknown>, finish = "stop") {
  return Response.json({
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 11, completion_tokens: 7 },
  });
}

function toolCall(id: string, name: string, args: Record<string, unknown>) {
  return { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
}

/**
 * The model's plan: three parallel reads (small, 30 KiB, 100 KiB), a failing command, a write
 * outside the workspace (denied) and a read after it (skipped, never run).
 */
const TURNS = [
  [
    toolCall("call_small", "fs__read_file", { path: "README.md" }),
    toolCall("call_big", "fs__read_file", { path: "big.txt", max_lines: 1000 }),
    toolCall("call_huge", "fs__read_file", { path: "huge.txt", max_lines: 1000 }),
  ],
  [toolCall("call_ls", "exec__run_command", { argv: ["ls", "no-such-folder"] })],
  [
    toolCall("call_escape", "fs__write_file", { path: "../outside/planted.txt", content: "x" }),
    toolCall("call_after", "fs__read_file", { path: "README.md" }),
  ],
];

const SECRET = "canary-secret-value-123";
const TASK = "Survey the workspace; the deploy key is not needed";

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

Deno.test("the run folder alone gives back every tool result the model received, in order", async () => {
  const seen: ChatRequest[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.json() as ChatRequest;
      seen.push(body);
      const turn = TURNS[seen.length - 1];
      return turn === undefined
        ? chat({ content: "Survey done." })
        : chat({ content: null, tool_calls: turn }, "tool_calls");
    },
  );
  try {
    await using project = await createProject({
      config: {
        model: {
          provider: "openai",
          model: "test-model",
          base_url: `http://127.0.0.1:${server.addr.port}/v1`,
          api_key_env: "KAGENT_TEST_OPENAI_KEY",
          temperature: 0.25,
          retries: 0,
        },
        task: TASK,
        commands: ["ls"],
        sandbox: { command_isolation: "bwrap" },
        audit: { secret_env: ["KAGENT_TEST_SECRET"] },
      },
      permissions: {
        rules: [{
          id: "ls-anything",
          tools: ["exec.run_command"],
          commands: ["ls"],
          decision: "allow",
        }],
      },
    });
    const workspace = project.sandbox.workspace;
    const line = (index: number) => `line ${index} ${"x".repeat(88)}`;
    await Deno.writeTextFile(
      nodePath.join(workspace, "big.txt"),
      Array.from({ length: 300 }, (_, index) => line(index)).join("\n"),
    );
    await Deno.writeTextFile(
      nodePath.join(workspace, "huge.txt"),
      Array.from({ length: 1000 }, (_, index) => index === 7 ? `key ${SECRET}` : line(index))
        .join("\n"),
    );
    const { stderr } = await runCli(["--config", project.configPath], {
      env: {
        KAGENT_TEST_OPENAI_KEY: "sk-test-key-not-real-1234567890",
        KAGENT_TEST_SECRET: SECRET,
      },
    });
    assert.equal(seen.length, 4, stderr);
    const runDir = await onlyRunDir(project);

    // What the model received: every tool message of the last request, in order.
    const received = seen[3]?.messages.filter((message) => message.role === "tool") ?? [];
    assert.deepEqual(received.map((message) => message.tool_call_id), [
      "call_small",
      "call_big",
      "call_huge",
      "call_ls",
      "call_escape",
      "call_after",
    ]);

    // Reconstructed from the run folder only: tools.jsonl, and artifacts/ for long outputs.
    const records = await readJsonl(
      nodePath.join(runDir, "logs/tools.jsonl"),
    ) as unknown as ToolLine[];
    const byWireId = new Map(
      records.map((record) => [record.provider?.id ?? record.tool_call_id, record]),
    );
    for (const message of received) {
      const record = byWireId.get(message.tool_call_id ?? "");
      assert.ok(record !== undefined, `no record for ${message.tool_call_id}`);
      const output = record.result.output ??
        await readArtifact(runDir, record.result.output_artifact);
      assert.equal(output, message.content, `output of ${message.tool_call_id}`);
      assert.equal(sha256(output), record.hashes.output_sha256);
    }
    // The model's own calls, as it sent them, are in the folder too.
    const sent = seen.flatMap((request) =>
      request.messages.filter((message) => message.role === "assistant")
    ).at(-1)?.tool_calls ?? [];
    assert.ok(sent.length > 0);
    for (const call of TURNS.flat()) {
      const record = byWireId.get(call.id) as ToolLine;
      const text = record.arguments ?? await readArtifact(runDir, record.arguments_artifact);
      assert.equal(text, call.function.arguments, `arguments of ${call.id}`);
    }

    // Long outputs: 30 KiB is over the inline size (an artifact, whole); 100 KiB was cut for the
    // model at limits.max_output_bytes, and what it saw is kept beside the whole output.
    const big = byWireId.get("call_big") as ToolLine;
    assert.equal(big.result.output, null);
    assert.match(big.result.output_artifact?.ref ?? "", /^artifacts\/[0-9a-f]{64}\.txt$/);
    const huge = byWireId.get("call_huge") as ToolLine;
    const hugeSeen = await readArtifact(runDir, huge.result.output_artifact);
    assert.match(hugeSeen, /output cut at 65536 of \d+ bytes; full output in artifacts\//);
    assert.notEqual(huge.result.output_artifact?.ref, huge.result.artifacts[0]?.ref);
    const small = byWireId.get("call_small") as ToolLine;
    assert.equal(small.result.output_artifact, null);
    assert.match(small.result.output ?? "", /A small project/);

    // Who approved what, and the command's exit code.
    const approvals = Object.fromEntries(
      [...byWireId].map(([id, record]) => [id, record.approval?.by ?? null]),
    );
    assert.deepEqual(approvals, {
      call_small: "rule",
      call_big: "rule",
      call_huge: "rule",
      call_ls: "rule",
      call_escape: null,
      call_after: null,
    });
    const ls = byWireId.get("call_ls") as ToolLine;
    assert.equal(ls.approval?.rule, "ls-anything");
    assert.equal(ls.exit_code, 2);
    assert.equal((byWireId.get("call_escape") as ToolLine).approval, null);
    // The denied write left nothing; the call after it never ran, and its record says so.
    await assert.rejects(Deno.stat(nodePath.join(project.sandbox.outside, "planted.txt")));
    const after = byWireId.get("call_after") as ToolLine;
    assert.deepEqual([after.executed, after.result.error_type], [false, "skipped"]);
    assert.equal("executed" in small, false);
    assert.equal("exit_code" in small, false);

    // The task, the model and its parameters, the config as loaded (redacted).
    const info = JSON.parse(await Deno.readTextFile(nodePath.join(runDir, "run.json")));
    assert.equal(info.task, TASK);
    assert.deepEqual([info.model.provider, info.model.model, info.model.parameters.temperature], [
      "openai",
      "test-model",
      0.25,
    ]);
    assert.equal(info.config.path, project.configPath);
    assert.equal(info.config.sha256, sha256(await Deno.readFile(project.configPath)));
    const config = JSON.parse(await Deno.readTextFile(nodePath.join(runDir, "config.json")));
    assert.equal(config.workspace, await Deno.realPath(workspace));
    assert.equal(config.model.base_url, `http://127.0.0.1:${server.addr.port}/v1`);
    assert.deepEqual(config.commands, ["ls"]);
    // The system prompt on file is the one sent.
    const system = seen[0]?.messages.find((message) => message.role === "system")?.content ?? "";
    assert.equal(
      await Deno.readTextFile(nodePath.join(runDir, "system_prompt.md")),
      `${system}\n`,
    );
    // The secret in huge.txt reached neither the model nor the folder.
    assert.ok(!JSON.stringify(seen).includes(SECRET));
    for await (const file of walkFiles(runDir)) {
      const text = await Deno.readTextFile(file);
      assert.ok(!text.includes(SECRET), file);
      assert.ok(!text.includes("sk-test-key-not-real"), file);
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("tools.jsonl names who approved a call when a grant, the terminal or a session grant did", async () => {
  // No approver: the write asks and ends approval_required, with the grant that would allow it.
  await using first = await openTestRun();
  const asked = await first.call("fs.write_file", { path: "notes.txt", content: "one\n" });
  assert.equal(asked.error?.type, "approval_required");
  const grant = (asked.error?.details as { grant: Grant }).grant;
  assert.equal((await first.readLog("tools"))[0]?.approval, null);
  // The attack's effect: nothing was written.
  await assert.rejects(Deno.stat(nodePath.join(first.sandbox.workspace, "notes.txt")));

  // A later run of the same config with that grant: approved by the grant.
  const granted = await openRunSession(first.session.config, {
    grants: [{ grant, source: "test" }],
  });
  try {
    const result = await granted.runtime.call({
      id: "granted-1",
      name: "fs.write_file",
      arguments: JSON.stringify({ path: "notes.txt", content: "one\n" }),
    });
    assert.equal(result.ok, true, result.summary);
  } finally {
    await granted.close();
  }
  const grantedLines = await readJsonl(granted.folder.paths.toolsLog) as unknown as ToolLine[];
  assert.equal(grantedLines[0]?.approval?.by, "grant");
  assert.deepEqual(grantedLines[0]?.approval?.scope, grant.scope);

  // A person at the terminal allows for the session: the first call by the terminal, the same
  // call again by the session grant; a call on another path asks again (the near miss).
  const answers: string[] = [];
  const terminal: Approver = {
    name: "terminal",
    approve: () => {
      answers.push("asked");
      return Promise.resolve({ decision: "allow_for_session" });
    },
  };
  await using run = await openTestRun({ approver: terminal });
  assert.equal((await run.call("fs.write_file", { path: "a.txt", content: "1\n" })).ok, true);
  const again = { path: "a.txt", content: "1 again\n", overwrite: true };
  assert.equal((await run.call("fs.write_file", again)).ok, true);
  assert.equal((await run.call("fs.write_file", { path: "b.txt", content: "2\n" })).ok, true);
  assert.equal(answers.length, 2);
  const lines = await run.readLog("tools") as unknown as unknown as ToolLine[];
  assert.deepEqual(lines.map((line) => [line.approval?.by, line.approval?.choice]), [
    ["terminal", "allow_for_session"],
    ["session_grant", undefined],
    ["terminal", "allow_for_session"],
  ]);
  assert.equal(lines[0]?.approval?.approver, "terminal");
  // A write inside the run's own folders is allowed by the policy: by "rule".
  const deliverable = await run.call("fs.write_file", {
    path: nodePath.join(run.session.folder.paths.deliverables, "r.md"),
    content: "r\n",
  });
  assert.equal(deliverable.ok, true, deliverable.summary);
  const ruled = (await run.readLog("tools") as unknown as ToolLine[]).at(-1);
  assert.equal(ruled?.approval?.by, "rule");
  assert.equal(ruled?.approval?.rule, "default:run-folders-allow");
  assert.equal(answers.length, 2);
});

interface KeptText {
  ref: string;
  sha256: string;
  bytes: number;
}

interface ToolLine {
  tool_call_id: string;
  provider?: { id: string | null };
  arguments: string | null;
  arguments_artifact: KeptText | null;
  result: {
    output: string | null;
    output_artifact: KeptText | null;
    error_type: string | null;
    artifacts: KeptText[];
  };
  hashes: { output_sha256: string };
  approval: {
    by: string;
    scope: string[];
    rule?: string;
    approver?: string;
    choice?: string;
  } | null;
  exit_code?: number | null;
  executed?: boolean;
}

/** Reads an artifact named by a record, checking its size and sha256 against the record. */
async function readArtifact(runDir: string, kept: KeptText | null): Promise<string> {
  assert.ok(kept !== null, "neither inline nor an artifact");
  const bytes = await Deno.readFile(nodePath.join(runDir, kept.ref));
  assert.equal(bytes.byteLength, kept.bytes);
  assert.equal(sha256(bytes), kept.sha256);
  assert.ok(nodePath.basename(kept.ref).startsWith(kept.sha256));
  return new TextDecoder().decode(bytes);
}

async function* walkFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = nodePath.join(dir, entry.name);
    if (entry.isDirectory) yield* walkFiles(path);
    else if (entry.isFile) yield path;
  }
}
