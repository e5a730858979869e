// Approvals never show a secret (issue 10): a command whose argv holds a value of
// audit.secret_env ends approval_required with a grant that names the argv by its sha256; the
// secret is absent from pending.jsonl, every file of the run folder, the CLI's stdout and stderr,
// --output json and the step summary; the printed grant, replayed, lets exactly that call through.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as nodePath from "node:path";
import type { ApprovalAnswer, ApprovalRequest, Approver } from "../src/approval/mod.ts";
import { describeRequest } from "../src/approval/terminal_approver.ts";
import { openTestRun } from "../src/testing/run_harness.ts";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";

const SECRET_ENV = "KAGENT_ARGV_SECRET";
const SECRET = "argv-secret-7f3a91c2d4e5";
const MARKER = "[REDACTED:secret_env]";
/** exec.run_command is dangerous: a rule naming it turns it on; isolation none makes it ask. */
const PERMISSIONS = { rules: [{ tools: ["exec.run_command"], decision: "allow" }] };
const CONFIG = {
  commands: ["echo"],
  sandbox: { command_isolation: "none" },
  audit: { secret_env: [SECRET_ENV] },
};

/** The call the model makes, the one the grant is for, and a wider one it must not cover. */
const GRANTED = ["echo", SECRET];
const WIDER = ["echo", SECRET, "again"];
const plan = [
  JSON.stringify({
    tool_calls: [{ id: "granted", name: "exec.run_command", arguments: { argv: GRANTED } }],
  }),
  // A turn of its own: a call after a refused one in the same turn is skipped.
  JSON.stringify({
    tool_calls: [{ id: "wider", name: "exec.run_command", arguments: { argv: WIDER } }],
  }),
  JSON.stringify({ content: "Finished." }),
];

function argvHash(argv: string[]): string {
  return createHash("sha256").update(JSON.stringify(argv.slice(1))).digest("hex");
}

/** Every file under `folder`, with its text. */
async function filesUnder(folder: string): Promise<[string, string][]> {
  const found: [string, string][] = [];
  for await (const entry of Deno.readDir(folder)) {
    const path = nodePath.join(folder, entry.name);
    if (entry.isDirectory) found.push(...await filesUnder(path));
    else if (entry.isFile) found.push([path, await Deno.readTextFile(path)]);
  }
  return found;
}

async function assertNoSecretIn(folder: string): Promise<void> {
  const files = await filesUnder(folder);
  assert.ok(
    files.some(([path]) => path.endsWith("pending.jsonl") || path.endsWith("events.jsonl")),
  );
  for (const [path, text] of files) {
    assert.ok(!text.includes(SECRET), `${nodePath.relative(folder, path)} holds the secret`);
  }
}

