/**
 * Secrets through git's object store (issue 23 §5, attacks/CASES.md): a committed `.env` is
 * readable through git (`git show HEAD:.env`, `git cat-file -p`, `git log -p`, `git grep … HEAD`)
 * without an ask, although its working-tree copy is masked. The decision of the issue: a tracked
 * sensitive file stays readable through git, and its VALUES become redaction secrets of the run,
 * so that none reaches the result the model sees or any file of the run folder. Near miss: the
 * other files' content and the file's non-secret lines come back unchanged.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import { unconfinedCommandApprover } from "../src/testing/unconfined_approver.ts";
import type { TempSandbox } from "../src/testing/temp_sandbox.ts";
import type { ToolResult } from "../src/result/tool_result.ts";
import { BWRAP_PROBE } from "../src/exec/_test_support.ts";
import { MAX_SENSITIVE_FILES } from "../src/session/sensitive_file_secrets.ts";
import { assertWorked, git } from "./_attack_helpers.ts";
import { assertRunFolderClean } from "./_run_folder_scan.ts";
import { createProject, onlyRunDir, runCli } from "./_cli_helpers.ts";

/** Values of the committed files: a named secret, a generated one, a raw key file's line. */
const VALUES = ["s3ssion-secret-0c5e1", "Zq81kV03mXe7Lp44", "7f3a9c1e5b2d8f4a6c0e9b1d3f5a7c9e"];
const ENV_FILE = `# committed by mistake\nSESSION_SECRET=${VALUES[0]}\nBUILD_ID=${VALUES[1]}\n` +
  "NODE_ENV=development\n";
const README = "# Demo\n\nSESSION handling lives in src/app.js; NODE_ENV=development by default.\n";

async function prepareRepository(sandbox: TempSandbox): Promise<void> {
  const workspace = sandbox.workspace;
  await git(workspace, "init", "-q", "-b", "main");
  await git(workspace, "config", "user.email", "agent@example.invalid");
  await git(workspace, "config", "user.name", "Agent");
  await Deno.writeTextFile(nodePath.join(workspace, ".env"), ENV_FILE);
  await Deno.mkdir(nodePath.join(workspace, "config"));
  await Deno.writeTextFile(nodePath.join(workspace, "config", "master.key"), `${VALUES[2]}\n`);
  await Deno.writeTextFile(nodePath.join(workspace, "README.md"), README);
  await git(workspace, "add", "-f", ".env", "config/master.key", "README.md");
  await git(workspace, "commit", "-q", "-m", "first");
}

function openRepository(isolation: "bwrap" | "none"): Promise<TestRun> {
  return openTestRun({
    permissions: {
      rules: [{ tools: ["exec.run_command"], commands: ["git"], decision: "allow" }],
    },
    config: { commands: ["git"], sandbox: { command_isolation: isolation } },
    prepare: prepareRepository,
    ...(isolation === "none" ? { approver: unconfinedCommandApprover } : {}),
  });
}

function stdoutOf(result: ToolResult): string {
  return ((result.data as { stdout?: { text?: string } } | null)?.stdout?.text) ?? "";
}

for (const isolation of ["bwrap", "none"] as const) {
  Deno.test({
    name:
      `values of a committed .env and key read through git reach no file of the run folder nor the model (${isolation})`,
    ignore: isolation === "bwrap" && !BWRAP_PROBE.usable,
    fn: async () => {
      await using run = await openRepository(isolation);
      const reads = [
        ["git", "show", "HEAD:.env"],
        ["git", "cat-file", "-p", "HEAD:.env"],
        ["git", "log", "-p"],
        ["git", "grep", "-e", "SECRET", "-e", "BUILD", "HEAD"],
        // The key file by content (naming it in the argv asks: argv:sensitive-path).
        ["git", "grep", "-e", "7f3a", "HEAD", "--", "config"],
      ];
      for (const argv of reads) {
        const result = await run.call("exec.run_command", { argv });
        assertWorked(result);
        const shown = JSON.stringify(result);
        for (const value of VALUES) {
          assert.ok(!shown.includes(value), `${argv.join(" ")} shows "${value}"`);
        }
        assert.match(stdoutOf(result), /\[REDACTED:secret_env\]/, argv.join(" "));
      }
      // Near miss: the file's other lines and other files come back unchanged.
      const log = await run.call("exec.run_command", { argv: ["git", "log", "-p"] });
      assert.ok(stdoutOf(log).includes("+NODE_ENV=development"), stdoutOf(log));
      assert.ok(stdoutOf(log).includes("SESSION_SECRET="), "the key stays, its value goes");
      const readme = await run.call("exec.run_command", {
        argv: ["git", "show", "HEAD:README.md"],
      });
      assertWorked(readme);
      assert.equal(stdoutOf(readme), README);
      const errors = await run.readLog("errors");
      assert.ok(!errors.some((line) => /Cannot redact the values/.test(String(line.message))));
      await run.session.close();
      const files = await assertRunFolderClean(run.session.folder.dir, VALUES);
      assert.ok(files.includes("logs/tools.jsonl") && files.includes("events.jsonl"));
    },
  });
}

Deno.test("kagent-run run prints no value of a workspace .env, in the answer or the step summary", async () => {
  const value = "answer-leak-7c1d90e3b2";
  await using project = await createProject({
    plan: [JSON.stringify({ content: `The token is ${value}; NODE_ENV=development` })],
  });
  await Deno.writeTextFile(
    nodePath.join(project.sandbox.workspace, ".env"),
    `API_TOKEN=${value}\nNODE_ENV=development\n`,
  );
  const summary = nodePath.join(project.sandbox.root, "step_summary.md");
  const { code, stdout, stderr } = await runCli(
    ["run", "--config", project.configPath, "--non-interactive"],
    { env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary } },
  );
  assert.equal(code, 0, stderr);
  for (const [where, text] of [["stdout", stdout], ["stderr", stderr]] as const) {
    assert.ok(!text.includes(value), `${where} shows the value`);
  }
  assert.ok(!(await Deno.readTextFile(summary)).includes(value), "the step summary shows it");
  // Near miss: the rest of the answer is printed as the model wrote it.
  assert.match(stdout, /The token is \[REDACTED:secret_env\]; NODE_ENV=development/);
  await assertRunFolderClean(await onlyRunDir(project), [value]);
});

Deno.test("a run whose roots hold more sensitive files than the scan reads says so in logs/errors.jsonl", async () => {
  await using run = await openTestRun({
    prepare: async (sandbox) => {
      await Deno.mkdir(nodePath.join(sandbox.workspace, "keys"));
      for (let index = 0; index <= MAX_SENSITIVE_FILES; index++) {
        await Deno.writeTextFile(
          nodePath.join(sandbox.workspace, "keys", `${index}.key`),
          `k3y${index}Zq81kV03mXe7\n`,
        );
      }
    },
  });
  const errors = await run.readLog("errors");
  const stopped = errors.find((line) =>
    /Cannot redact the values of every/.test(String(line.message))
  );
  assert.match(
    String(stopped?.message),
    /: the roots hold more than 256 sensitive files; the values past the bound are not redacted$/,
  );
  // Near miss: a run under the bound records nothing of the kind (the first tests check it).
});
