// Pause, approve, resume (issue 26): a run that stopped for an approval goes on from its sealed
// record as the next segment of the same run folder. The call that waited runs first (only with
// its grant), the model continues, `verify` checks the joined run and catches an edit of segment 1;
// a changed permissions file or a folder that does not verify is refused before anything is
// written. Across loopback OpenAI and Anthropic models, the request after the resume is the one an
// uninterrupted run sends (Anthropic thinking blocks with their signatures included).
import assert from "node:assert/strict";
import { sleepMarker } from "./_attack_helpers.ts";
import { createHash } from "node:crypto";
import * as nodePath from "node:path";
import {
  createProject,
  onlyRunDir,
  readJsonl,
  repository,
  runCli,
  taskFlags,
} from "./_cli_helpers.ts";
import { serveEventStream, sseEvent } from "../src/testing/event_stream_server.ts";
import { sealRun } from "../src/audit/run_manifest.ts";

type Json = Record<string, unknown>;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const writeCall = (id: string) => ({
  id,
  name: "fs.write_file",
  arguments: { path: "notes.txt", content: "approved" },
});

/** A script plan: write (asks) beside a read; after the refusal a final word; after the resume another. */
const PLAN = [
  JSON.stringify({
    tool_calls: [writeCall("write-1"), {
      id: "read-1",
      name: "fs.read_file",
      arguments: { path: "README.md" },
    }],
  }),
  JSON.stringify({ content: "The write needs an approval." }),
  JSON.stringify({ content: "Resumed: {{write-1.summary}}" }),
];

/** The grant printed on stderr by a run that ended approval_required. */
function printedGrant(stderr: string): string {
  const match = stderr.match(/--approve '([^']+)'/);
  assert.ok(match?.[1] !== undefined, `no grant printed:\n${stderr}`);
  return match[1];
}

