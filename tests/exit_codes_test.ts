// Exit codes a pipeline can branch on (issue 11 §4; SIGINT 130 and SIGTERM 143 are in scheduling_test.ts): one table (EXIT in src/cli/_common.ts), in
// --help, each end of a run with its own code.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { EXIT, EXIT_MEANINGS } from "../src/cli/_common.ts";
import { createProject, runCli } from "./_cli_helpers.ts";

const read = JSON.stringify({
  tool_calls: [{ id: "r", name: "fs.read_file", arguments: { path: "README.md" } }],
});
const write = JSON.stringify({
  tool_calls: [{ id: "w", name: "fs.write_file", arguments: { path: "notes.md", content: "x" } }],
});
const done = JSON.stringify({ content: "done" });

Deno.test("kagent-run exits 3 when a call ended approval_required and prints its grant", async () => {
  await using project = await createProject({ plan: [read, write, done] });
  const blocked = await runCli(["--config", project.configPath, "--non-interactive"]);
  assert.equal(blocked.code, EXIT.approvalRequired, blocked.stderr);
  assert.equal(EXIT.approvalRequired, 3);
  assert.match(blocked.stderr, /run completed in/);
  assert.match(blocked.stderr, /--approve '\{"tool":"fs\.write_file"/);
  await assert.rejects(
    Deno.stat(nodePath.join(project.sandbox.workspace, "notes.md")),
    Deno.errors.NotFound,
  );
});

Deno.test("kagent-run exits 0 when the run completed with every call allowed (near miss)", async () => {
  await using project = await createProject({ plan: [read, done] });
  const clean = await runCli(["--config", project.configPath, "--non-interactive"]);
  assert.equal(clean.code, EXIT.ok, clean.stderr);
  assert.equal(clean.stdout, "done\n");
});

Deno.test("kagent-run exits 4 when the model fails and 5 at the turn limit", async () => {
  await using failing = await createProject({ plan: [read] });
  const modelFailed = await runCli(["--config", failing.configPath]);
  assert.equal(modelFailed.code, EXIT.modelFailed, modelFailed.stderr);
  assert.equal(EXIT.modelFailed, 4);
  assert.match(modelFailed.stderr, /run model_error/);

  await using looping = await createProject({
    plan: [read, read, read, done],
    config: { agent: { max_turns: 2 } },
  });
  const turnLimit = await runCli(["--config", looping.configPath]);
  assert.equal(turnLimit.code, EXIT.turnLimit, turnLimit.stderr);
  assert.equal(EXIT.turnLimit, 5);
  assert.match(turnLimit.stderr, /run max_turns/);
});

Deno.test("kagent-run --help and run --help list every exit code of the table", async () => {
  for (const args of [["--help"], ["run", "--help"]]) {
    const { code, stdout } = await runCli(args);
    assert.equal(code, 0);
    for (const entry of EXIT_MEANINGS) {
      assert.ok(
        stdout.includes(`${String(entry.code).padStart(3)}  ${entry.meaning}`),
        `${args.join(" ")} lists exit ${entry.code}`,
      );
    }
  }
  const codes = EXIT_MEANINGS.map((entry) => entry.code);
  assert.equal(new Set(codes).size, codes.length, "every code means one thing");
  assert.deepEqual([...codes].sort((a, b) => a - b), Object.values(EXIT).sort((a, b) => a - b));
});
