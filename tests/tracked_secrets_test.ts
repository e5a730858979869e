/**
 * Sensitive files and git (issue 23 §5): a sensitive file git tracks is already in the object
 * store git must read, so under bubblewrap it stays visible and `git diff` / `git status` work on
 * it; a sensitive file git does not track (`.env`) stays masked, and so does every other name of
 * it (a hard link). Each case asserts the effect inside the sandbox (what `cat` prints) with its
 * near miss.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import type { ToolResult } from "../src/result/tool_result.ts";
import type { Approver } from "../src/approval/mod.ts";
import { assertWorked, git } from "./_attack_helpers.ts";
import { BWRAP_PROBE } from "../src/exec/_test_support.ts";
import { createProject, runCli } from "./_cli_helpers.ts";

const HAS_BWRAP = BWRAP_PROBE.usable;
const SECRET = "KAGENT-UNTRACKED-SECRET-77a1";
const TRACKED_KEY = "-----BEGIN TEST KEY-----\ntracked test material\n-----END TEST KEY-----\n";

/** Approves every ask: `sh -c` asks, and these tests test the mount, not the policy. */
const APPROVE_ALL: Approver = {
  name: "test-approve-all",
  approve: () => Promise.resolve({ decision: "allow_once" }),
};

function openRepositoryRun(approver?: Approver): Promise<TestRun> {
  return openTestRun({
    ...(approver === undefined ? {} : { approver }),
    config: { commands: ["git", "cat", "sh"], sandbox: { command_isolation: "bwrap" } },
    permissions: {
      rules: [{ tools: ["exec.run_command"], commands: ["git", "cat", "sh"], decision: "allow" }],
    },
    prepare: async (sandbox) => {
      const workspace = sandbox.workspace;
      await git(workspace, "init", "-q", "-b", "main");
      await git(workspace, "config", "user.email", "agent@example.invalid");
      await git(workspace, "config", "user.name", "Agent");
      await Deno.mkdir(nodePath.join(workspace, "certs"));
      await Deno.writeTextFile(nodePath.join(workspace, "certs", "test.key"), TRACKED_KEY);
      await Deno.writeTextFile(nodePath.join(workspace, ".env.example"), "TOKEN=\n");
      await Deno.writeTextFile(nodePath.join(workspace, ".gitignore"), ".env\ninnocent.txt\n");
      await Deno.writeTextFile(nodePath.join(workspace, "README.md"), "# Demo\n");
      await git(workspace, "add", ".");
      await git(workspace, "commit", "-q", "-m", "first");
      await Deno.writeTextFile(nodePath.join(workspace, ".env"), `TOKEN=${SECRET}\n`);
      await Deno.link(nodePath.join(workspace, ".env"), nodePath.join(workspace, "innocent.txt"));
    },
  });
}

function stdoutOf(result: ToolResult): string {
  return ((result.data as { stdout?: { text?: string } } | null)?.stdout?.text) ?? "";
}

Deno.test({
  name: "git diff and git status are clean under bwrap with a tracked test.key and .env.example",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openRepositoryRun();
    const diff = await run.call("exec.run_command", { argv: ["git", "diff", "--exit-code"] });
    assertWorked(diff);
    const status = await run.call("exec.run_command", {
      argv: ["git", "status", "--porcelain"],
    });
    assertWorked(status);
    assert.equal(stdoutOf(status), "", "git status shows a tracked file modified");
    // Near miss: a real change to the tracked key is still seen.
    await Deno.writeTextFile(
      nodePath.join(run.sandbox.workspace, "certs", "test.key"),
      "changed\n",
    );
    const changed = await run.call("exec.run_command", { argv: ["git", "status", "--porcelain"] });
    assertWorked(changed);
    assert.match(stdoutOf(changed), /M certs\/test\.key/);
  },
});

Deno.test({
  name: "an untracked .env and a hard link to it stay unreadable by commands under bwrap",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openRepositoryRun(APPROVE_ALL);
    // Globs, so that the policy's argument analysis does not see the names: this tests the mount.
    for (const pattern of ["./[.]env", "./innocent[.]txt"]) {
      const result = await run.call("exec.run_command", {
        argv: ["sh", "-c", `cat ${pattern}; echo done`],
      });
      assertWorked(result);
      assert.match(stdoutOf(result), /done/);
      assert.ok(!JSON.stringify(result).includes(SECRET), `the secret is readable as ${pattern}`);
    }
    // Near miss: the tracked key reads whole.
    const key = await run.call("exec.run_command", {
      argv: ["sh", "-c", "cat certs/test.k[e]y"],
    });
    assertWorked(key);
    assert.equal(stdoutOf(key).includes("tracked test material"), true);
  },
});

Deno.test({
  name: "fs.read_file of an untracked .env needs an approval; the tracked key's near miss",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openRepositoryRun();
    const env = await run.call("fs.read_file", { path: ".env" });
    assert.equal(env.ok, false);
    assert.ok(!JSON.stringify(env).includes(SECRET));
    const readme = await run.call("fs.read_file", { path: "README.md" });
    assertWorked(readme);
  },
});

Deno.test("kagent-run policy lists tracked sensitive files as readable through git, not .env", async () => {
  await using project = await createProject();
  const workspace = project.sandbox.workspace;
  await git(workspace, "init", "-q", "-b", "main");
  await Deno.mkdir(nodePath.join(workspace, "certs"));
  await Deno.writeTextFile(nodePath.join(workspace, "certs", "test.key"), TRACKED_KEY);
  await Deno.writeTextFile(nodePath.join(workspace, ".env.example"), "TOKEN=\n");
  await git(workspace, "add", "certs/test.key", ".env.example");
  await Deno.writeTextFile(nodePath.join(workspace, ".env"), `TOKEN=${SECRET}\n`);
  const { code, stdout } = await runCli(["policy", "--config", project.configPath]);
  assert.equal(code, 0);
  const line = stdout.split("\n").find((text) => text.includes("readable through git")) ?? "";
  assert.match(line, /\.env\.example, certs\/test\.key$/);
  // Near miss: the untracked .env is not among them (it stays masked).
  assert.ok(!/(^|[ ,])\.env(,|$)/.test(line.split(": ").at(-1) ?? ""), line);
  const json = JSON.parse(
    (await runCli(["policy", "--json", "--config", project.configPath])).stdout,
  );
  assert.deepEqual(json.readable_through_git, [".env.example", "certs/test.key"]);
});
