// CI fit of `kagent-run run` (issue 17 §1): --output stream-json, GITHUB_OUTPUT, the progress
// group and the per-turn lines, the step summary's error, --task-file -, --model and --max-turns.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { STREAM_JSON_TYPES, STREAM_JSON_VERSION } from "../src/cli/_stream_json.ts";
import { GITHUB_OUTPUT_NAMES } from "../src/cli/_github_output.ts";
import { serveEventStream, sseEvent } from "../src/testing/event_stream_server.ts";
import {
  createProject,
  onlyRunDir,
  readJsonl,
  repository,
  runCli,
  taskFlags,
} from "./_cli_helpers.ts";

const SECRET = "ci-secret-value-8f3a2b";
const SECRET_ENV = { KAGENT_CI_TEST_SECRET: SECRET };

const call = (id: string, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ tool_calls: [{ id, name, arguments: args }] });

/** Reads a `$GITHUB_OUTPUT` file as the runner does: `name<<DELIMITER`, lines, `DELIMITER`. */
function parseGithubOutput(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const header = /^([A-Za-z_][A-Za-z0-9_-]*)<<(.+)$/.exec(lines[index] as string);
    if (header === null) {
      assert.equal(lines[index], "", `line ${index + 1} is not a name<<delimiter header`);
      continue;
    }
    const [, name, delimiter] = header as unknown as [string, string, string];
    const value: string[] = [];
    for (index++; lines[index] !== delimiter; index++) {
      assert.ok(index < lines.length, `output "${name}" has no closing delimiter`);
      value.push(lines[index] as string);
    }
    outputs[name] = value.join("\n");
  }
  return outputs;
}

