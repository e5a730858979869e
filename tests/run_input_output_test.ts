// What `claude -p` and `codex exec` users reach for (issue 24 §7): a positional task and piped
// standard input as the task; token usage (and cost, with model.pricing) in --output json and the
// step summary, with the final answer.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, repository, runCli, taskFlags } from "./_cli_helpers.ts";

const ANSWER = [JSON.stringify({ content: "All done." })];

async function runTask(project: { configPath: string }, runDir: string) {
  const run = JSON.parse(await Deno.readTextFile(nodePath.join(runDir, "run.json")));
  return run.task as string;
}

Deno.test("a positional task is the run's task, before or after the options; with --task it is a usage error", async () => {
  await using project = await createProject({ plan: ANSWER });
  const after = await runCli(["--config", project.configPath, "Summarise the notes"]);
  assert.equal(after.code, 0, after.stderr);
  assert.equal(await runTask(project, await onlyRunDir(project)), "Summarise the notes");
  await Deno.remove(project.runsDir, { recursive: true });

  const before = await runCli(["Summarise the notes please", "--config", project.configPath]);
  assert.equal(before.code, 0, before.stderr);
  assert.equal(await runTask(project, await onlyRunDir(project)), "Summarise the notes please");

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
  assert.equal(await runTask(project, await onlyRunDir(project)), "From a pipe\n");
  await Deno.remove(project.runsDir, { recursive: true });

  // Near miss: no data on standard input (the Action's /dev/null): the config's task.
  const none = await runMain(project.sandbox.root, ["--config", project.configPath], null);
  assert.equal(none.code, 0, none.stderr);
  assert.equal(await runTask(project, await onlyRunDir(project)), "test task");
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