Deno.test("resume with the printed grant runs exactly the waiting calls first, the model goes on, and verify checks the joined run", async () => {
  await using project = await createProject({ plan: PLAN });
  const notes = nodePath.join(project.sandbox.workspace, "notes.txt");
  const first = await runCli(["run", "--config", project.configPath, "--non-interactive"]);
  assert.equal(first.code, 3, first.stderr);
  await assert.rejects(Deno.stat(notes), Deno.errors.NotFound);
  const runDir = await onlyRunDir(project);
  const sealed = await Deno.readTextFile(nodePath.join(runDir, "manifest.json"));
  const segmentOneEvents = (await readJsonl(nodePath.join(runDir, "events.jsonl"))).length;

  const resumed = await runCli(["resume", runDir, "--approve", printedGrant(first.stderr)]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(await Deno.readTextFile(notes), "approved");
  assert.match(resumed.stdout, /Resumed: Wrote 8 bytes to "notes\.txt"/);

  // Segment 2 starts with its anchor, then exactly the waiting calls, then the model.
  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  const segmentTwo = events.slice(segmentOneEvents);
  assert.equal(segmentTwo[0]?.type, "run.resumed");
  assert.equal(segmentTwo[0]?.segment, 2);
  assert.equal(segmentTwo[0]?.previous_manifest_sha256, sha256(sealed));
  assert.deepEqual(segmentTwo[0]?.rerun, ["write-1", "read-1"]);
  assert.equal(
    await Deno.readTextFile(nodePath.join(runDir, "segments/1/manifest.json")),
    sealed,
  );
  const started = segmentTwo.filter((event) => event.type === "tool.started");
  assert.deepEqual(started.map((event) => event.tool_call_id), ["write-1", "read-1"]);
  const responded = segmentTwo.filter((event) => event.type === "model.responded");
  assert.deepEqual(responded.map((event) => event.turn), [3]);
  assert.ok(
    segmentTwo.findIndex((event) => event.type === "tool.completed") <
      segmentTwo.findIndex((event) => event.type === "model.responded"),
  );
  const tools = await readJsonl(nodePath.join(runDir, "logs/tools.jsonl"));
  assert.deepEqual(
    tools.slice(2).map((record) => [record.tool_call_id, (record.approval as Json | null)?.by]),
    [["write-1", "grant"], ["read-1", "rule"]],
  );
  // The chains go on: seq continues from the previous seal.
  assert.equal(tools[2]?.seq, 3);

  const verified = await runCli(["verify", runDir]);
  assert.equal(verified.code, 0, verified.stdout);

  // An edit of a segment-1 line after segment 2 exists is caught.
  const eventsPath = nodePath.join(runDir, "events.jsonl");
  const text = await Deno.readTextFile(eventsPath);
  const edited = text.replace("The write needs an approval.", "The write was not wanted.");
  assert.notEqual(edited, text);
  await Deno.writeTextFile(eventsPath, edited);
  const tampered = await runCli(["verify", runDir]);
  assert.equal(tampered.code, 6, tampered.stdout);
});

Deno.test("resume without the grant still refuses the waiting call, and the run can be resumed again with it", async () => {
  await using project = await createProject({
    plan: [...PLAN.slice(0, 2), JSON.stringify({ content: "Still waiting." }), PLAN[2] as string],
  });
  const notes = nodePath.join(project.sandbox.workspace, "notes.txt");
  const first = await runCli(["run", "--config", project.configPath, "--non-interactive"]);
  assert.equal(first.code, 3, first.stderr);
  const runDir = await onlyRunDir(project);
  const again = await runCli(["resume", runDir, "--non-interactive"]);
  assert.equal(again.code, 3, again.stderr);
  await assert.rejects(Deno.stat(notes), Deno.errors.NotFound);
  const tools = await readJsonl(nodePath.join(runDir, "logs/tools.jsonl"));
  assert.deepEqual(
    tools.map((record) => [record.tool_call_id, (record.result as Json).error_type]),
    [
      ["write-1", "approval_required"],
      ["read-1", "skipped"],
      ["write-1", "approval_required"],
      ["read-1", "skipped"],
    ],
  );
  // The resume printed the grant again, with a resume command to replay.
  assert.match(again.stderr, /kagent-run.* resume /);
  assert.equal((await runCli(["verify", runDir])).code, 0);
  // Segment 3, with the grant: the same calls, answered after segment 2's refusal.
  const third = await runCli(["resume", runDir, "--approve", printedGrant(first.stderr)]);
  assert.equal(third.code, 0, third.stderr);
  assert.equal(await Deno.readTextFile(notes), "approved");
  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  const resumes = events.filter((event) => event.type === "run.resumed");
  assert.deepEqual(resumes.map((event) => [event.segment, event.resumed_after_turn]), [[2, 1], [
    3,
    1,
  ]]);
  await Deno.stat(nodePath.join(runDir, "segments/2/manifest.json"));
  assert.equal((await runCli(["verify", runDir])).code, 0);
});

Deno.test("a resume after the permissions file changed is refused with the reason, and writes nothing", async () => {
  const permissions = {
    rules: [{ id: "no-rm", tools: ["fs.write_file"], paths: ["secret/**"], decision: "deny" }],
  };
  await using project = await createProject({ plan: PLAN, permissions });
  const first = await runCli(["run", "--config", project.configPath, "--non-interactive"]);
  assert.equal(first.code, 3, first.stderr);
  const runDir = await onlyRunDir(project);
  const before = await Deno.readTextFile(nodePath.join(runDir, "events.jsonl"));
  const permissionsPath = nodePath.join(project.configDir, "permissions.json");
  await Deno.writeTextFile(
    permissionsPath,
    JSON.stringify({ rules: [{ ...permissions.rules[0], paths: ["other/**"] }] }),
  );
  const refused = await runCli(["resume", runDir, "--approve", printedGrant(first.stderr)]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(
    refused.stderr,
    /Cannot resume run ".*": the permissions file ".*permissions\.json" changed/,
  );
  assert.equal(await Deno.readTextFile(nodePath.join(runDir, "events.jsonl")), before);
  assert.equal((await runCli(["verify", runDir])).code, 0);
  // A grant made for another policy is refused before anything is written, too.
  const foreign = JSON.stringify({
    ...JSON.parse(printedGrant(first.stderr)),
    policy: "f00d".repeat(16),
  });
  await Deno.writeTextFile(permissionsPath, JSON.stringify(permissions));
  const wrongGrant = await runCli(["resume", runDir, "--approve", foreign]);
  assert.equal(wrongGrant.code, 2, wrongGrant.stderr);
  assert.match(wrongGrant.stderr, /it was made for policy "f00df00df00df00d", and the run's is/);
  assert.equal(await Deno.readTextFile(nodePath.join(runDir, "events.jsonl")), before);
  // Near miss: restored, the same resume goes on.
  await Deno.writeTextFile(permissionsPath, JSON.stringify(permissions));
  const resumed = await runCli(["resume", runDir, "--approve", printedGrant(first.stderr)]);
  assert.equal(resumed.code, 0, resumed.stderr);
});

Deno.test("a run folder that does not verify is not resumed", async () => {
  await using project = await createProject({ plan: PLAN });
  const first = await runCli(["run", "--config", project.configPath, "--non-interactive"]);
  assert.equal(first.code, 3, first.stderr);
  const runDir = await onlyRunDir(project);
  const toolsPath = nodePath.join(runDir, "logs/tools.jsonl");
  const text = await Deno.readTextFile(toolsPath);
  await Deno.writeTextFile(toolsPath, text.replace('"README.md"', '"../outside.md"'));
  const refused = await runCli(["resume", runDir, "--approve", printedGrant(first.stderr)]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(
    refused.stderr,
    /Cannot resume run ".*": the run folder does not verify \(tampered\)/,
  );
  await assert.rejects(Deno.stat(nodePath.join(project.sandbox.workspace, "notes.txt")));
});

/** A Messages API stream of content blocks. */
function messagesStream(blocks: { start: Json; deltas?: Json[] }[], stopReason: string) {
  const chunks = [sseEvent({
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
  }, "message_start")];
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

const THINKING = "The user wants notes. I should write them.";
const SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds";

const text = (words: string) => ({
  start: { type: "text", text: "" },
  deltas: [{ type: "text_delta", text: words }],
});

/** What the last message of an Anthropic request answers: the task, a refused or a done write. */
function anthropicAnswer(body: Json) {
  const messages = body.messages as { role: string; content: unknown }[];
  const last = JSON.stringify(messages.at(-1)?.content ?? "");
  if (messages.length === 1) {
    return messagesStream([
      {
        start: { type: "thinking", thinking: "", signature: "" },
        deltas: [
          { type: "thinking_delta", thinking: THINKING },
          { type: "signature_delta", signature: SIGNATURE },
        ],
      },
      {
        start: { type: "tool_use", id: "toolu_write", name: "fs__write_file", input: {} },
        deltas: [{
          type: "input_json_delta",
          partial_json: '{"path": "notes.txt", "content": "approved"}',
        }],
      },
    ], "tool_use");
  }
  return messagesStream(
    [text(last.includes('\\"is_error\\":true') ? "It needs an approval." : "Done.")],
    "end_turn",
  );
}

/** The same for OpenAI Chat Completions (not streamed). */
function openAiAnswer(body: Json): Response {
  const messages = body.messages as { role: string; content: string | null }[];
  const chat = (message: Json, finish: string) =>
    Response.json({
      choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
      usage: { prompt_tokens: 11, completion_tokens: 7 },
    });
  const last = messages.at(-1);
  if (last?.role === "user") {
    return chat({
      content: null,
      tool_calls: [{
        id: "call_write",
        type: "function",
        function: {
          name: "fs__write_file",
          arguments: JSON.stringify({ path: "notes.txt", content: "approved" }),
        },
      }],
    }, "tool_calls");
  }
  const refused = (last?.content ?? "").includes("approval required");
  return chat({ content: refused ? "It needs an approval." : "Done." }, "stop");
}

for (const provider of ["anthropic", "openai"] as const) {
  Deno.test(`${provider}: the request after a resume is the one an uninterrupted run sends`, async () => {
    await using server = serveEventStream((body) =>
      provider === "anthropic" ? anthropicAnswer(body) : openAiAnswer(body)
    );
    await using project = await createProject({
      config: {
        model: {
          provider,
          model: "test-model",
          base_url: server.baseUrl,
          api_key_env: "KAGENT_TEST_MODEL_KEY",
          retries: 0,
          ...(provider === "openai" ? { stream: false } : {}),
        },
        task: "Write the notes",
      },
    });
    const env = { KAGENT_TEST_MODEL_KEY: "sk-test-key-not-real-1234567890" };
    const notes = nodePath.join(project.sandbox.workspace, "notes.txt");
    const first = await runCli(["run", "--config", project.configPath, "--non-interactive"], {
      env,
    });
    assert.equal(first.code, 3, first.stderr);
    const runDir = await onlyRunDir(project);
    const grant = printedGrant(first.stderr);
    const resumed = await runCli(["resume", runDir, "--approve", grant], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /Done\./);
    assert.equal(server.received.length, 3);
    const afterResume = server.received[2] as Json;

    // The same task, uninterrupted, with the grant from the start.
    await Deno.remove(notes);
    const whole = await runCli(
      ["run", "--config", project.configPath, "--non-interactive", "--approve", grant],
      { env },
    );
    assert.equal(whole.code, 0, whole.stderr);
    assert.equal(server.received.length, 5);
    const uninterrupted = server.received[4] as Json;
    const { system: _resumedSystem, ...resumedRest } = afterResume;
    const { system: _wholeSystem, ...wholeRest } = uninterrupted;
    const withoutSystem = (body: Json) => ({
      ...body,
      messages: (body.messages as { role: string }[]).filter((message) =>
        message.role !== "system"
      ),
    });
    assert.deepEqual(withoutSystem(resumedRest), withoutSystem(wholeRest));
    if (provider === "anthropic") {
      const assistant = (afterResume.messages as { role: string; content: Json[] }[])[1];
      assert.deepEqual(assistant?.content[0], {
        type: "thinking",
        thinking: THINKING,
        signature: SIGNATURE,
      });
    }
    assert.equal((await runCli(["verify", runDir])).code, 0);
  });
}

Deno.test("verify checks each kept seal against the run.resumed that names it, even when the run is sealed again", async () => {
  await using project = await createProject({ plan: PLAN });
  const first = await runCli(["run", "--config", project.configPath, "--non-interactive"]);
  assert.equal(first.code, 3, first.stderr);
  const runDir = await onlyRunDir(project);
  const resumed = await runCli(["resume", runDir, "--approve", printedGrant(first.stderr)]);
  assert.equal(resumed.code, 0, resumed.stderr);
  // Someone who can seal (an unsigned run) swaps the kept seal of segment 1 for another.
  const keptPath = nodePath.join(runDir, "segments/1/manifest.json");
  const kept = JSON.parse(await Deno.readTextFile(keptPath));
  kept.chains["events.jsonl"].seq -= 1;
  await Deno.writeTextFile(keptPath, `${JSON.stringify(kept, null, 2)}\n`);
  const manifest = JSON.parse(await Deno.readTextFile(nodePath.join(runDir, "manifest.json")));
  await sealRun(runDir, {
    runId: manifest.run_id,
    sealedAt: manifest.sealed_at,
    policyHash: manifest.policy_hash,
    chains: manifest.chains,
    signing: null,
  });
  const verified = await runCli(["verify", runDir, "--json"]);
  assert.equal(verified.code, 6, verified.stdout);
  const problems = JSON.parse(verified.stdout).problems as Json[];
  assert.deepEqual(problems.map((problem) => [problem.kind, problem.file]), [[
    "cross_reference",
    "segments/1/manifest.json",
  ]]);
});

Deno.test("a run that reached its turn limit goes on from its last turn, with a new task appended", async () => {
  await using project = await createProject({
    config: { agent: { max_turns: 1 } },
    plan: [
      JSON.stringify({
        tool_calls: [{ id: "read-1", name: "fs.read_file", arguments: { path: "README.md" } }],
      }),
      JSON.stringify({ content: "Read it; the last message was: {{read-1.summary}}" }),
    ],
  });
  const first = await runCli(["run", "--config", project.configPath]);
  assert.equal(first.code, 5, first.stderr);
  const runDir = await onlyRunDir(project);
  const resumed = await runCli(["resume", runDir, "--task", "Now summarise it"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /Read it; the last message was: Read 3 lines of "README\.md"/);
  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  const resume = events.find((event) => event.type === "run.resumed");
  assert.deepEqual([resume?.resumed_after_turn, resume?.rerun, resume?.task], [
    null,
    [],
    "Now summarise it",
  ]);
  // No call ran again: the read ran once, in segment 1.
  assert.equal(events.filter((event) => event.type === "tool.started").length, 1);
  assert.equal((await runCli(["verify", runDir])).code, 0);
  // Near miss: a completed run without a new task is refused, naming why.
  const done = await runCli(["resume", runDir]);
  assert.equal(done.code, 2);
  assert.match(
    done.stderr,
    /it ended "completed" with no call waiting for an approval; give --task/,
  );
});

Deno.test("a resume after the config changed (edited, or another file with another model) is refused, naming it", async () => {
  await using project = await createProject({ plan: PLAN });
  const first = await runCli(["run", "--config", project.configPath, "--non-interactive"]);
  assert.equal(first.code, 3, first.stderr);
  const runDir = await onlyRunDir(project);
  const grant = printedGrant(first.stderr);
  const original = await Deno.readTextFile(project.configPath);
  // The same file, one key more: the config changed.
  const config = JSON.parse(original);
  await Deno.writeTextFile(
    project.configPath,
    JSON.stringify({ ...config, agent: { max_turns: 9 } }),
  );
  const changed = await runCli(["resume", runDir, "--approve", grant]);
  assert.equal(changed.code, 2, changed.stderr);
  assert.match(
    changed.stderr,
    /Cannot resume run ".*": the config ".*agent\.jsonc" changed since the run/,
  );
  // Another config file naming another model: the model changed.
  const other = nodePath.join(project.configDir, "other.jsonc");
  await Deno.writeTextFile(
    other,
    JSON.stringify({
      ...config,
      model: { provider: "openai", model: "gpt-test", base_url: "http://127.0.0.1:9/v1" },
    }),
  );
  const switched = await runCli(["resume", runDir, "--config", other, "--approve", grant]);
  assert.equal(switched.code, 2, switched.stderr);
  assert.match(
    switched.stderr,
    /Cannot resume run ".*": the config ".*other\.jsonc" changed since the run/,
  );
  await assert.rejects(Deno.stat(nodePath.join(project.sandbox.workspace, "notes.txt")));
  // Near miss: the config restored, the resume goes on.
  await Deno.writeTextFile(project.configPath, original);
  assert.equal((await runCli(["resume", runDir, "--approve", grant])).code, 0);
});

Deno.test("an .env read that asked runs on resume with its grant, its values redacted from the joined run", async () => {
  const secret = "resume-canary-5f1e2d";
  await using project = await createProject({
    plan: [
      JSON.stringify({
        tool_calls: [{ id: "env", name: "fs.read_file", arguments: { path: ".env" } }],
      }),
      JSON.stringify({ content: "The .env read needs an approval." }),
      JSON.stringify({ content: "Read it: {{env.summary}}" }),
    ],
  });
  await Deno.writeTextFile(
    nodePath.join(project.sandbox.workspace, ".env"),
    `DEPLOY_TOKEN=${secret}\n`,
  );
  const first = await runCli(["run", "--config", project.configPath, "--non-interactive"]);
  assert.equal(first.code, 3, first.stderr);
  const runDir = await onlyRunDir(project);
  const resumed = await runCli(["resume", runDir, "--approve", printedGrant(first.stderr)]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /Read it: Read 1 line of "\.env"/);
  const tools = await readJsonl(nodePath.join(runDir, "logs/tools.jsonl"));
  assert.deepEqual(
    tools.map((record) => [record.tool_call_id, (record.result as Json).ok]),
    [["env", false], ["env", true]],
  );
  // The value never reaches a file of the run folder (near miss: the read did run).
  for await (const path of walkFiles(runDir)) {
    assert.ok(!(await Deno.readTextFile(path)).includes(secret), `${path} holds the secret`);
  }
  assert.equal((await runCli(["verify", runDir])).code, 0);
});

async function* walkFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = nodePath.join(dir, entry.name);
    if (entry.isDirectory) yield* walkFiles(path);
    else if (entry.isFile) yield path;
  }
}

Deno.test("a signed run resumes signed: the joined run's seal checks with the key, and not without the right one", async () => {
  const keyEnv = "KAGENT_TEST_RESUME_SIGNING_KEY";
  const env = { [keyEnv]: "resume-signing-key-0123456789abcdef" };
  await using project = await createProject({
    plan: PLAN,
    config: { audit: { signing_key_env: keyEnv } },
  });
  const first = await runCli(["run", "--config", project.configPath, "--non-interactive"], { env });
  assert.equal(first.code, 3, first.stderr);
  const runDir = await onlyRunDir(project);
  // Without the key the run cannot be sealed: the resume does not start.
  const sealed = await Deno.readTextFile(nodePath.join(runDir, "events.jsonl"));
  const keyless = await runCli(["resume", runDir, "--approve", printedGrant(first.stderr)]);
  assert.equal(keyless.code, 2, keyless.stderr);
  assert.match(keyless.stderr, new RegExp(keyEnv));
  assert.equal(await Deno.readTextFile(nodePath.join(runDir, "events.jsonl")), sealed);
  const resumed = await runCli(["resume", runDir, "--approve", printedGrant(first.stderr)], {
    env,
  });
  assert.equal(resumed.code, 0, resumed.stderr);
  const checked = await runCli(["verify", runDir, "--key-env", keyEnv], { env });
  assert.equal(checked.code, 0, checked.stdout);
  assert.match(checked.stdout, /signature valid/);
  const wrong = await runCli(["verify", runDir, "--key-env", keyEnv], {
    env: { [keyEnv]: "another-key-0123456789abcdef" },
  });
  assert.equal(wrong.code, 6, wrong.stdout);
});

Deno.test("a run interrupted by SIGINT goes on from its last turn: the aborted call keeps its answer and is not run again", async () => {
  const marker = sleepMarker("600.6191");
  await using project = await createProject({
    config: { commands: ["sleep"], sandbox: { command_isolation: "bwrap" } },
    permissions: {
      rules: [{ id: "nap", tools: ["exec.run_command"], commands: ["sleep"], decision: "allow" }],
    },
    plan: [
      JSON.stringify({
        tool_calls: [{
          id: "nap",
          name: "exec.run_command",
          arguments: { argv: ["sleep", marker] },
        }],
      }),
      JSON.stringify({ content: "Going on after: {{nap.summary}}" }),
    ],
  });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...taskFlags("kagent-run"),
      nodePath.join(repository, "main.ts"),
      "--config",
      project.configPath,
      "--non-interactive",
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const exited = child.output();
  const ended: { output: Deno.CommandOutput | null } = { output: null };
  void exited.then((output) => ended.output = output);
  // The command really runs before the interrupt (near miss: a run that never started it).
  for (let polls = 0;; polls++) {
    assert.ok(polls < 1200, "the command did not start within a minute");
    const early = ended.output;
    assert.equal(early, null, `the run ended first: ${new TextDecoder().decode(early?.stderr)}`);
    const { stdout } = await new Deno.Command("ps", { args: ["-eo", "args="], stdout: "piped" })
      .output();
    if (
      new TextDecoder().decode(stdout).split("\n").some((line) =>
        [`sleep ${marker}`, `/usr/bin/sleep ${marker}`].includes(line.trim())
      )
    ) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGINT");
  const first = await exited;
  assert.equal(first.code, 130, new TextDecoder().decode(first.stderr));
  const runDir = await onlyRunDir(project);
  const resumed = await runCli(["resume", runDir]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /Going on after: /);
  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  assert.equal(
    events.find((event) => event.type === "run.resumed")?.previous_end_reason,
    "aborted_tools",
  );
  assert.equal(events.filter((event) => event.type === "tool.started").length, 1);
  assert.equal((await runCli(["verify", runDir])).code, 0);
});

Deno.test("a run that waits prints the resume command that goes on with every grant, and it works as printed", async () => {
  await using project = await createProject({ plan: PLAN });
  const first = await runCli(["run", "--config", project.configPath, "--non-interactive"]);
  assert.equal(first.code, 3, first.stderr);
  const runDir = await onlyRunDir(project);
  const lines = first.stderr.split("\n");
  const index = lines.findIndex((line) => line.startsWith("Or go on where the run stopped"));
  assert.ok(index > 0, first.stderr);
  const printed = (lines[index + 1] ?? "").trim();
  const match = printed.match(/ resume (\S+) --approve-pending$/);
  assert.ok(match?.[1] !== undefined, printed);
  // The printed folder is the run's (relative to the folder the command was started in).
  assert.equal(nodePath.resolve(match[1]), runDir);
  const resumed = await runCli(["resume", match[1], "--approve-pending"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  // The end line's figures are the new segment's, and it says so.
  assert.match(resumed.stderr, /run completed in [\d.]+ s \(segment 2\): 2 tool calls/);
  assert.match(resumed.stdout, /Resumed: Wrote 8 bytes to "notes\.txt"/);
});
