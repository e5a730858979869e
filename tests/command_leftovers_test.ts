/**
 * Isolation none: what a command leaves running is dead when its call returns. The Worker leaves
 * the command's process group to the main thread, which kills it in-process; then the marker
 * sweep (sh + grep over the environments) kills what left the group. Near misses: processes of
 * another call or run, or carrying the marker inside another variable, are left alone.
 */

import assert from "node:assert/strict";
import type { Approver } from "../src/approval/mod.ts";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import { killProcessesWith, processesWith } from "../src/exec/_test_support.ts";

/** The person at the terminal who says yes to `sh` (every command asks under isolation none). */
const yes: Approver = {
  name: "test-yes",
  approve: () => Promise.resolve({ decision: "allow_once" }),
};

async function openShellRun(): Promise<TestRun> {
  return await openTestRun({
    config: { commands: ["sh"], sandbox: { command_isolation: "none" } },
    permissions: { rules: [{ tools: ["exec.run_command"], commands: ["sh"], decision: "allow" }] },
    approver: yes,
  });
}

/** A `sleep` duration no other test uses, so `ps` finds exactly the processes of one test. */
function duration(): string {
  return `600.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
}

async function sweptEvents(run: TestRun): Promise<Record<string, unknown>[]> {
  return (await run.readLog("events")).filter((event) => event.type === "command.swept");
}

Deno.test("exec.run_command (none) leaves no group member alive that emptied its environment", async () => {
  const member = duration();
  const run = await openShellRun();
  try {
    // `env -i`: the member carries no marker, so the sweep cannot find it; only the kill of the
    // process group the Worker left to the main thread can end it.
    const result = await run.call("exec.run_command", {
      argv: [
        "sh",
        "-c",
        `env -i sleep ${member} </dev/null >/dev/null 2>&1 & sleep 0.2; kill -0 $! && echo alive`,
      ],
    });
    assert.equal(result.ok, true, result.output);
    // Near miss: the member was alive when the command ended.
    assert.equal(result.output.trim(), "alive");
    assert.deepEqual(await processesWith(member), []);
    assert.deepEqual(await sweptEvents(run), []);
  } finally {
    await killProcessesWith(member);
    await run.close();
  }
});

Deno.test("exec.run_command (none) kills a setsid process that escaped its group, and nothing of another call or run", async () => {
  const escaped = duration();
  const others = { longer: duration(), inValue: duration(), otherRun: duration() };
  const run = await openShellRun();
  const runId = run.session.folder.id;
  // The harness names the first call test-1.
  const nearMisses: [string, Record<string, string>][] = [
    [others.longer, { KAGENT_RUN_CALL: `${runId}/test-10` }],
    [others.inValue, { OTHER: `KAGENT_RUN_CALL=${runId}/test-1` }],
    [others.otherRun, { KAGENT_RUN_CALL: `20000101T000000Z-000000/test-1` }],
  ];
  const children = nearMisses.map(([seconds, env]) =>
    new Deno.Command("sleep", {
      args: [seconds],
      clearEnv: true,
      env,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn()
  );
  try {
    const result = await run.call("exec.run_command", {
      argv: ["sh", "-c", `setsid sleep ${escaped} </dev/null >/dev/null 2>&1 & echo started`],
    });
    assert.equal(result.ok, true, result.output);
    assert.deepEqual(await processesWith(escaped), []);
    assert.equal((await sweptEvents(run)).length, 1);
    for (const [seconds] of nearMisses) {
      assert.equal((await processesWith(seconds)).length, 1, `sleep ${seconds} was killed`);
    }
  } finally {
    for (const child of children) {
      child.kill("SIGKILL");
      await child.status;
    }
    await killProcessesWith(escaped);
    await run.close();
  }
});

/** perl, which moves a process to a group of its own without a new session (`setpgrp`). */
const PERL = await Deno.stat("/usr/bin/perl").then(() => "/usr/bin/perl", () => null);
if (PERL === null) console.log("Ignoring the session sweep test: no /usr/bin/perl");

Deno.test(
  "exec.run_command (none) kills a process that emptied its environment and left the group but not the session, and an unmarked child of a marked process",
  {
    ignore: PERL === null,
  },
  async () => {
    const inSession = duration();
    const child = duration();
    const run = await openShellRun();
    const ownGroup = "perl -e 'setpgrp(0, 0); exec @ARGV'";
    try {
      // The first leaves the group (the group kill misses it) but not the session, and clears its
      // marker (the environment sweep misses it). The second is a marked shell in a group of its
      // own, waiting on a child that left the session and cleared its marker.
      const result = await run.call("exec.run_command", {
        argv: [
          "sh",
          "-c",
          `${ownGroup} env -i sleep ${inSession} </dev/null >/dev/null 2>&1 &
${ownGroup} sh -c 'setsid env -i sleep ${child} & wait' </dev/null >/dev/null 2>&1 &
sleep 0.3; echo started`,
        ],
      });
      assert.equal(result.ok, true, result.output);
      assert.equal(result.output.trim(), "started");
      assert.deepEqual(await processesWith(inSession), [], "the session member survived");
      assert.deepEqual(await processesWith(child), [], "the marked process's child survived");
      const swept = await sweptEvents(run);
      assert.ok((swept[0]?.killed as number) >= 3, JSON.stringify(swept));
    } finally {
      await killProcessesWith(inSession);
      await killProcessesWith(child);
      await run.close();
    }
  },
);
