/**
 * CI credentials in the checkout (issue 23 §5, attacks/CASES.md "CI credentials in the
 * checkout"): `actions/checkout` persists the job's token in `.git/config` as
 * `http.https://github.com/.extraheader = AUTHORIZATION: basic <base64 of x-access-token:ghs_…>`.
 * Read by `fs.read_file`, `git config --list` or `cat`, neither the token nor its base64 may reach
 * any file of the run folder (events, logs, artifacts, report) or the result the model sees. The
 * redaction must hold alone, where no scrub of `.git/config` applies: the same line in an ordinary
 * file (`notes.txt`). Near miss: ordinary base64 and "basic" prose come back unchanged.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { writeRunReport } from "../src/report/mod.ts";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import { unconfinedCommandApprover } from "../src/testing/unconfined_approver.ts";
import type { TempSandbox } from "../src/testing/temp_sandbox.ts";
import type { ToolResult } from "../src/result/tool_result.ts";
import { BWRAP_PROBE } from "../src/exec/_test_support.ts";
import { assertWorked, git } from "./_attack_helpers.ts";
import { assertRunFolderClean } from "./_run_folder_scan.ts";

const TOKEN = `ghs_${"Xb7mQ2".repeat(6)}`;
const BASIC = btoa(`x-access-token:${TOKEN}`);
/** Credentials of another user, not the job token's base64 prefix: only decoding finds them. */
const OTHER = btoa(`ci-bot:${"p4ssw0rd-".repeat(3)}`);
const HEADER = `AUTHORIZATION: basic ${BASIC}`;
/** What must appear nowhere: the token, its base64, and pieces of both. */
const FRAGMENTS = [TOKEN, TOKEN.slice(4, 24), BASIC, BASIC.slice(20, 44), OTHER, OTHER.slice(8)];
/** Near misses: base64 that decodes to no password, and the word in prose. */
const PLAIN_BASE64 =
  "integrity sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==";
const PROSE = "basic authentication is discouraged; see the basic guide";
const NOTES = `[http "https://github.com/"]\n\textraheader = ${HEADER}\n` +
  `\textraheader = Authorization: Basic ${OTHER}\n${PLAIN_BASE64}\n${PROSE}\n`;

async function prepareCheckout(sandbox: TempSandbox): Promise<void> {
  const workspace = sandbox.workspace;
  await git(workspace, "init", "-q", "-b", "main");
  await git(workspace, "config", "http.https://github.com/.extraheader", HEADER);
  await git(
    workspace,
    "config",
    "http.https://example.com/.extraheader",
    `Authorization: basic ${OTHER}`,
  );
  await Deno.writeTextFile(nodePath.join(workspace, "notes.txt"), NOTES);
}

function openCheckout(isolation: "bwrap" | "none"): Promise<TestRun> {
  return openTestRun({
    permissions: {
      rules: [{ tools: ["exec.run_command"], commands: ["git", "cat"], decision: "allow" }],
    },
    config: { commands: ["git", "cat"], sandbox: { command_isolation: isolation } },
    prepare: prepareCheckout,
    // Under isolation none every command asks: a person allows it.
    ...(isolation === "none" ? { approver: unconfinedCommandApprover } : {}),
  });
}

function shown(result: ToolResult | undefined): string {
  return JSON.stringify(result);
}

for (const isolation of ["bwrap", "none"] as const) {
  Deno.test({
    name:
      `the job token of a checkout's extraheader reaches no file of the run folder nor the model (${isolation})`,
    ignore: isolation === "bwrap" && !BWRAP_PROBE.usable,
    fn: async () => {
      await using run = await openCheckout(isolation);
      const calls: [string, Record<string, unknown>][] = [
        ["fs.read_file", { path: "notes.txt" }],
        ["fs.read_file", { path: ".git/config" }],
        ["exec.run_command", { argv: ["git", "config", "--list"] }],
        ["exec.run_command", { argv: ["cat", ".git/config"] }],
        ["exec.run_command", { argv: ["cat", "notes.txt"] }],
      ];
      const results: ToolResult[] = [];
      for (const [tool, args] of calls) {
        const result = await run.call(tool, args);
        // The argument analysis refuses `cat .git/config` today (a protected path named in the
        // argv); if a policy lets it run, its output must be redacted like the others.
        if (JSON.stringify(args).includes(".git/config") && tool === "exec.run_command") {
          if (!result.ok) assert.equal(result.error?.type, "permission_denied");
        } else {
          assertWorked(result);
        }
        for (const fragment of FRAGMENTS) {
          assert.ok(!shown(result).includes(fragment), `${tool} ${JSON.stringify(args)} shows it`);
        }
        results.push(result);
      }
      // Where the line is shown (not through the scrubbed view of `.git/config`), it is redacted:
      // the model still learns that a header is configured.
      for (const result of [results[0], results[4]].filter((item) => item !== undefined)) {
        assert.match(shown(result), /basic \[REDACTED:basic_credentials\]/i, result.tool);
      }
      // `.git/config` itself is presented without the header (the scrubbed view), and its
      // ordinary keys are still there (near miss).
      assert.ok(!/extraheader/i.test(results[1]?.output ?? ""), "the view drops extraheader");
      assert.match(results[1]?.output ?? "", /\[core\]/);
      // Near miss: ordinary base64 and the word in prose come back as they are.
      for (const result of [results[0], results[4]].filter((item) => item !== undefined)) {
        assert.ok(shown(result).includes(PLAIN_BASE64.slice(16)), "ordinary base64 kept");
        assert.ok(shown(result).includes(PROSE), "prose kept");
      }
      await run.session.close();
      const dir = run.session.folder.dir;
      await writeRunReport(dir);
      const files = await assertRunFolderClean(dir, FRAGMENTS);
      for (const expected of ["events.jsonl", "logs/tools.jsonl", "report.html"]) {
        assert.ok(files.includes(expected), `the run folder has ${expected}: ${files.join(", ")}`);
      }
    },
  });
}
