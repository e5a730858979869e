/**
 * `.git/config` without credentials (issue 23 §5): `actions/checkout` persists the job's token as
 * `http.https://github.com/.extraheader = AUTHORIZATION: basic <base64>`; others leave userinfo in
 * remote URLs or a `[credential]` section. Inside the sandbox (`cat .git/config`,
 * `git config --list`) and through `fs.read_file`, the config shows none of it, and the encoded
 * header is absent from every file of the run folder; near miss: `git log` and `git remote -v`
 * (without the userinfo) still work.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { Buffer } from "node:buffer";
import type { Approver } from "../src/approval/mod.ts";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import type { ToolResult } from "../src/result/tool_result.ts";
import { assertWorked, git } from "./_attack_helpers.ts";
import { BWRAP_PROBE } from "../src/exec/_test_support.ts";

const HAS_BWRAP = BWRAP_PROBE.usable;
// Shapes no redaction pattern knows: only the presentation can keep them out.
const HEADER_TOKEN = Buffer.from("x-access-token:kagent-job-token-3f9a0c").toString("base64");
const URL_SECRET = "kagent-url-password-8d2e";
const HELPER_SECRET = "kagent-helper-secret-51b7";

/** Approves every ask: `sh -c` asks, and these tests test the presentation, not the policy. */
const APPROVE_ALL: Approver = {
  name: "test-approve-all",
  approve: () => Promise.resolve({ decision: "allow_once" }),
};

function openCheckoutRun(): Promise<TestRun> {
  return openTestRun({
    approver: APPROVE_ALL,
    config: { commands: ["git", "cat", "sh"], sandbox: { command_isolation: "bwrap" } },
    permissions: {
      rules: [{ tools: ["exec.run_command"], commands: ["git", "cat", "sh"], decision: "allow" }],
    },
    prepare: async (sandbox) => {
      const workspace = sandbox.workspace;
      await git(workspace, "init", "-q", "-b", "main");
      await git(workspace, "config", "user.email", "agent@example.invalid");
      await git(workspace, "config", "user.name", "Agent");
      await Deno.writeTextFile(nodePath.join(workspace, "README.md"), "# Demo\n");
      await git(workspace, "add", ".");
      await git(workspace, "commit", "-q", "-m", "first commit");
      await git(
        workspace,
        "remote",
        "add",
        "origin",
        `https://agent:${URL_SECRET}@example.invalid/owner/repo`,
      );
      await git(
        workspace,
        "config",
        "http.https://example.invalid/.extraheader",
        `AUTHORIZATION: basic ${HEADER_TOKEN}`,
      );
      await git(workspace, "config", "credential.helper", `store --file ${HELPER_SECRET}`);
    },
  });
}

function stdoutOf(result: ToolResult): string {
  return ((result.data as { stdout?: { text?: string } } | null)?.stdout?.text) ?? "";
}

function assertNoCredential(text: string, where: string): void {
  for (const secret of [HEADER_TOKEN, URL_SECRET, HELPER_SECRET]) {
    assert.ok(!text.includes(secret), `${where} shows "${secret}"`);
  }
}

async function filesUnder(folder: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    const path = nodePath.join(folder, entry.name);
    if (entry.isDirectory) files.push(...await filesUnder(path));
    else if (entry.isFile) files.push(path);
  }
  return files;
}

Deno.test({
  name:
    "commands, fs.read_file and fs.grep_files see .git/config without the checkout's credentials",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openCheckoutRun();
    const raw = await Deno.readTextFile(nodePath.join(run.sandbox.workspace, ".git", "config"));
    assert.ok(raw.includes(HEADER_TOKEN), "the fixture has no token to hide");
    // The path is spelled at run time, so the policy's path findings do not see it.
    const shown = await run.call("exec.run_command", {
      argv: ["sh", "-c", 'g=.gi; g="$g"t; cat "$g/config"; git config --list'],
    });
    assertWorked(shown);
    assert.match(stdoutOf(shown), /\[remote "origin"\]/);
    assertNoCredential(JSON.stringify(shown), "a command");
    const read = await run.call("fs.read_file", { path: ".git/config" });
    assertWorked(read);
    assert.match(read.output, /url = https:\/\/example\.invalid\/owner\/repo/);
    assertNoCredential(JSON.stringify(read), "fs.read_file");
    const grep = await run.call("fs.grep_files", {
      pattern: "url|AUTHORIZATION|helper|extraheader",
      path: ".git/config",
    });
    assertNoCredential(JSON.stringify(grep), "fs.grep_files");
    assertWorked(grep);
    assert.match(grep.output, /url = https:\/\/example\.invalid\/owner\/repo/);
    // Near miss: git itself still works on the repository and its remote.
    const log = await run.call("exec.run_command", { argv: ["git", "log", "--oneline"] });
    assertWorked(log);
    assert.match(stdoutOf(log), /first commit/);
    const remotes = await run.call("exec.run_command", { argv: ["git", "remote", "-v"] });
    assertWorked(remotes);
    assert.match(stdoutOf(remotes), /origin\s+https:\/\/example\.invalid\/owner\/repo \(fetch\)/);
    // The host's file is untouched: the view is a copy.
    assert.equal(
      await Deno.readTextFile(nodePath.join(run.sandbox.workspace, ".git", "config")),
      raw,
    );
    await run.session.close();
    for (const file of await filesUnder(run.session.folder.dir)) {
      assertNoCredential(await Deno.readTextFile(file).catch(() => ""), file);
    }
  },
});
