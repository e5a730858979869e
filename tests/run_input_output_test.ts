// What `claude -p` and `codex exec` users reach for (issue 24 §7): a positional task and piped
// standard input as the task; token usage (and cost, with model.pricing) in --output json and the
// step summary, with the final answer.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import {
  createProject,
  onlyRunDir,
  readJsonl,
  repository,
  runCli,
  taskFlags,
} from "./_cli_helpers.ts";

const ANSWER = [JSON.stringify({ content: "All done." })];

async function runTask(runDir: string) {
  const run = JSON.parse(await Deno.readTextFile(nodePath.join(runDir, "run.json")));
  return run.task as string;
}

Deno.test("a positional task is the run's task, before or after the options; with --task it is a usage error", async () => {
  await using project = await createProject({ plan: ANSWER });
  const after = await runCli(["--config", project.configPath, "Summarise the notes"]);
  assert.equal(after.code, 0, after.stderr);
  assert.equal(await runTask(await onlyRunDir(project)), "Summarise the notes");
  await Deno.remove(project.runsDir, { recursive: true });

  const before = await runCli(["Summarise the notes please", "--config", project.configPath]);
  assert.equal(before.code, 0, before.stderr);
  assert.equal(await runTask(await onlyRunDir(project)), "Summarise the notes please");

  const both = await runCli(["--config", project.configPath, "--task", "A", "B"]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /Cannot run with the task "B": --task or --task-file gives one too/);
  const two = await runCli(["--config", project.configPath, "A", "B"]);
  assert.equal(two.code, 2);
  assert.match(two.stderr, /unexpected argument "B"; give the task as one argument/);
  // Near miss: a single unknown word is still not a command.
  const word = await runCli(["summarise", "--config", project.configPath]);
  assert.equal(word.code, 2);
  assert.match(word.stderr, /Cannot run command "summarise": it is not a command/);
});

async function runMain(cwd: string, args: string[], stdin: string | null) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...taskFlags("kagent-run"), nodePath.join(repository, "main.ts"), ...args],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: stdin === null ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== null) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const output = await child.output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

Deno.test("piped standard input is the task when none is given; /dev/null leaves the config's task", async () => {
  await using project = await createProject({ plan: ANSWER });
  const piped = await runMain(
    project.sandbox.root,
    ["--config", project.configPath],
    "From a pipe\n",
  );
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(await runTask(await onlyRunDir(project)), "From a pipe\n");
  await Deno.remove(project.runsDir, { recursive: true });

  // Near miss: no data on standard input (the Action's /dev/null): the config's task.
  const none = await runMain(project.sandbox.root, ["--config", project.configPath], null);
  assert.equal(none.code, 0, none.stderr);
  assert.equal(await runTask(await onlyRunDir(project)), "test task");
});

