/**
 * After an abort, no process started by the run survives: a command whose processes ignore TERM,
 * one of them in its own session (`setsid`), interrupted in-process and through the CLI's
 * SIGINT/SIGTERM, under bubblewrap and under isolation none (with an approver: every command asks
 * there). Hooks are covered in hooks_test.ts.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { openTestRun } from "../src/testing/run_harness.ts";
import { unconfinedCommandApprover } from "../src/testing/unconfined_approver.ts";
import { EXIT } from "../src/cli/_common.ts";
import { createProject, type Project, readJsonl, taskFlags } from "./_cli_helpers.ts";
import { processesWith, sleepMarker, survivorsAfter } from "./_attack_helpers.ts";

const FIXTURE_SKILLS = fileURLToPath(new URL("./testdata/hostile/skills", import.meta.url));
const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
/** skills.run_script is dangerous: only a rule naming it exactly, and narrowed, allows it. */
const ALLOW_RUN_SCRIPT = {
  rules: [{ tools: ["skills.run_script"], commands: ["sh"], decision: "allow" }],
};

type Isolation = "none" | "bwrap";

function runScriptArguments(marker: string) {
  return { skill: "stubborn", script: "stubborn.sh", args: [marker] };
}

function config(isolation: Isolation): Record<string, unknown> {
  return {
    commands: ["sh"],
    sandbox: { command_isolation: isolation },
    skills: { dirs: [FIXTURE_SKILLS] },
  };
}

/** How many `sleep <marker>` processes run (exactly that command line, wherever they are). */
async function sleepsWith(marker: string): Promise<number> {
  const { stdout } = await new Deno.Command("ps", { args: ["-eo", "args="], stdout: "piped" })
    .output();
  return new TextDecoder().decode(stdout).split("\n").filter((line) =>
    line.trim() === `sleep ${marker}`
  ).length;
}

