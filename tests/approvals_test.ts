// Approvals (issue 4): the CI flow with replayable grants, fail-closed approvers, session grants,
// and a real terminal driven through a pseudo-terminal (`script`).
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import type { ApprovalAnswer, ApprovalRequest, Approver } from "../src/approval/mod.ts";
import { openTestRun } from "../src/testing/run_harness.ts";
import { createProject, readJsonl, runCli } from "./_cli_helpers.ts";

const repository = nodePath.resolve(nodePath.dirname(new URL(import.meta.url).pathname), "..");

Deno.test("CI flow: an ask prints a grant; re-running with it allows exactly that call and nothing wider", async () => {
  await using project = await createProject();
  const write = [
    "call",
    "fs.write_file",
    '{"path":"notes.txt","content":"hi"}',
    "--config",
    project.configPath,
    "--non-interactive",
  ];
  const first = await runCli(write);
  assert.equal(first.code, 3, "exit 3: the call needs an approval");
  const result = JSON.parse(first.stdout);
  assert.equal(result.error.type, "approval_required");
  const notes = nodePath.join(project.sandbox.workspace, "notes.txt");
  await assert.rejects(Deno.stat(notes), Deno.errors.NotFound);
  const argument = result.error.details.approve_argument as string;
  assert.ok(first.stderr.includes(argument), "the grant is printed on stderr");
  assert.ok(first.stderr.includes(result.error.details.approvals_file_line));
  const grant = JSON.stringify(result.error.details.grant);
  const runs = [...Deno.readDirSync(project.runsDir)].map((entry) => entry.name);
  const pending = await readJsonl(
    nodePath.join(project.runsDir, runs[0] as string, "approvals/pending.jsonl"),
  );
  assert.equal(pending.length, 1);
  assert.equal(pending[0]?.tool, "fs.write_file");

  const second = await runCli([...write, "--approve", grant]);
  assert.equal(second.code, 0, second.stdout);
  assert.equal(await Deno.readTextFile(notes), "hi");

  // Wider: another path is not covered.
  const wider = await runCli([
    "call",
    "fs.write_file",
    '{"path":"other.txt","content":"x"}',
    "--config",
    project.configPath,
    "--non-interactive",
    "--approve",
    grant,
  ]);
  assert.equal(JSON.parse(wider.stdout).error.type, "approval_required");
  await assert.rejects(
    Deno.stat(nodePath.join(project.sandbox.workspace, "other.txt")),
    Deno.errors.NotFound,
  );

  // The same grant from an approvals file.
  const file = nodePath.join(project.sandbox.root, "approvals.jsonl");
  await Deno.writeTextFile(file, `// reviewed\n${result.error.details.approvals_file_line}\n`);
  await Deno.remove(notes);
  const fromFile = await runCli([...write, "--approvals", file]);
  assert.equal(fromFile.code, 0, fromFile.stderr);

  // Another policy: the config changed, the grant is refused before anything runs.
  await Deno.writeTextFile(
    project.configPath,
    JSON.stringify({
      workspace: "../workspace",
      runs_dir: "../runs",
      permissions: { rules: [{ tools: ["fs.read_file"], decision: "allow" }] },
    }),
  );
  await Deno.remove(notes);
  const stale = await runCli([...write, "--approve", grant]);
  assert.equal(stale.code, 2);
  assert.match(
    stale.stderr,
    /it was made for policy "[0-9a-f]{16}", and this run's policy is "[0-9a-f]{16}"/,
  );
  await assert.rejects(Deno.stat(notes), Deno.errors.NotFound);

  const broken = await runCli([...write, "--approve", '{"tool":"fs.write_file"}']);
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /Cannot use grant from --approve #1/);
});

class ScriptedApprover implements Approver {
  readonly name = "scripted";
  readonly requests: ApprovalRequest[] = [];
  constructor(private readonly answer: (request: ApprovalRequest) => Promise<ApprovalAnswer>) {}
  approve(request: ApprovalRequest): Promise<ApprovalAnswer> {
    this.requests.push(request);
    return this.answer(request);
  }
}

Deno.test("approvers fail closed: a throw, a timeout or a garbage answer denies with approval.failed", async () => {
  for (
    const [label, answer] of [
      ["throw", () => Promise.reject(new Error("approver crashed"))],
      ["timeout", () => new Promise<ApprovalAnswer>(() => {})],
      ["garbage", () => Promise.resolve({ decision: "sure" } as unknown as ApprovalAnswer)],
    ] as const
  ) {
    const approver = new ScriptedApprover(answer);
    await using run = await openTestRun({ approver, approvalTimeoutMs: 300 });
    const result = await run.call("fs.write_file", { path: "x.txt", content: "x" });
    assert.equal(result.error?.type, "approval_denied", `${label}: ${result.output}`);
    await assert.rejects(
      Deno.stat(nodePath.join(run.sandbox.workspace, "x.txt")),
      Deno.errors.NotFound,
    );
    const events = await run.readLog("events");
    assert.ok(events.some((event) => event.type === "approval.failed"), label);
  }
});