Deno.test("--output json carries usage and cost_usd, and the step summary the tokens, the cost and the answer", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      Response.json({
        choices: [{
          index: 0,
          message: { role: "assistant", content: "The answer is **42**." },
          finish_reason: "stop",
        }],
        usage: {
          prompt_tokens: 1_000_000,
          completion_tokens: 100_000,
          prompt_tokens_details: { cached_tokens: 200_000 },
        },
      }),
  );
  try {
    await using project = await createProject({
      config: {
        task: "Answer",
        model: {
          provider: "openai",
          model: "test-model",
          base_url: `http://127.0.0.1:${server.addr.port}/v1`,
          stream: false,
          pricing: {
            input_per_million_tokens: 3,
            output_per_million_tokens: 15,
            cache_read_per_million_tokens: 0.3,
          },
        },
      },
    });
    const summary = nodePath.join(project.sandbox.root, "summary.md");
    await Deno.writeTextFile(summary, "");
    const result = await runCli(["--config", project.configPath, "--output", "json"], {
      env: { GITHUB_STEP_SUMMARY: summary },
    });
    assert.equal(result.code, 0, result.stderr);
    const json = JSON.parse(result.stdout);
    assert.deepEqual(json.usage, {
      input_tokens: 1_000_000,
      output_tokens: 100_000,
      cache_read_input_tokens: 200_000,
      total_tokens: 1_100_000,
    });
    // 800k at $3, 200k cached at $0.30, 100k out at $15: 2.4 + 0.06 + 1.5.
    assert.equal(json.cost_usd, 3.96);
    const text = await Deno.readTextFile(summary);
    assert.match(
      text,
      /\*\*Tokens:\*\* 1000000 in \(200000 cached\), 100000 out, 1100000 in all; cost \$3\.9600/,
    );
    assert.match(text, /\*\*Answer:\*\*\n\n```text\nThe answer is \*\*42\*\*\.\n```/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("without pricing there is no cost, and a provider that reports no usage gives usage null", async () => {
  await using project = await createProject({ plan: ANSWER });
  const result = await runCli(["--config", project.configPath, "--output", "json"]);
  assert.equal(result.code, 0, result.stderr);
  const json = JSON.parse(result.stdout);
  assert.equal(json.usage, null);
  assert.equal(json.cost_usd, null);
});

const SCHEMA = {
  type: "object",
  required: ["verdict", "files"],
  properties: {
    verdict: { enum: ["pass", "fail"] },
    files: { type: "array", items: { type: "string" } },
  },
  additionalProperties: false,
};

Deno.test("--output-schema: a matching answer is structured_output with exit 0; one that does not match fails with exit 8, recorded", async () => {
  for (
    const [answer, code] of [
      ['```json\n{"verdict": "pass", "files": ["a.ts"]}\n```', 0],
      ['{"verdict": "maybe", "files": []}', 8],
      ["It passed.", 8],
    ] as const
  ) {
    await using project = await createProject({ plan: [JSON.stringify({ content: answer })] });
    const schemaPath = nodePath.join(project.sandbox.root, "schema.json");
    await Deno.writeTextFile(schemaPath, JSON.stringify(SCHEMA));
    const result = await runCli([
      "--config",
      project.configPath,
      "--output",
      "json",
      "--output-schema",
      schemaPath,
    ]);
    assert.equal(result.code, code, `${answer}: ${result.stderr}`);
    const json = JSON.parse(result.stdout);
    const events = (await Deno.readTextFile(
      nodePath.join(await onlyRunDir(project), "events.jsonl"),
    )).trim().split("\n").map((line) => JSON.parse(line));
    const completed = events.find((event) => event.type === "run.completed");
    if (code === 0) {
      assert.deepEqual(json.structured_output, { verdict: "pass", files: ["a.ts"] });
      assert.deepEqual(json.output_schema_errors, []);
      assert.equal(completed.output_schema.valid, true);
    } else {
      assert.equal(json.structured_output, null);
      assert.ok(json.output_schema_errors.length > 0);
      assert.match(
        result.stderr,
        /Cannot accept the final answer: it does not match --output-schema/,
      );
      assert.equal(completed.output_schema.valid, false);
    }
  }
  // A schema that is not JSON is a usage error before anything runs.
  await using project = await createProject({ plan: ANSWER });
  const broken = nodePath.join(project.sandbox.root, "broken.json");
  await Deno.writeTextFile(broken, "{not json");
  const refused = await runCli(["--config", project.configPath, "--output-schema", broken]);
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /Cannot use --output-schema ".*broken\.json": it is not a JSON Schema/,
  );
});

Deno.test("limits.max_total_tokens stops the run after the turn that reaches it: end reason max_total_tokens, exit 5", async () => {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    requests += 1;
    return Response.json({
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: `call_${requests}`,
            type: "function",
            function: { name: "fs__read_file", arguments: '{"path":"README.md"}' },
          }],
        },
        finish_reason: "tool_calls",
      }],
      usage: { prompt_tokens: 600, completion_tokens: 100 },
    });
  });
  try {
    for (const [budget, expected] of [[1000, 2], [100_000, 10]] as const) {
      requests = 0;
      await using project = await createProject({
        config: {
          task: "Read forever",
          agent: { max_turns: 10 },
          limits: { max_total_tokens: budget },
          permissions: { rules: [{ tools: ["fs.read_file"], decision: "allow" }] },
          model: {
            provider: "openai",
            model: "test-model",
            base_url: `http://127.0.0.1:${server.addr.port}/v1`,
            stream: false,
          },
        },
      });
      const result = await runCli(["--config", project.configPath, "--output", "json"]);
      assert.equal(result.code, 5, result.stderr);
      // 700 tokens a turn: the budget of 1000 is reached by the second turn, whose read still
      // runs; the near miss (a large budget) ends at the turn limit instead.
      assert.equal(requests, expected);
      const json = JSON.parse(result.stdout);
      assert.equal(json.end_reason, budget === 1000 ? "max_total_tokens" : "max_turns");
      assert.equal(json.calls, expected);
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("limits.max_total_tokens is one budget for the main agent and its child agents: a child's turns spend from it", async () => {
  let requests = 0;
  // 700 tokens a turn. The main agent starts a reader, then ends; the reader reads forever.
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      requests += 1;
      const body = await request.json() as { messages: { role: string; content: unknown }[] };
      const child = body.messages.some((message) =>
        message.role === "user" && String(message.content).includes("Read README.md again")
      );
      const last = body.messages[body.messages.length - 1];
      const call = (name: string, args: unknown) => ({
        id: `call_${requests}`,
        type: "function",
        function: { name, arguments: JSON.stringify(args) },
      });
      const message = child
        ? {
          role: "assistant",
          content: null,
          tool_calls: [call("fs__read_file", { path: "README.md" })],
        }
        : last?.role === "user"
        ? {
          role: "assistant",
          content: null,
          tool_calls: [
            call("agent__create_sub_agent", { agent_id: "reader", task: "Read README.md again" }),
          ],
        }
        : { role: "assistant", content: "Done." };
      return Response.json({
        choices: [{
          index: 0,
          message,
          finish_reason: child || last?.role === "user" ? "tool_calls" : "stop",
        }],
        usage: { prompt_tokens: 600, completion_tokens: 100 },
      });
    },
  );
  try {
    for (const [budget, expected, code] of [[1000, 2, 5], [100_000, 5, 0]] as const) {
      requests = 0;
      await using project = await createProject({
        config: {
          task: "Delegate the reading",
          agents: { reader: { description: "Reads", agent_type: "sub", max_turns: 3 } },
          limits: { max_total_tokens: budget },
          permissions: { rules: [{ tools: ["fs.read_file", "agent.*"], decision: "allow" }] },
          model: {
            provider: "openai",
            model: "test-model",
            base_url: `http://127.0.0.1:${server.addr.port}/v1`,
            stream: false,
          },
        },
      });
      const result = await runCli(["--config", project.configPath, "--output", "json"]);
      assert.equal(result.code, code, result.stderr);
      // Budget 1000: the main agent's turn (700) and the reader's first (1400) spend it; the
      // reader ends after its read, the main agent after its call. The near miss: the reader
      // reaches its turn limit (3) and the main agent completes.
      assert.equal(requests, expected);
      const json = JSON.parse(result.stdout);
      assert.equal(json.end_reason, budget === 1000 ? "max_total_tokens" : "completed");
      const runDir = String(json.run_dir);
      const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
      const child = events.find((event) => event.type === "agent.completed");
      assert.equal(child?.end_reason, budget === 1000 ? "max_total_tokens" : "max_turns");
    }
  } finally {
    await server.shutdown();
  }
});
