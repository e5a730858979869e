// The run folder and its logs (ARCHITECTURE §4): the demo's survey plan, with a read of .env that
// asks for an approval nobody can give (tests/testdata/plans/survey_with_env_read.jsonl), runs as a
// subprocess with exactly the flags of the `kagent-run` task (the ones `compile` bakes in), then
// every line of every log is parsed.
import assert from "node:assert/strict";
import { verifyRun } from "../src/verify/mod.ts";
import * as nodePath from "node:path";
import { createHash } from "node:crypto";
import { AUDIT_EVENT_TYPES } from "../src/audit/audit_event.ts";
import { createProject, onlyRunDir, readJsonl, repository, taskFlags } from "./_cli_helpers.ts";

Deno.test("the compile task bakes in exactly the flags of the kagent-run task", () => {
  assert.deepEqual(taskFlags("compile"), taskFlags("kagent-run"));
  assert.ok(taskFlags("kagent-run").includes("--unstable-worker-options"));
  // A permission the process lacks fails; it never turns into a prompt on a terminal.
  assert.ok(taskFlags("kagent-run").includes("--no-prompt"));
  // --allow-run and --allow-net only so that the tool Worker can be given the allowlisted programs
  // and the network Worker the config's hosts (a Worker's permissions must be a subset of its
  // parent's); the main thread revokes its own net permission once that Worker runs.
  assert.ok(
    !taskFlags("kagent-run").some((flag) =>
      flag === "--allow-all" || flag === "-A" || flag.startsWith("--allow-ffi") ||
      flag.startsWith("--allow-sys")
    ),
  );
});

