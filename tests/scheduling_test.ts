// Scheduling a model turn and aborting it, through the real pipeline: parallel reads, a denied
// write that skips the rest, every call answered by id, and an abort that kills the child process.
import assert from "node:assert/strict";
import { sleepMarker } from "./_attack_helpers.ts";
import { type AgentOutcome, runAgent, ScriptProvider } from "../src/agent/mod.ts";
import { openTestRun, type TestRun, type TestRunOptions } from "../src/testing/run_harness.ts";
import { describeTool } from "../src/tools/tool_definition.ts";
import { createProject, taskFlags } from "./_cli_helpers.ts";

async function agentRun(
  options: TestRunOptions,
  lines: unknown[],
  signal?: AbortSignal,
): Promise<{ run: TestRun; provider: ScriptProvider; outcome: AgentOutcome }> {
  const run = await openTestRun(options);
  const provider = ScriptProvider.fromText(lines.map((line) => JSON.stringify(line)).join("\n"));
  const { session } = run;
  const outcome = await runAgent({
    provider,
    runtime: session.runtime,
    recorder: session.recorder,
    tools: session.registry.list().map((tool) => describeTool(tool.definition)).filter((tool) =>
      session.policy.isAvailable(tool.name)
    ),
    system: "test",
    task: "test",
    run: {
      run_id: session.folder.id,
      workspace: run.sandbox.workspace,
      deliverables: session.folder.paths.deliverables,
      scratch: session.folder.paths.workspace,
    },
    maxTurns: 5,
    concurrency: 4,
    toolPermission: (name) => session.registry.get(name)?.definition.permission,
    ...(signal === undefined ? {} : { signal }),
  });
  return { run, provider, outcome };
}

Deno.test("a turn still runs both reads when a call between them names an unknown tool", async () => {
  const { run, outcome } = await agentRun(
    {
      prepare: async (sandbox) => {
        await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "alpha\n");
        await Deno.writeTextFile(`${sandbox.workspace}/b.txt`, "beta\n");
      },
    },
    [
      {
        tool_calls: [
          { id: "read-a", name: "fs.read_file", arguments: { path: "a.txt" } },
          { id: "ghost", name: "fs.teleport", arguments: { path: "a.txt" } },
          { id: "read-b", name: "fs.read_file", arguments: { path: "b.txt" } },
        ],
      },
      { content: "done" },
    ],
  );
  await using _ = run;
  assert.deepEqual(
    outcome.results.map((result) => [result.tool_call_id, result.error?.type ?? "ok"]),
    [["read-a", "ok"], ["ghost", "tool_not_available"], ["read-b", "ok"]],
  );
  assert.match(outcome.results[2]?.output ?? "", /beta/);
  const events = await run.readLog("events");
  assert.ok(!events.some((event) => event.type === "tool.skipped"), "nothing was skipped");
});

/** 40 folders of 50 files each, so that a grep takes measurable time. */
async function bigTree(workspace: string): Promise<void> {
  const line = "lorem ipsum dolor sit amet needle consectetur adipiscing elit\n".repeat(40);
  for (let folder = 0; folder < 40; folder++) {
    await Deno.mkdir(`${workspace}/tree/d${folder}`, { recursive: true });
    await Promise.all(
      Array.from(
        { length: 50 },
        (_, file) => Deno.writeTextFile(`${workspace}/tree/d${folder}/f${file}.txt`, line),
      ),
    );
  }
}