Deno.test("an approval for an argv that holds a secret never shows it, and its printed grant replays", async () => {
  await using project = await createProject({ plan, permissions: PERMISSIONS, config: CONFIG });
  const summary = nodePath.join(project.sandbox.root, "summary.md");
  const env = { [SECRET_ENV]: SECRET, GITHUB_STEP_SUMMARY: summary, NO_COLOR: "1" };
  // The task holds the secret too: the step summary shows the task.
  const args = [
    "--config",
    project.configPath,
    "--non-interactive",
    "--output",
    "json",
    "--task",
    `Print ${SECRET} twice`,
  ];
  const first = await runCli(args, { env });
  const report = JSON.parse(first.stdout.trim());
  assert.equal(report.end_reason, "completed", first.stderr);
  assert.equal(report.approvals_needed.length, 2);
  const [grant, wider] = report.approvals_needed;
  // Scopes name the program and the workspace by name (grants travel between checkouts).
  assert.deepEqual(grant.scope, [`command:echo sha256:${argvHash(GRANTED)} in <workspace>`]);
  assert.deepEqual(wider.scope, [`command:echo sha256:${argvHash(WIDER)} in <workspace>`]);
  // Nowhere: stdout (--output json), stderr (the --approve lines and the file lines), the step
  // summary, any file of the run folder.
  const runDir = await onlyRunDir(project);
  for (const [where, text] of [["stdout", first.stdout], ["stderr", first.stderr]]) {
    assert.ok(!(text as string).includes(SECRET), `${where} holds the secret`);
  }
  assert.ok(first.stderr.includes(`--approve '${JSON.stringify(grant)}'`), first.stderr);
  assert.ok(first.stderr.includes(`  ${JSON.stringify(grant)}\n`), "the approvals file line");
  const summaryText = await Deno.readTextFile(summary);
  assert.ok(!summaryText.includes(SECRET), "the step summary holds the secret");
  assert.match(summaryText, /--approve '\{"tool":"exec\.run_command","scope":\["command:/);
  // The task is Markdown-escaped in the summary (its characters cannot become markup).
  assert.match(summaryText, /\*\*Task:\*\* Print \\\[REDACTED\\:secret\\_env\\\] twice/);
  await assertNoSecretIn(runDir);
  const pending = await readJsonl(nodePath.join(runDir, "approvals/pending.jsonl"));
  assert.equal(pending.length, 2);
  const request = pending[0] as unknown as ApprovalRequest;
  assert.deepEqual(request.target_scope.commands[0]?.argv, ["echo", MARKER]);

  // Replayed: exactly the granted call runs (its output redacted); the wider one still asks.
  await Deno.remove(summary);
  const second = await runCli([...args, "--approve", JSON.stringify(grant)], { env });
  const replay = JSON.parse(second.stdout.trim());
  assert.equal(replay.end_reason, "completed", second.stderr);
  assert.deepEqual(replay.approvals_needed, [wider], "only the wider call still needs approval");
  assert.equal(replay.failed, 0, second.stderr);
  for (const text of [second.stdout, second.stderr, await Deno.readTextFile(summary)]) {
    assert.ok(!text.includes(SECRET), "the second run shows the secret");
  }
  const secondRun = [...Deno.readDirSync(project.runsDir)]
    .map((entry) => nodePath.join(project.runsDir, entry.name))
    .find((path) => path !== runDir) as string;
  await assertNoSecretIn(secondRun);
  const events = await readJsonl(nodePath.join(secondRun, "events.jsonl"));
  const completed = events.filter((event) => event.type === "tool.completed");
  assert.deepEqual(completed.map((event) => event.tool_call_id), ["granted"]);
  const granted = events.find((event) =>
    event.type === "approval.granted" && event.tool_call_id === "granted"
  );
  assert.equal(granted?.source, "grant");
});

Deno.test("an approval for an argv without a secret names the argv as it is (near miss)", async () => {
  // Near miss of the hashing: with no secret to hide, the scope names the argv as it is.
  await using project = await createProject({ plan, permissions: PERMISSIONS, config: CONFIG });
  const args = ["--config", project.configPath, "--non-interactive", "--output", "json"];
  const first = await runCli(args, { env: { NO_COLOR: "1" } });
  const report = JSON.parse(first.stdout.trim());
  assert.deepEqual(report.approvals_needed[0].scope, [
    `command:echo ${JSON.stringify(GRANTED.slice(1))} in <workspace>`,
  ]);
});

class RecordingApprover implements Approver {
  readonly name = "recording";
  readonly requests: ApprovalRequest[] = [];
  readonly #answers: ApprovalAnswer["decision"][];
  constructor(answers: ApprovalAnswer["decision"][]) {
    this.#answers = answers;
  }
  approve(request: ApprovalRequest): Promise<ApprovalAnswer> {
    this.requests.push(request);
    return Promise.resolve({ decision: this.#answers.shift() ?? "deny" });
  }
}

Deno.test("the approver gets a redacted request, and a session grant for a secret argv covers it again", async () => {
  const approver = new RecordingApprover(["allow_for_session"]);
  await using run = await openTestRun({
    permissions: PERMISSIONS,
    config: CONFIG,
    approver,
    env: (name) => name === SECRET_ENV ? SECRET : Deno.env.get(name),
  });
  const first = await run.call("exec.run_command", { argv: GRANTED });
  assert.equal(first.ok, true, first.output);
  assert.ok(!JSON.stringify(first).includes(SECRET), "the result holds the secret");
  assert.ok(first.output.includes(MARKER), first.output);
  const request = approver.requests[0];
  assert.ok(request !== undefined);
  assert.ok(!JSON.stringify(request).includes(SECRET), "the request holds the secret");
  assert.ok(!describeRequest(request).includes(SECRET), "the terminal text holds the secret");
  assert.match(describeRequest(request), /command: {2}\/usr\/bin\/echo "\[REDACTED:secret_env\]"/);
  // The session grant (hashed scope) covers the same call without asking again ...
  const again = await run.call("exec.run_command", { argv: GRANTED });
  assert.equal(again.ok, true, again.output);
  assert.equal(approver.requests.length, 1);
  // ... and not a wider one (denied: the approver has no more allows).
  const wider = await run.call("exec.run_command", { argv: WIDER });
  assert.equal(wider.error?.type, "approval_denied");
  assert.equal(approver.requests.length, 2);
  await run.session.close(); // flushes the logs; the sandbox goes when the test run is disposed
  await assertNoSecretIn(run.session.folder.dir);
});