Deno.test("allow_for_session grants this exact target for the run; deny affects only its call", async () => {
  const answers: ApprovalAnswer["decision"][] = ["deny", "allow_for_session"];
  const approver = new ScriptedApprover(() =>
    Promise.resolve({ decision: answers.shift() ?? "deny" })
  );
  await using run = await openTestRun({ approver });
  const denied = await run.call("fs.write_file", { path: "a.txt", content: "1" });
  assert.equal(denied.error?.type, "approval_denied");
  const first = await run.call("fs.write_file", { path: "a.txt", content: "2" });
  assert.equal(first.ok, true, first.output);
  assert.equal(approver.requests.length, 2);
  // The session grant covers this tool on this exact target: no new request.
  const again = await run.call("fs.write_file", { path: "a.txt", content: "3", overwrite: true });
  assert.equal(again.ok, true, again.output);
  assert.equal(await Deno.readTextFile(nodePath.join(run.sandbox.workspace, "a.txt")), "3");
  assert.equal(approver.requests.length, 2, "no new request for a granted target");
  // Another target asks again (and is denied: the approver has no more allows).
  const other = await run.call("fs.write_file", { path: "b.txt", content: "x" });
  assert.equal(other.error?.type, "approval_denied", "another target asks again");
  assert.equal(approver.requests.length, 3);
  await assert.rejects(
    Deno.stat(nodePath.join(run.sandbox.workspace, "b.txt")),
    Deno.errors.NotFound,
  );
  const grants = await Deno.readTextFile(nodePath.join(run.session.folder.dir, "grants.jsonl"));
  assert.equal(grants.trim().split("\n").length, 1);
  assert.match(grants, /"tool":"fs.write_file"/);
  // The request carries what a person needs.
  const request = approver.requests[0] as ApprovalRequest;
  assert.equal(request.tool, "fs.write_file");
  assert.equal(request.permission, "write");
  assert.equal(request.target_scope.paths[0]?.access, "write");
  assert.equal(request.agent.run_id, run.session.folder.id);
  assert.equal(request.policy_hash, run.session.policy.hash);
});

Deno.test("a policy deny never reaches the approver", async () => {
  const approver = new ScriptedApprover(() => Promise.resolve({ decision: "allow_once" }));
  await using run = await openTestRun({ approver });
  const result = await run.call("fs.write_file", { path: "../outside/x", content: "x" });
  assert.equal(result.error?.type, "path_outside_sandbox");
  assert.equal(approver.requests.length, 0);
});

const hasScript = (() => {
  try {
    return new Deno.Command("script", { args: ["--version"] }).outputSync().success;
  } catch {
    return false;
  }
})();

for (const [answer, expected] of [["y", true], ["n", false]] as const) {
  Deno.test({
    name: `a person at a terminal answers "${answer}" through a pseudo-terminal`,
    ignore: !hasScript,
    async fn() {
      await using project = await createProject();
      const command = [
        Deno.execPath(),
        "run",
        "--unstable-worker-options",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-run",
        nodePath.join(repository, "main.ts"),
        "call",
        "fs.write_file",
        `'{"path":"tty.txt","content":"t"}'`,
        "--config",
        project.configPath,
      ].join(" ");
      const child = new Deno.Command("script", {
        args: ["-qec", command, "/dev/null"],
        env: { CI: "", TERM: "dumb" },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      // Answer once the question is on screen.
      const decoder = new TextDecoder();
      let screen = "";
      const reader = child.stdout.getReader();
      const deadline = Date.now() + 20_000;
      while (!screen.includes("[n] deny") && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        screen += decoder.decode(value);
      }
      assert.match(screen, /kagent-run asks: allow fs\.write_file/);
      await writer.write(new TextEncoder().encode(`${answer}\n`));
      await writer.close();
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        screen += decoder.decode(value);
      }
      await child.status;
      await child.stderr.cancel();
      const written = await Deno.readTextFile(nodePath.join(project.sandbox.workspace, "tty.txt"))
        .catch(() => null);
      assert.equal(written !== null, expected, screen);
      if (!expected) assert.match(screen, /approval_denied/);
    },
  });
}

Deno.test("order: a hook deny stops the call before the policy and the approver; a hook ask reaches the approver", async () => {
  const approver = new ScriptedApprover(() => Promise.resolve({ decision: "allow_once" }));
  await using run = await openTestRun({
    approver,
    hooks: {
      preToolUse: [{
        name: "guard-notes",
        tools: ["fs.write_file"],
        decide: (input) =>
          (input.arguments as { path?: string }).path === "blocked.txt"
            ? { decision: "deny", reason: "no blocked files" }
            : { decision: "ask", reason: "a person should look" },
      }],
    },
  });
  const denied = await run.call("fs.write_file", { path: "blocked.txt", content: "x" });
  assert.equal(denied.error?.type, "hook_denied");
  assert.equal(approver.requests.length, 0, "the approver was not consulted");
  await assert.rejects(
    Deno.stat(nodePath.join(run.sandbox.workspace, "blocked.txt")),
    Deno.errors.NotFound,
  );
  const asked = await run.call("fs.write_file", { path: "fine.txt", content: "x" });
  assert.equal(asked.ok, true, asked.output);
  assert.equal(approver.requests.length, 1);
  assert.equal(approver.requests[0]?.hook_result?.hook, "guard-notes");
  assert.equal(approver.requests[0]?.hook_result?.decision, "ask");
  assert.match(approver.requests[0]?.hook_result?.reason ?? "", /a person should look/);
});