Deno.test("--output stream-json prints one redacted JSON object a line as the run goes, from its events, ending with run.ended", async () => {
  await using project = await createProject({
    config: { audit: { secret_env: ["KAGENT_CI_TEST_SECRET"] } },
    plan: [
      call("read", "fs.read_file", { path: "README.md" }),
      call("missing", "fs.read_file", { path: `notes-${SECRET}.md` }),
      call("write", "fs.write_file", { path: "notes.md", content: "x" }),
      JSON.stringify({ content: `Done; the key was ${SECRET}.` }),
    ],
  });
  const { code, stdout, stderr } = await runCli(
    ["--config", project.configPath, "--output", "stream-json", "--task", `Use ${SECRET}`],
    { env: SECRET_ENV },
  );
  assert.equal(code, 3, stderr);
  assert.ok(stdout.endsWith("\n"));
  const lines = stdout.trimEnd().split("\n").map((line, index) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch (error) {
      throw new Error(`stdout line ${index + 1} is not JSON: ${(error as Error).message}`);
    }
  });
  const runDir = await onlyRunDir(project);
  const runId = nodePath.basename(runDir);
  for (const line of lines) {
    assert.ok((STREAM_JSON_TYPES as readonly unknown[]).includes(line.type), String(line.type));
    assert.equal(line.version, STREAM_JSON_VERSION);
    assert.equal(line.run_id, runId);
    assert.match(String(line.ts), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
  assert.deepEqual(lines.map((line) => line.type), [
    "run.started",
    "model.responded",
    "tool.started",
    "tool.ended",
    "model.responded",
    "tool.started",
    "tool.ended",
    "model.responded",
    "tool.started",
    "approval.needed",
    "tool.ended",
    "model.responded",
    "run.ended",
  ]);
  // Each line but the last names its events.jsonl record, in order, and says what it says.
  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  const fromEvents = lines.slice(0, -1);
  for (const line of fromEvents) {
    const event = events[(line.event_seq as number) - 1];
    assert.equal(event?.seq, line.event_seq);
    const expected = line.type === "tool.ended"
      ? `tool.${line.status}`
      : line.type === "approval.needed"
      ? "approval.requested"
      : line.type;
    assert.equal(event?.type, expected);
  }
  const seqs = fromEvents.map((line) => line.event_seq as number);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
  const [started, turn1, , read, , , missing, , , approval, write, , ended] = lines;
  assert.equal(started?.task, "Use [REDACTED:secret_env]");
  assert.equal(started?.run_dir, runDir);
  assert.deepEqual(turn1?.tool_calls, [{ id: "read", name: "fs.read_file" }]);
  assert.equal(turn1?.turn, 1);
  assert.equal(typeof turn1?.duration_ms, "number");
  assert.deepEqual(
    [read?.status, read?.decision, read?.layer, read?.error_type],
    ["completed", "allow", "default", null],
  );
  assert.match(String(read?.summary), /README\.md/);
  assert.equal(missing?.status, "failed");
  assert.match(String(missing?.summary), /notes-\[REDACTED:secret_env\]\.md/);
  assert.deepEqual([approval?.tool, approval?.approver], ["fs.write_file", null]);
  assert.deepEqual([write?.status, write?.decision, write?.error_type], [
    "denied",
    "ask",
    "approval_required",
  ]);
  assert.equal(ended?.end_reason, "completed");
  assert.equal(ended?.final_text, "Done; the key was [REDACTED:secret_env].");
  assert.deepEqual([ended?.calls, ended?.denied, ended?.failed], [3, 1, 1]);
  assert.equal((ended?.approvals_needed as unknown[]).length, 1);
  // The secret reached no channel; the answer is not printed as text besides the stream.
  assert.ok(!stdout.includes(SECRET) && !stderr.includes(SECRET));
  assert.ok(!stdout.includes("Done; the key") || stdout.includes('"final_text":"Done; the key'));
  // Per-turn progress lines on stderr: turn, model (the provider's name for a script), time.
  assert.match(stderr, /^ {2}turn 1 script: tokens not reported, \d+\.\d\d s, 1 tool call$/m);
  assert.match(stderr, /^ {2}turn 4 script: tokens not reported, \d+\.\d\d s, 0 tool calls$/m);
  const quiet = await runCli([
    "--config",
    project.configPath,
    "--output",
    "stream-json",
    "--quiet",
  ]);
  assert.equal(quiet.code, 3);
  assert.doesNotMatch(quiet.stderr, /turn \d|::group::/);
  assert.equal(JSON.parse(quiet.stdout.trimEnd().split("\n").at(-1) as string).type, "run.ended");
});

Deno.test("under GitHub Actions GITHUB_OUTPUT gets the run's outputs (multiline-safe, redacted), progress is grouped and the summary shows the error", async () => {
  await using project = await createProject({
    config: {
      audit: { secret_env: ["KAGENT_CI_TEST_SECRET"] },
      // A run folder under a secret-named path: its output value is redacted like every other.
      runs_dir: `../runs-${SECRET}`,
    },
    // The script runs out after one call: the run ends model_error, whose message is the error.
    plan: [call("read", "fs.read_file", { path: "README.md" })],
  });
  const outputFile = nodePath.join(project.sandbox.root, "github_output");
  const summaryFile = nodePath.join(project.sandbox.root, "step_summary.md");
  await Deno.writeTextFile(outputFile, "earlier<<EOF\nkept\nEOF\n");
  const env = {
    ...SECRET_ENV,
    GITHUB_ACTIONS: "true",
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
  };
  const { code, stderr } = await runCli(["--config", project.configPath], { env });
  assert.equal(code, 4, stderr);
  const outputs = parseGithubOutput(await Deno.readTextFile(outputFile));
  assert.deepEqual(Object.keys(outputs), ["earlier", ...GITHUB_OUTPUT_NAMES]);
  const runsDir = nodePath.join(project.sandbox.root, `runs-${SECRET}`);
  const runId = (await Array.fromAsync(Deno.readDir(runsDir)))[0]?.name;
  assert.deepEqual(outputs, {
    earlier: "kept",
    run_id: runId,
    run_dir: nodePath.join(project.sandbox.root, "runs-[REDACTED:secret_env]", runId as string),
    end_reason: "model_error",
    calls: "1",
    denied: "0",
    approval_required: "0",
  });
  // The progress lines (turns and calls) sit inside one group; the end line comes after it.
  const group = stderr.indexOf("::group::kagent-run progress\n");
  const end = stderr.indexOf("::endgroup::\n");
  assert.ok(group >= 0 && end > group, stderr);
  assert.ok(stderr.indexOf("turn 1 script") > group && stderr.indexOf("turn 1 script") < end);
  assert.ok(stderr.indexOf("fs.read_file (") > group && stderr.indexOf("fs.read_file (") < end);
  assert.ok(stderr.indexOf("kagent-run: run model_error") > end);
  const summary = await Deno.readTextFile(summaryFile);
  assert.match(summary, /\*\*Error\*\* \(`script_exhausted`\):\n\n```text\n.*plan\.jsonl.*\n```/);
  assert.ok(!summary.includes(SECRET) && !stderr.includes(SECRET));
});

Deno.test("an unusable GITHUB_OUTPUT stops the run before it starts (exit 2, no run folder); a missing file is created (near miss)", async () => {
  await using project = await createProject({ plan: [JSON.stringify({ content: "ok" })] });
  const folder = nodePath.join(project.sandbox.root, "a-folder");
  await Deno.mkdir(folder);
  const refused = await runCli(["--config", project.configPath], {
    env: { GITHUB_OUTPUT: folder },
  });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /Cannot use GITHUB_OUTPUT ".*a-folder": .*; point the variable at/);
  assert.equal(await Deno.stat(project.runsDir).then(() => true, () => false), false);
  const created = nodePath.join(project.sandbox.root, "new_output");
  const works = await runCli(["--config", project.configPath, "--quiet"], {
    env: { GITHUB_OUTPUT: created },
  });
  assert.equal(works.code, 0, works.stderr);
  assert.equal(parseGithubOutput(await Deno.readTextFile(created)).end_reason, "completed");
});

