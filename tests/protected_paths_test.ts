/**
 * Paths a host runs on its own, beyond `.git` (docs/PROTECTED_PATHS.md): the hooks folder that a
 * repository's own config names (`core.hooksPath = .husky`) runs on the user's next commit, so
 * commands under bubblewrap cannot change it when it exists, and one they create is quarantined.
 * Near miss: the rest of the work tree stays writable.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import type { Approver } from "../src/approval/mod.ts";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import { assertWorked, exists, git } from "./_attack_helpers.ts";
import { BWRAP_PROBE } from "../src/exec/_test_support.ts";

const HAS_BWRAP = BWRAP_PROBE.usable;

/** Approves every ask: `sh -c` asks, and these tests test the mount, not the policy. */
const APPROVE_ALL: Approver = {
  name: "test-approve-all",
  approve: () => Promise.resolve({ decision: "allow_once" }),
};

function openHooksRun(hooksPath: string, createHooks: boolean): Promise<TestRun> {
  return openTestRun({
    approver: APPROVE_ALL,
    config: { commands: ["sh"], sandbox: { command_isolation: "bwrap" } },
    permissions: { rules: [{ tools: ["exec.run_command"], commands: ["sh"], decision: "allow" }] },
    prepare: async (sandbox) => {
      await git(sandbox.workspace, "init", "-q", "-b", "main");
      await git(sandbox.workspace, "config", "core.hooksPath", hooksPath);
      if (createHooks) {
        await Deno.mkdir(nodePath.join(sandbox.workspace, hooksPath), { recursive: true });
        await Deno.writeTextFile(
          nodePath.join(sandbox.workspace, hooksPath, "pre-commit"),
          "#!/bin/sh\nexit 0\n",
        );
      }
    },
  });
}

Deno.test({
  name: "the hooks folder a repository's core.hooksPath names stays read-only for commands",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openHooksRun(".husky", true);
    const hook = nodePath.join(run.sandbox.workspace, ".husky", "pre-commit");
    const before = await Deno.readTextFile(hook);
    const result = await run.call("exec.run_command", {
      argv: ["sh", "-c", "h=.hus; h=\"$h\"ky; echo 'touch /tmp/owned' >> $h/pre-commit"],
    });
    assert.equal(result.ok, false);
    assert.equal(await Deno.readTextFile(hook), before);
    // Near miss: the rest of the work tree is writable.
    assertWorked(await run.call("exec.run_command", { argv: ["sh", "-c", "echo ok > note.txt"] }));
    assert.equal(await exists(nodePath.join(run.sandbox.workspace, "note.txt")), true);
  },
});

Deno.test({
  name: "a hooks folder that core.hooksPath names and a command creates is quarantined",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openHooksRun(".githooks", false);
    const result = await run.call("exec.run_command", {
      argv: [
        "sh",
        "-c",
        "h=.githoo; h=\"$h\"ks; mkdir $h && echo 'touch /tmp/owned' > $h/pre-commit",
      ],
    });
    assert.equal(result.error?.type, "sandbox_violation", result.output);
    assert.equal(await exists(nodePath.join(run.sandbox.workspace, ".githooks")), false);
    // Near miss: a folder of another name is the workspace's content.
    assertWorked(
      await run.call("exec.run_command", {
        argv: ["sh", "-c", "mkdir hooks-notes && echo x > hooks-notes/a"],
      }),
    );
    assert.equal(await exists(nodePath.join(run.sandbox.workspace, "hooks-notes", "a")), true);
  },
});

Deno.test({
  name: "a .git that appears after the last command is quarantined when the run closes",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openHooksRun(".husky", true);
    assertWorked(await run.call("exec.run_command", { argv: ["sh", "-c", "true"] }));
    // A late writer (a process that outlived its call, say): no command checks after it.
    const late = nodePath.join(run.sandbox.workspace, "late", "repo", ".git");
    await Deno.mkdir(late, { recursive: true });
    await Deno.mkdir(nodePath.join(run.sandbox.workspace, "late", "plain"), { recursive: true });
    await run.session.close();
    assert.equal(await exists(late), false);
    const quarantine = nodePath.join(run.session.folder.dir, "quarantine");
    assert.equal([...Deno.readDirSync(quarantine)].length, 1);
    const errors = await run.readLog("errors");
    assert.ok(
      errors.some((record) => String(record.message).includes("late/repo/.git")),
      JSON.stringify(errors),
    );
    // Near miss: the plain folder beside it and the repository of the start stay.
    assert.equal(await exists(nodePath.join(run.sandbox.workspace, "late", "plain")), true);
    assert.equal(await exists(nodePath.join(run.sandbox.workspace, ".git")), true);
  },
});

Deno.test("under isolation none an approved command's nested .git is quarantined all the same", async () => {
  await using run = await openTestRun({
    approver: APPROVE_ALL,
    config: { commands: ["sh", "git"], sandbox: { command_isolation: "none" } },
    permissions: {
      rules: [{ tools: ["exec.run_command"], commands: ["sh", "git"], decision: "allow" }],
    },
  });
  const result = await run.call("exec.run_command", {
    argv: ["sh", "-c", "mkdir -p pkg/lib && git init -q pkg/lib"],
  });
  assert.equal(result.error?.type, "sandbox_violation", result.output);
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "pkg", "lib", ".git")), false);
  // Near miss: the folders it made stay, and a command without a .git works.
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "pkg", "lib")), true);
  assertWorked(
    await run.call("exec.run_command", { argv: ["sh", "-c", "echo ok > pkg/lib/file"] }),
  );
});