Deno.test("a turn runs its reads in parallel and skips the calls after a denied write", async () => {
  const grep = (id: string) => ({
    id,
    name: "fs.grep_files",
    arguments: { pattern: "needle", path: "tree" },
  });
  const { run, provider, outcome } = await agentRun(
    { prepare: (sandbox) => bigTree(sandbox.workspace) },
    [
      {
        tool_calls: [
          grep("read-1"),
          grep("read-2"),
          grep("read-3"),
          { id: "write", name: "fs.write_file", arguments: { path: "out.txt", content: "x" } },
          grep("read-4"),
        ],
      },
      { content: "done" },
    ],
  );
  await using _ = run;
  assert.equal(outcome.end_reason, "completed");
  assert.deepEqual(
    outcome.results.map((result) => [result.tool_call_id, result.error?.type ?? "ok"]),
    [
      ["read-1", "ok"],
      ["read-2", "ok"],
      ["read-3", "ok"],
      ["write", "approval_required"],
      ["read-4", "skipped"],
    ],
  );
  assert.deepEqual(outcome.results[4]?.error?.details, { skipped_because: "write" });
  // The write was not made.
  await assert.rejects(Deno.stat(`${run.sandbox.workspace}/out.txt`), Deno.errors.NotFound);
  // Every call is answered by id in the next request, in the model's order.
  const toolMessages = provider.requests[1]?.messages.filter((message) => message.role === "tool");
  assert.deepEqual(
    toolMessages?.map((message) => message.role === "tool" ? message.tool_call_id : ""),
    ["read-1", "read-2", "read-3", "write", "read-4"],
  );
  // The audit: the reads started before the first read ended; the write started after all three
  // ended; the skipped call has a tool.skipped event and an errors.jsonl line but never started.
  const events = await run.readLog("events");
  const at = (type: string, id: string) => {
    const event = events.find((entry) => entry.type === type && entry.tool_call_id === id);
    assert.ok(event, `no ${type} event for "${id}"`);
    return Date.parse(String(event.ts));
  };
  const firstEnd = at("tool.completed", "read-1");
  assert.ok(at("tool.started", "read-2") <= firstEnd, "read-2 started before read-1 ended");
  assert.ok(at("tool.started", "read-3") <= firstEnd, "read-3 started before read-1 ended");
  const lastRead = Math.max(
    ...["read-1", "read-2", "read-3"].map((id) => at("tool.completed", id)),
  );
  assert.ok(at("tool.started", "write") >= lastRead, "the write started after the reads");
  assert.ok(at("tool.skipped", "read-4") >= at("tool.denied", "write"));
  assert.ok(
    !events.some((event) => event.type === "tool.started" && event.tool_call_id === "read-4"),
  );
  const errors = await run.readLog("errors");
  assert.ok(
    errors.some((error) => error.tool_call_id === "read-4" && error.error_type === "skipped"),
  );
});

async function sleepProcesses(marker: string): Promise<string[]> {
  const { stdout } = await new Deno.Command("ps", { args: ["-eo", "args"], stdout: "piped" })
    .output();
  return new TextDecoder().decode(stdout).split("\n").filter((line) =>
    line.includes(`sleep ${marker}`)
  );
}