Deno.test("a demo run leaves a complete run folder whose every log line parses", async () => {
  const plan = await Deno.readTextFile(
    nodePath.join(repository, "tests/testdata/plans/survey_with_env_read.jsonl"),
  );
  await using project = await createProject({
    plan: plan.split("\n"),
    config: {
      audit: { secret_env: ["KAGENT_TEST_SECRET"] },
      commands: ["git"],
      skills: { dirs: [nodePath.join(repository, "skills")] },
    },
    permissions: JSON.parse(await Deno.readTextFile(nodePath.join(repository, "permissions.json"))),
  });
  await Deno.writeTextFile(
    nodePath.join(project.sandbox.workspace, "notes.txt"),
    "TODO mention canary-secret-value-123 here\n",
  );
  const command = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...taskFlags("kagent-run"),
      nodePath.join(repository, "main.ts"),
      "--config",
      project.configPath,
    ],
    env: { KAGENT_TEST_SECRET: "canary-secret-value-123", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  });
  const output = await command.output();
  const stderr = new TextDecoder().decode(output.stderr);
  // Exit 3: the plan's read of .env waits for an approval nobody can give here.
  assert.equal(output.code, 3, stderr);
  // The temporary workspace is no git repository: "git log" fails (exit 128), and is recorded.
  assert.match(stderr, /8 tool calls, 2 denied, 1 failed/);

  const runDir = await onlyRunDir(project);
  // verify counts the same calls as the summary line (issue 25 §11: it once said 7).
  assert.equal((await verifyRun(runDir)).counts.calls, 8);
  const listing: string[] = [];
  for await (const entry of Deno.readDir(runDir)) listing.push(entry.name);
  // home/ and tmp/ are the HOME and TMPDIR of commands (created when a command runs);
  // approvals/ holds pending.jsonl: the .env read asked and nobody could answer; watch/ the
  // protected-path watch's sentinels, its start-time list of repositories and scrubbed configs.
  assert.deepEqual(listing.sort(), [
    "approvals",
    "archive",
    "artifacts",
    "config.json",
    "deliverables",
    "events.jsonl",
    "home",
    "logs",
    "manifest.json",
    "policy.json",
    "run.json",
    "system_prompt.md",
    "tmp",
    "watch",
    "workspace",
  ]);

  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  assert.equal(events[0]?.type, "run.started");
  assert.equal(events.at(-1)?.type, "run.completed");
  assert.equal(events.at(-1)?.end_reason, "completed");
  const runId = nodePath.basename(runDir);
  const types = new Set<string>(AUDIT_EVENT_TYPES);
  for (const event of events) {
    assert.ok(types.has(String(event.type)), `${event.type} is in docs/EVENTS.md`);
    assert.equal(event.run_id, runId);
    assert.match(String(event.ts), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
  const started = events.filter((event) => event.type === "tool.started").map((event) =>
    event.tool_call_id
  );
  const finished = events.filter((event) =>
    ["tool.completed", "tool.failed", "tool.denied"].includes(String(event.type))
  );
  assert.deepEqual(started, [
    "tree",
    "todos",
    "readme",
    "sizes",
    "history",
    "secret",
    "escape",
    "report",
  ]);
  // Consecutive reads run in parallel and may finish in any order: compare as sorted lists.
  assert.deepEqual(
    finished.map((event) => event.tool_call_id).sort(),
    [...started].sort(),
    "every call ends with exactly one event",
  );
  const denied = finished.filter((event) => event.type === "tool.denied");
  assert.deepEqual(denied.map((event) => [event.tool_call_id, event.error_type]), [
    ["secret", "approval_required"],
    ["escape", "path_outside_sandbox"],
  ]);
  for (const event of finished) assert.equal(typeof event.duration_ms, "number");

  const tools = await readJsonl(nodePath.join(runDir, "logs/tools.jsonl"));
  assert.equal(tools.length, 8);
  for (const record of tools) {
    for (
      const key of [
        "tool",
        "tool_call_id",
        "risk",
        "ts_start",
        "ts_end",
        "duration_ms",
        "params",
        "result",
        "policy",
        "hashes",
        "arguments",
        "approval",
      ]
    ) {
      assert.ok(key in record, `tools.jsonl record lacks "${key}"`);
    }
  }
  const escape = tools.find((record) => record.tool_call_id === "escape") as Record<
    string,
    Record<string, unknown>
  >;
  assert.deepEqual([escape.policy?.decision, escape.policy?.layer, escape.policy?.rule], [
    "deny",
    "sandbox",
    "sandbox:path-guard",
  ]);
  const secret = tools.find((record) => record.tool_call_id === "secret") as Record<
    string,
    Record<string, unknown>
  >;
  assert.deepEqual([secret.policy?.decision, secret.policy?.rule], [
    "ask",
    "runtime:sensitive-path",
  ]);
  // Nobody approved the .env read: it asked, and nobody could answer.
  assert.equal(secret.approval, null);
  const report = tools.find((record) => record.tool_call_id === "report") as Record<
    string,
    Record<string, unknown>
  >;
  assert.match(
    String(report.params?.content),
    /chars, sha256 [0-9a-f]{16}/,
    "long strings are summarised in params",
  );

  const errors = await readJsonl(nodePath.join(runDir, "logs/errors.jsonl"));
  assert.deepEqual(errors.map((error) => error.tool_call_id), ["history", "secret", "escape"]);

  const policy = JSON.parse(await Deno.readTextFile(nodePath.join(runDir, "policy.json")));
  assert.equal(policy.hash, events[0]?.policy_hash);

  const deliverable = await Deno.readTextFile(nodePath.join(runDir, "deliverables/report.md"));
  assert.match(deliverable, /# Workspace survey/);
  assert.match(deliverable, /src\/main\.ts:1:\/\/ TODO: write the program/);
  await assert.rejects(
    Deno.stat(nodePath.join(project.sandbox.root, "kagent-run-demo-escape.txt")),
    Deno.errors.NotFound,
  );

  // The secret named in audit.secret_env never reaches a log, a result or a deliverable.
  for (
    const file of [
      "events.jsonl",
      "logs/tools.jsonl",
      "logs/errors.jsonl",
      "deliverables/report.md",
    ]
  ) {
    assert.doesNotMatch(
      await Deno.readTextFile(nodePath.join(runDir, file)),
      /canary-secret-value-123/,
      file,
    );
  }
  assert.match(deliverable, /\[REDACTED:secret_env\]/);
});

Deno.test("outputs above the inline cap are kept whole as a sha256-named artifact", async () => {
  await using project = await createProject({ config: { limits: { max_output_bytes: 2048 } } });
  await Deno.writeTextFile(
    nodePath.join(project.sandbox.workspace, "big.txt"),
    Array.from({ length: 500 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n"),
  );
  const command = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...taskFlags("kagent-run"),
      nodePath.join(repository, "main.ts"),
      "call",
      "fs.read_file",
      '{"path":"big.txt","max_lines":500}',
      "--config",
      project.configPath,
    ],
    stdout: "piped",
    stderr: "piped",
  });
  const output = await command.output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const result = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.equal(result.artifacts.length, 1);
  const artifact = result.artifacts[0];
  assert.match(result.output, new RegExp(`full output in ${artifact.ref}`));
  const runDir = await onlyRunDir(project);
  const bytes = await Deno.readFile(nodePath.join(runDir, artifact.ref));
  assert.equal(bytes.byteLength, artifact.bytes);
  assert.equal(createHash("sha256").update(bytes).digest("hex"), artifact.sha256);
  assert.equal(nodePath.basename(artifact.ref).startsWith(artifact.sha256), true);
  assert.match(new TextDecoder().decode(bytes), /line 499/);
});