Deno.test("--max-turns overrides agent.max_turns; --model is refused for a script and bad values are usage errors", async () => {
  await using project = await createProject({
    plan: [
      call("a", "fs.read_file", { path: "README.md" }),
      call("b", "fs.read_file", { path: "README.md" }),
      JSON.stringify({ content: "done" }),
    ],
  });
  const limited = await runCli(["--config", project.configPath, "--max-turns", "2", "--quiet"]);
  assert.equal(limited.code, 5, limited.stderr);
  assert.match(limited.stderr, /run max_turns/);
  // Near miss: one more turn and the same plan completes.
  const enough = await runCli(["--config", project.configPath, "--max-turns", "3", "--quiet"]);
  assert.equal(enough.code, 0, enough.stderr);
  for (const bad of ["0", "1001", "2.5", "two"]) {
    const result = await runCli(["--config", project.configPath, "--max-turns", bad]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /Cannot use --max-turns ".*": it must be a whole number from 1/);
  }
  const script = await runCli(["--config", project.configPath, "--model", "gpt-5-mini"]);
  assert.equal(script.code, 2);
  assert.match(script.stderr, /Cannot use --model "gpt-5-mini" .*"script" provider/);
  // The fix names every provider that has a model name, the cloud ones included.
  assert.match(script.stderr, /"anthropic", .*"bedrock", .*"groq"; see docs\/MODELS\.md/);
  const output = await runCli(["--config", project.configPath, "--output", "yaml"]);
  assert.equal(output.code, 2);
  assert.match(output.stderr, /it must be one of text, json, stream-json/);
});

Deno.test("--model replaces model.model on the wire and in the record; the turn line shows it with its tokens", async () => {
  const models: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.json() as { model: string };
      models.push(body.model);
      return Response.json({
        choices: [{
          index: 0,
          message: { role: "assistant", content: "Nothing to do." },
          finish_reason: "stop",
        }],
        usage: { prompt_tokens: 11, completion_tokens: 7 },
      });
    },
  );
  try {
    await using project = await createProject({
      config: {
        model: {
          provider: "openai",
          model: "configured-model",
          base_url: `http://127.0.0.1:${server.addr.port}/v1`,
          api_key_env: "KAGENT_CI_TEST_KEY",
          retries: 0,
        },
        task: "Say hello",
      },
    });
    const { code, stdout, stderr } = await runCli(
      ["--config", project.configPath, "--model", "override-model", "--output", "stream-json"],
      { env: { KAGENT_CI_TEST_KEY: "test-key-123456" } },
    );
    assert.equal(code, 0, stderr);
    assert.deepEqual(models, ["override-model"]);
    const lines = stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines[0].model, { provider: "openai", model: "override-model" });
    const turn = lines.find((line) => line.type === "model.responded");
    assert.equal(turn.model, "override-model");
    assert.deepEqual(turn.usage.input_tokens, 11);
    assert.deepEqual(turn.usage.output_tokens, 7);
    assert.match(stderr, /turn 1 override-model: 11 in \+ 7 out tokens, \d+\.\d\d s, 0 tool calls/);
    const runJson = JSON.parse(
      await Deno.readTextFile(nodePath.join(await onlyRunDir(project), "run.json")),
    );
    assert.equal(runJson.model.model, "override-model");
  } finally {
    await server.shutdown();
  }
});