Deno.test("an abort while a command runs ends the run aborted_tools and kills the command", async () => {
  // A duration unlikely to be used by anything else on the machine, so the process scan is exact.
  const marker = sleepMarker("30.4821");
  const controller = new AbortController();
  // Near miss: the scan sees the command while it runs; the abort comes 500 ms after that.
  let seen = false;
  let abortedAt = Number.POSITIVE_INFINITY;
  const interrupter = (async () => {
    const deadline = Date.now() + 20_000;
    while (!seen && Date.now() < deadline) {
      seen = (await sleepProcesses(marker)).length > 0;
      if (!seen) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    abortedAt = performance.now();
    controller.abort("interrupted by a signal");
  })();
  const { run, outcome } = await agentRun(
    {
      permissions: {
        rules: [{ tools: ["exec.run_command"], commands: ["sleep"], decision: "allow" }],
      },
      config: { commands: ["sleep"], sandbox: { command_isolation: "bwrap" } },
    },
    [
      {
        tool_calls: [{
          id: "nap",
          name: "exec.run_command",
          arguments: { argv: ["sleep", marker] },
        }],
      },
      { content: "never reached" },
    ],
    controller.signal,
  );
  const elapsed = performance.now() - abortedAt;
  await interrupter;
  await using _ = run;
  assert.equal(outcome.end_reason, "aborted_tools");
  assert.equal(outcome.turns, 1);
  // The handler stops the child at once; the Worker's grace period (2 s) bounds the worst case.
  assert.ok(elapsed < 6_000, `the run returned ${Math.round(elapsed)} ms after the abort`);
  const result = outcome.results[0];
  assert.equal(result?.tool_call_id, "nap");
  assert.equal(result?.error?.type, "aborted");
  assert.equal(result?.error?.details.aborted, true);
  assert.ok(seen, "the command ran before the abort");
  assert.deepEqual(await sleepProcesses(marker), []);
  // The audit is complete: the started call has its result event.
  const events = await run.readLog("events");
  assert.ok(events.some((event) => event.type === "tool.started" && event.tool_call_id === "nap"));
  assert.ok(events.some((event) => event.type === "tool.failed" && event.tool_call_id === "nap"));
});

Deno.test("an abort before the first model request ends the run aborted without a request", async () => {
  const controller = new AbortController();
  controller.abort("interrupted by a signal");
  const { run, provider, outcome } = await agentRun({}, [{ content: "never" }], controller.signal);
  await using _ = run;
  assert.equal(outcome.end_reason, "aborted");
  assert.equal(provider.requests.length, 0);
});

for (
  const [signal, code, marker] of [["SIGINT", 130, sleepMarker("30.4822")], [
    "SIGTERM",
    143,
    sleepMarker("30.4823"),
  ]] as const
) {
  Deno.test(`kagent-run on ${signal} while a command runs records aborted_tools and exits ${code}`, async () => {
    await using project = await createProject({
      config: { commands: ["sleep"], sandbox: { command_isolation: "bwrap" } },
      permissions: {
        rules: [{ tools: ["exec.run_command"], commands: ["sleep"], decision: "allow" }],
      },
      plan: [
        JSON.stringify({
          tool_calls: [{
            id: "nap",
            name: "exec.run_command",
            arguments: { argv: ["sleep", marker] },
          }],
        }),
        JSON.stringify({ content: "never reached" }),
      ],
    });
    const main = new URL("../main.ts", import.meta.url).pathname;
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        // The flags the shipped task and binary run with, not --allow-all.
        ...taskFlags("kagent-run"),
        main,
        "--config",
        project.configPath,
      ],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // Wait until the command runs (the near miss: the scan sees it), then signal the CLI only.
    const deadline = Date.now() + 20_000;
    while ((await sleepProcesses(marker)).length === 0) {
      assert.ok(Date.now() < deadline, "the command never started");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill(signal);
    const { code: status, stderr } = await child.output();
    assert.equal(status, code, new TextDecoder().decode(stderr));
    assert.match(new TextDecoder().decode(stderr), /run aborted_tools in /);
    // bubblewrap's PID namespace dies with its parent (--die-with-parent): the kernel tears it
    // down asynchronously, so a loaded machine may still list it for a moment after the exit.
    // Anything left after 3 s (the command sleeps 30 s) survived the run.
    const gone = Date.now() + 3_000;
    while ((await sleepProcesses(marker)).length > 0 && Date.now() < gone) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(await sleepProcesses(marker), []);
    const [runDir] = await Array.fromAsync(Deno.readDir(project.runsDir));
    assert.ok(runDir);
    const events = (await Deno.readTextFile(`${project.runsDir}/${runDir.name}/events.jsonl`))
      .split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
    const completed = events.find((event) => event.type === "run.completed");
    assert.equal(completed?.end_reason, "aborted_tools");
    const failed = events.find((event) =>
      event.type === "tool.failed" && event.tool_call_id === "nap"
    );
    assert.equal(failed?.error_type, "aborted");
    assert.ok(
      events.indexOf(failed) < events.indexOf(completed),
      "the tool result is recorded before run.completed",
    );
  });
}

Deno.test("a run under bubblewrap kills at its end whatever still carries its call marker, and nothing of another run", async () => {
  // An abort can cut a command's kill short (the tool Worker is replaced after its grace); the
  // run's end is the backstop. Stand-ins: processes carrying this run's marker and another's.
  const run = await openTestRun({
    config: { commands: ["sleep"], sandbox: { command_isolation: "bwrap" } },
  });
  const ours = new Deno.Command("sleep", {
    args: [sleepMarker("30.4824")],
    env: { KAGENT_RUN_CALL: `${run.session.folder.id}/lost-call` },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const theirs = new Deno.Command("sleep", {
    args: [sleepMarker("30.4825")],
    env: { KAGENT_RUN_CALL: "20000101T000000Z-000000/other" },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await run[Symbol.asyncDispose]();
    await ours.status;
    assert.deepEqual(await sleepProcesses(sleepMarker("30.4824")), []);
    // Near miss: another run's process is left alone.
    assert.equal((await sleepProcesses(sleepMarker("30.4825"))).length, 1);
  } finally {
    theirs.kill("SIGKILL");
    await theirs.status;
  }
});