/** Waits until the fixture's three sleeps run (the near miss: the command really started). */
async function untilAllSleep(marker: string, exited?: Promise<unknown>): Promise<void> {
  let gone = false;
  void exited?.then(() => gone = true);
  while ((await sleepsWith(marker)) < 3) {
    assert.ok(!gone, "the run ended before its command started");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const isolation of ["none", "bwrap"] as const) {
  Deno.test(`an abort kills a command whose processes ignore TERM and leave the group (isolation ${isolation})`, async () => {
    const marker = isolation === "none" ? sleepMarker("600.6161") : sleepMarker("600.6162");
    assert.deepEqual(await processesWith(marker), [], "a process from an earlier run is alive");
    await using run = await openTestRun({
      config: config(isolation),
      permissions: ALLOW_RUN_SCRIPT,
      ...(isolation === "none" ? { approver: unconfinedCommandApprover } : {}),
    });
    const controller = new AbortController();
    const pending = run.session.runtime.call({
      id: "stubborn-1",
      name: "skills.run_script",
      arguments: JSON.stringify(runScriptArguments(marker)),
    }, controller.signal);
    await untilAllSleep(marker, pending);
    controller.abort("interrupted by SIGINT");
    const result = await pending;
    assert.equal(result.error?.type, "aborted", JSON.stringify(result.error));
    assert.deepEqual(await survivorsAfter(marker), [], `processes marked ${marker} survived`);
    if (isolation === "none") {
      // The handler itself killed the group (TERM, its grace, KILL) before its Worker was
      // replaced: the sweep after the call found only the process that left the group.
      const swept = (await run.readLog("events")).filter((event) => event.type === "command.swept");
      assert.deepEqual(swept.map((event) => event.killed), [1]);
    }
  });
}

/** A project whose plan runs the stubborn script once, then would answer. */
function stubbornProject(isolation: Isolation, marker: string): Promise<Project> {
  return createProject({
    config: config(isolation),
    permissions: ALLOW_RUN_SCRIPT,
    plan: [
      JSON.stringify({
        tool_calls: [{
          id: "stubborn",
          name: "skills.run_script",
          arguments: runScriptArguments(marker),
        }],
      }),
      JSON.stringify({ content: "never reached" }),
    ],
  });
}

function startCli(project: Project, extra: string[] = []): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      // The flags the shipped task and binary run with, not --allow-all.
      ...taskFlags("kagent-run"),
      MAIN,
      "--config",
      project.configPath,
      "--non-interactive",
      ...extra,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** The run folders of a project. */
async function runDirs(project: Project): Promise<string[]> {
  const names = (await Array.fromAsync(Deno.readDir(project.runsDir))).map((entry) => entry.name);
  return names.map((name) => nodePath.join(project.runsDir, name));
}

/**
 * Under isolation none every command asks: a first run prints the grant (exit 3), written to a
 * file for `--approvals`, as a person would do.
 */
async function grantFile(project: Project): Promise<{ file: string; runDir: string }> {
  const { code, stderr } = await startCli(project).output();
  assert.equal(code, EXIT.approvalRequired, new TextDecoder().decode(stderr));
  const [runDir] = await runDirs(project);
  const pending = await readJsonl(nodePath.join(runDir as string, "approvals", "pending.jsonl"));
  const file = nodePath.join(project.configDir, "grants.jsonl");
  await Deno.writeTextFile(file, pending.map((entry) => JSON.stringify(entry.grant)).join("\n"));
  return { file, runDir: runDir as string };
}

const CASES = [
  { isolation: "bwrap", signal: "SIGTERM", code: EXIT.terminated, marker: sleepMarker("600.6171") },
  { isolation: "bwrap", signal: "SIGINT", code: EXIT.interrupted, marker: sleepMarker("600.6172") },
  { isolation: "none", signal: "SIGTERM", code: EXIT.terminated, marker: sleepMarker("600.6173") },
  { isolation: "none", signal: "SIGINT", code: EXIT.interrupted, marker: sleepMarker("600.6174") },
] as const;

for (const { isolation, signal, code, marker } of CASES) {
  Deno.test(`kagent-run on ${signal} leaves no process of the run alive (isolation ${isolation})`, async () => {
    assert.deepEqual(await processesWith(marker), [], "a process from an earlier run is alive");
    await using project = await stubbornProject(isolation, marker);
    const grants = isolation === "none" ? await grantFile(project) : null;
    const extra = grants === null ? [] : ["--approvals", grants.file];
    const child = startCli(project, extra);
    const output = child.output();
    await untilAllSleep(marker, output);
    child.kill(signal);
    const { code: exitCode, stderr } = await output;
    const errors = new TextDecoder().decode(stderr);
    assert.equal(exitCode, code, errors);
    assert.doesNotMatch(errors, /internal error|\n\s+at /);
    assert.deepEqual(await survivorsAfter(marker), [], `processes marked ${marker} survived`);
    // The abort is recorded: the call ended aborted before the run ended.
    const [runDir] = (await runDirs(project)).filter((dir) => dir !== grants?.runDir);
    const events = await readJsonl(nodePath.join(runDir as string, "events.jsonl"));
    const failed = events.find((event) =>
      event.type === "tool.failed" && event.tool_call_id === "stubborn"
    );
    assert.equal(failed?.error_type, "aborted");
    const completed = events.find((event) => event.type === "run.completed");
    assert.equal(completed?.end_reason, "aborted_tools");
  });
}

Deno.test("kagent-run killed with SIGKILL leaves no process of its commands alive: the watchdog sweeps them (isolation none)", async () => {
  const marker = sleepMarker("600.6175");
  assert.deepEqual(await processesWith(marker), [], "a process from an earlier run is alive");
  await using project = await stubbornProject("none", marker);
  const grants = await grantFile(project);
  const child = startCli(project, ["--approvals", grants.file]);
  const output = child.output();
  await untilAllSleep(marker, output);
  // No handler runs: the process is gone at once, its run unended.
  child.kill("SIGKILL");
  const { signal } = await output;
  assert.equal(signal, "SIGKILL");
  assert.deepEqual(await survivorsAfter(marker, 5_000), [], `processes marked ${marker} survived`);
});
