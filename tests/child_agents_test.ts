/**
 * Issue 14's "Done when", end to end through `kagent-run run` with scripted models: the example in
 * examples/agents (docs/AGENTS.md, "Sub-agents and tasks") runs in a temporary project; then an abort
 * mid-run leaves no process of any child behind.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { DatabaseSync } from "node:sqlite";
import { SqliteTaskStore } from "../src/tasks/mod.ts";
import { verifyRun } from "../src/verify/mod.ts";
import {
  createProject,
  onlyRunDir,
  readJsonl,
  repository,
  runCli,
  taskFlags,
} from "./_cli_helpers.ts";
import { exists, processesWith, sleepMarker, survivorsAfter } from "./_attack_helpers.ts";

const EXAMPLE = nodePath.join(repository, "examples", "agents");
const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const FIXTURE_SKILLS = fileURLToPath(new URL("./testdata/hostile/skills", import.meta.url));

/** The example's config and plans, copied beside a fresh project's config. */
async function exampleProject() {
  const project = await createProject();
  await Deno.mkdir(nodePath.join(project.configDir, "plans"));
  for await (const entry of Deno.readDir(nodePath.join(EXAMPLE, "plans"))) {
    await Deno.copyFile(
      nodePath.join(EXAMPLE, "plans", entry.name),
      nodePath.join(project.configDir, "plans", entry.name),
    );
  }
  const config = (await Deno.readTextFile(nodePath.join(EXAMPLE, "agent.jsonc")))
    .replace('"$schema": "../../docs/config.schema.json",', "")
    .replace('"runs_dir": "runs"', '"runs_dir": "../runs"');
  await Deno.writeTextFile(project.configPath, config);
  return project;
}

type Line = Record<string, unknown>;

/** How many `sleep <marker>` processes run (exactly that command line, wherever they are). */
async function sleepsWith(marker: string): Promise<number> {
  const { stdout } = await new Deno.Command("ps", { args: ["-eo", "args="], stdout: "piped" })
    .output();
  return new TextDecoder().decode(stdout).split("\n").filter((line) =>
    line.trim() === `sleep ${marker}`
  ).length;
}
const ofType = (events: Line[], type: string) => events.filter((event) => event.type === type);

Deno.test("a main agent plans a task, runs two workers in parallel, a sub-agent and a fork, and gets every result", async () => {
  await using project = await exampleProject();
  const { code, stdout, stderr } = await runCli([
    "run",
    "--config",
    project.configPath,
    "--workspace",
    project.sandbox.workspace,
    "--non-interactive",
  ]);
  assert.equal(code, 0, stderr);
  const runDir = await onlyRunDir(project);
  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));

  // The parent got every result: the task is done, the reader read the file, the fork answered
  // from the parent's conversation (its templates name the parent's calls "create" and "read").
  assert.match(
    stdout,
    /Task: task task-1 "Notes on the repository" \(open, created by main\): 3 done/,
  );
  assert.match(stdout, /Reader: The first line of README\.md:\s+1\s+# Demo/);
  assert.match(
    stdout,
    /Reviewer: Reviewed: the parent Created task task-1 .*its reader said: sub agent reader-1/,
  );
  const completed = ofType(events, "agent.completed");
  assert.deepEqual(
    completed.map((event) => [event.agent_id, event.agent_type, event.end_reason]).sort(),
    [
      ["careless-worker-1", "worker", "completed"],
      ["reader-1", "sub", "completed"],
      ["reviewer-1", "fork", "completed"],
      ["worker-1", "worker", "completed"],
      ["worker-2", "worker", "completed"],
    ],
  );

  // The listing calls: definitions, workers started, one child inspected after its end.
  const results = new Map(
    (await readJsonl(nodePath.join(runDir, "logs", "tools.jsonl"))).map((line) => [
      line.tool_call_id,
      line.result as Line,
    ]),
  );
  assert.match(String(results.get("defs")?.output), /^worker \(worker\): Claims one ready step/m);
  assert.match(String(results.get("defs")?.output), /^reviewer \(fork\): /m);
  assert.equal(results.get("workers")?.summary, "2 worker definitions, 3 workers started");
  const inspected = JSON.parse(String(results.get("inspect")?.output));
  assert.equal(inspected.agent_id, "reader-1");
  assert.equal(inspected.state, "ended");
  assert.equal(inspected.end_reason, "completed");

  // The two workers and the sub-agent of turn 2 were started together: all three calls began
  // before any of them ended.
  const position = (type: string, id: string) =>
    events.findIndex((event) => event.type === type && event.tool_call_id === id);
  const turnTwo = ["worker-1", "worker-2", "read"];
  const lastStart = Math.max(...turnTwo.map((id) => position("tool.started", id)));
  const firstEnd = Math.min(...turnTwo.map((id) => position("tool.completed", id)));
  assert.ok(lastStart >= 0 && lastStart < firstEnd, "turn 2's child agents did not overlap");

  // Each step was claimed once, by a different worker; the summary waited for both notes.
  const store = new SqliteTaskStore(nodePath.join(runDir, "tasks.sqlite"));
  try {
    const task = await store.getTask("task-1");
    const owners = Object.fromEntries(task.steps.map((step) => [step.id, step.owner]));
    assert.deepEqual(task.steps.map((step) => step.state), ["done", "done", "done"]);
    assert.deepEqual([owners["notes-a"], owners["notes-b"]].sort(), ["worker-1", "worker-2"]);
    assert.equal(owners.summary, "careless-worker-1");
  } finally {
    await store.close();
  }

  // The task graph the run relied on is sealed (issue 28): the run verifies as it is, and a
  // rewrite of a step's owner, state and result after the run is caught.
  assert.equal((await verifyRun(runDir)).verdict, "verified");
  const sealed = JSON.parse(await Deno.readTextFile(nodePath.join(runDir, "manifest.json")));
  assert.ok(Object.hasOwn(sealed.files, "tasks.sqlite"));
  const forger = new DatabaseSync(nodePath.join(runDir, "tasks.sqlite"));
  forger.exec(
    "UPDATE steps SET owner = 'mallory', state = 'failed', result = 'forged' WHERE id = 'summary'",
  );
  forger.close();
  const forged = await verifyRun(runDir);
  assert.equal(forged.verdict, "tampered");
  assert.ok(
    forged.problems.some((problem) => problem.file === "tasks.sqlite"),
    JSON.stringify(forged.problems),
  );

  // Every child's run folder is complete and names its parent.
  const children = new Map(
    ofType(events, "agent.started").map((event) => [event.agent_id, event.child_run_id]),
  );
  for (const [agentId, childRunId] of children) {
    const dir = nodePath.join(runDir, "agents", String(childRunId));
    const info = JSON.parse(await Deno.readTextFile(nodePath.join(dir, "run.json")));
    assert.equal(info.agent.agent_id, agentId);
    assert.equal(info.agent.parent.run_id, nodePath.basename(runDir));
    assert.equal(info.agent.parent.agent_id, "main");
    const childEvents = await readJsonl(nodePath.join(dir, "events.jsonl"));
    assert.equal(childEvents[0]?.type, "run.started");
    assert.equal(childEvents.at(-1)?.type, "run.completed");
    assert.equal(childEvents.at(-1)?.end_reason, "completed");
    const policy = JSON.parse(await Deno.readTextFile(nodePath.join(dir, "policy.json")));
    assert.equal(policy.agent.type, info.agent.role);
    assert.ok(await exists(nodePath.join(dir, "system_prompt.md")));
    assert.ok(
      (await readJsonl(nodePath.join(dir, "logs", "tools.jsonl"))).length > 0 ||
        agentId === "reviewer-1",
    );
  }

  // The careless worker's write and agent start were not in its tool set; nothing was written.
  const careless = nodePath.join(runDir, "agents", String(children.get("careless-worker-1")));
  const denied = ofType(await readJsonl(nodePath.join(careless, "events.jsonl")), "tool.denied");
  assert.deepEqual(
    denied.map((event) => [event.tool, event.error_type]),
    [["fs.write_file", "tool_not_available"], ["agent.create_sub_agent", "tool_not_available"]],
  );
  assert.ok(!(await exists(nodePath.join(project.sandbox.workspace, "worker-was-here.txt"))));
  // Near miss: the same worker's allowed tools ran (its claim and report).
  const carelessTools = await readJsonl(nodePath.join(careless, "logs", "tools.jsonl"));
  assert.ok(
    carelessTools.some((line) =>
      line.tool === "agent.task_update_step" && (line.result as Line).ok === true
    ),
  );
});