Deno.test("--task-file - reads the task from standard input of the real process", async () => {
  await using project = await createProject({ plan: [JSON.stringify({ content: "ok" })] });
  const run = async (input: string) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...taskFlags("kagent-run"),
        nodePath.join(repository, "main.ts"),
        "--config",
        project.configPath,
        "--task-file",
        "-",
        "--quiet",
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input));
    await writer.close();
    const output = await child.output();
    return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
  };
  const task = "Task from stdin\nwith a second line\n";
  const read = await run(task);
  assert.equal(read.code, 0, read.stderr);
  const events = await readJsonl(nodePath.join(await onlyRunDir(project), "events.jsonl"));
  assert.equal(events.find((event) => event.type === "run.started")?.task, task);
  // An empty standard input is no task (exit 2, naming what to pass).
  const empty = await run("");
  assert.equal(empty.code, 2);
  assert.match(
    empty.stderr,
    /there is no task; give it as an argument, with --task, on standard input or as "task"/,
  );
});

Deno.test("docs/STREAM_JSON.md describes exactly the stream's types, in order, and its version", async () => {
  const text = await Deno.readTextFile(nodePath.join(repository, "docs/STREAM_JSON.md"));
  const headings = [...text.matchAll(/^### (\S+)$/gm)].map((match) => match[1]);
  assert.deepEqual(headings, [
    "run.started",
    "model.responded",
    "tool.started",
    "approval.needed",
    "agent.started",
    "agent.ended",
    "tool.ended",
    "run.ended",
  ]);
  assert.deepEqual([...headings].sort(), [...STREAM_JSON_TYPES].sort());
  assert.match(text, new RegExp(`Version \`${STREAM_JSON_VERSION}\` is described here`));
});

Deno.test("a streamed model answer shows its time to first token in stream-json and the turn line", async () => {
  await using server = serveEventStream(() => ({
    chunks: [
      sseEvent({ choices: [{ index: 0, delta: { role: "assistant", content: "Hel" } }] }),
      sseEvent({ choices: [{ index: 0, delta: { content: "lo." }, finish_reason: "stop" }] }),
      sseEvent({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } }),
      "data: [DONE]\n\n",
    ],
  }));
  await using project = await createProject({
    config: {
      model: {
        provider: "openai",
        model: "streamed-model",
        base_url: server.baseUrl,
        stream: true,
        retries: 0,
      },
      task: "Say hello",
    },
  });
  const { code, stdout, stderr } = await runCli([
    "--config",
    project.configPath,
    "--output",
    "stream-json",
  ]);
  assert.equal(code, 0, stderr);
  assert.equal(server.received[0]?.stream, true);
  const lines = stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
  const turn = lines.find((line) => line.type === "model.responded");
  assert.equal(typeof turn.first_token_ms, "number");
  assert.ok(turn.first_token_ms <= turn.duration_ms, JSON.stringify(turn));
  assert.deepEqual([turn.usage.input_tokens, turn.usage.output_tokens], [5, 2]);
  assert.equal(lines.at(-1).final_text, "Hello.");
  assert.match(
    stderr,
    /turn 1 streamed-model: 5 in \+ 2 out tokens, \d+\.\d\d s, first token \d+\.\d\d s, 0 tool calls/,
  );
});