Deno.test("an abort mid-run reaches every child agent and leaves none of their processes", async () => {
  const marker = sleepMarker("600.6163");
  assert.deepEqual(await processesWith(marker), [], "a process from an earlier run is alive");
  await using project = await createProject({
    config: {
      commands: ["sh"],
      sandbox: { command_isolation: "bwrap" },
      skills: { dirs: [FIXTURE_SKILLS] },
      agents: {
        runner: {
          description: "Runs a stubborn script",
          agent_type: "sub",
          model: { provider: "script", script: "runner.jsonl" },
        },
      },
    },
    permissions: {
      rules: [{ tools: ["skills.run_script"], commands: ["sh"], decision: "allow" }],
    },
    plan: [
      JSON.stringify({
        tool_calls: ["one", "two"].map((id) => ({
          id,
          name: "agent.create_sub_agent",
          arguments: { agent_id: "runner", task: "Run the script" },
        })),
      }),
      JSON.stringify({ content: "never reached" }),
    ],
  });
  await Deno.writeTextFile(
    nodePath.join(project.configDir, "runner.jsonl"),
    [
      JSON.stringify({
        tool_calls: [{
          name: "skills.run_script",
          arguments: { skill: "stubborn", script: "stubborn.sh", args: [marker] },
        }],
      }),
      JSON.stringify({ content: "never reached" }),
    ].join("\n"),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      // The flags the shipped task and binary run with, not --allow-all.
      ...taskFlags("kagent-run"),
      MAIN,
      "--config",
      project.configPath,
      "--non-interactive",
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = child.output();
  // Both children's commands run (three sleeps each: the stubborn fixture) before the abort.
  let ended = false;
  void output.then(() => ended = true);
  while ((await sleepsWith(marker)) < 6) {
    assert.ok(!ended, "the run ended before its children's commands started");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGINT");
  const { code } = await output;
  assert.equal(code, 130);
  assert.deepEqual(await survivorsAfter(marker), [], `processes marked ${marker} survived`);
  const runDir = await onlyRunDir(project);
  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  const completed = ofType(events, "agent.completed");
  assert.equal(completed.length, 2);
  for (const event of completed) {
    assert.equal(event.end_reason, "aborted_tools");
    const childEvents = await readJsonl(
      nodePath.join(runDir, "agents", String(event.child_run_id), "events.jsonl"),
    );
    assert.equal(childEvents.at(-1)?.type, "run.completed");
    assert.equal(childEvents.at(-1)?.end_reason, "aborted_tools");
  }
  const results = ofType(events, "tool.failed").map((event) => event.error_type);
  assert.deepEqual(results, ["aborted", "aborted"]);
});
