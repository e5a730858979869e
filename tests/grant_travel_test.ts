// Grants travel (issue 11 §4): a grant printed in one checkout applies in another checkout of the
// same project at another path; the policy hash is the same; pending.jsonl carries the command
// that re-runs the run with the grant, and that command runs.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";

const repository = nodePath.resolve(nodePath.dirname(new URL(import.meta.url).pathname), "..");

/** `kagent-run call <tool> <json> --config <project> --non-interactive [...extra]`. */
function call(configPath: string, tool: string, json: unknown, ...extra: string[]) {
  return runCli([
    "call",
    tool,
    JSON.stringify(json),
    "--config",
    configPath,
    "--non-interactive",
    ...extra,
  ]);
}

async function policyHashOf(configPath: string): Promise<string> {
  const { stdout } = await runCli(["policy", "--json", "--config", configPath]);
  return JSON.parse(stdout).hash;
}

Deno.test("a grant printed in one checkout applies in another checkout at another path", async () => {
  await using checkoutA = await createProject();
  await using checkoutB = await createProject();
  assert.notEqual(checkoutA.sandbox.workspace, checkoutB.sandbox.workspace);
  // The same config and permissions in both: the same policy hash.
  assert.equal(await policyHashOf(checkoutA.configPath), await policyHashOf(checkoutB.configPath));

  const asked = await call(checkoutA.configPath, "fs.write_file", {
    path: "src/notes.md",
    content: "hi",
  });
  assert.equal(asked.code, 3, asked.stderr);
  const grant = JSON.parse(asked.stdout).error.details.grant;
  assert.deepEqual(grant.scope, ["write:<workspace>/src/notes.md"]);
  assert.ok(!JSON.stringify(grant).includes(checkoutA.sandbox.root), "no absolute location");

  const granted = await call(
    checkoutB.configPath,
    "fs.write_file",
    { path: "src/notes.md", content: "hi" },
    "--approve",
    JSON.stringify(grant),
  );
  assert.equal(granted.code, 0, granted.stderr + granted.stdout);
  assert.equal(
    await Deno.readTextFile(nodePath.join(checkoutB.sandbox.workspace, "src/notes.md")),
    "hi",
  );
  // Both runs recorded the same policy hash.
  const startedIn = async (project: typeof checkoutA) => {
    const events = await readJsonl(nodePath.join(await onlyRunDir(project), "events.jsonl"));
    return events.find((event) => event.type === "run.started")?.policy_hash;
  };
  assert.equal(await startedIn(checkoutA), await startedIn(checkoutB));
});

Deno.test("a traveling grant covers only its own target in the other checkout (near miss)", async () => {
  await using checkoutA = await createProject();
  await using checkoutB = await createProject();
  const asked = await call(checkoutA.configPath, "fs.write_file", {
    path: "src/notes.md",
    content: "hi",
  });
  const grant = JSON.stringify(JSON.parse(asked.stdout).error.details.grant);
  const other = await call(
    checkoutB.configPath,
    "fs.write_file",
    { path: "src/other.md", content: "x" },
    "--approve",
    grant,
  );
  assert.equal(other.code, 3, other.stderr);
  assert.equal(JSON.parse(other.stdout).error.type, "approval_required");
  await assert.rejects(
    Deno.stat(nodePath.join(checkoutB.sandbox.workspace, "src/other.md")),
    Deno.errors.NotFound,
  );
  // Another policy (a rule added) refuses the grant: exit 2, nothing written.
  await Deno.writeTextFile(
    checkoutB.configPath,
    JSON.stringify({
      workspace: "../workspace",
      runs_dir: "../runs",
      permissions: { rules: [{ tools: ["fs.read_file"], decision: "allow" }] },
    }),
  );
  const stale = await call(
    checkoutB.configPath,
    "fs.write_file",
    { path: "src/notes.md", content: "hi" },
    "--approve",
    grant,
  );
  assert.equal(stale.code, 2, stale.stderr);
  await assert.rejects(
    Deno.stat(nodePath.join(checkoutB.sandbox.workspace, "src/notes.md")),
    Deno.errors.NotFound,
  );
});

const COMMAND_CONFIG = { commands: ["cat"], sandbox: { command_isolation: "bwrap" } };
const ASK_COMMANDS = { rules: [{ tools: ["exec.run_command"], decision: "ask" }] };

Deno.test("a command grant names the program and workspace paths by name, and travels", async () => {
  await using checkoutA = await createProject({
    config: COMMAND_CONFIG,
    permissions: ASK_COMMANDS,
  });
  await using checkoutB = await createProject({
    config: COMMAND_CONFIG,
    permissions: ASK_COMMANDS,
  });
  const catIn = (project: typeof checkoutA) => ({
    argv: ["cat", nodePath.join(project.sandbox.workspace, "README.md")],
    cwd: "src",
  });
  const asked = await call(checkoutA.configPath, "exec.run_command", catIn(checkoutA));
  assert.equal(asked.code, 3, asked.stderr);
  const grant = JSON.parse(asked.stdout).error.details.grant;
  assert.deepEqual(grant.scope, ['command:cat ["<workspace>/README.md"] in <workspace>/src']);
  const granted = await call(
    checkoutB.configPath,
    "exec.run_command",
    catIn(checkoutB),
    "--approve",
    JSON.stringify(grant),
  );
  assert.equal(granted.code, 0, granted.stdout);
  assert.match(JSON.parse(granted.stdout).output, /A small project/);
  // Near miss: another file of checkout B is another call.
  const other = await call(
    checkoutB.configPath,
    "exec.run_command",
    { argv: ["cat", nodePath.join(checkoutB.sandbox.workspace, "src/main.ts")], cwd: "src" },
    "--approve",
    JSON.stringify(grant),
  );
  assert.equal(other.code, 3, other.stdout);
  assert.doesNotMatch(JSON.parse(other.stdout).output, /console\.log/);
});

Deno.test("pending.jsonl carries the replay command, and running it applies the grant", async () => {
  await using project = await createProject();
  const notes = nodePath.join(project.sandbox.workspace, "notes.txt");
  const asked = await call(project.configPath, "fs.write_file", {
    path: "notes.txt",
    content: "it's here",
  });
  assert.equal(asked.code, 3, asked.stderr);
  const pending = await readJsonl(
    nodePath.join(await onlyRunDir(project), "approvals/pending.jsonl"),
  );
  assert.equal(pending.length, 1);
  const replay = pending[0]?.replay as string;
  assert.ok(replay.startsWith("kagent-run call fs.write_file "), replay);
  assert.ok(replay.endsWith(pending[0]?.approve_argument as string), replay);
  assert.equal(JSON.parse(asked.stdout).error.details.replay, replay);
  assert.ok(asked.stderr.includes(replay), "the whole command is printed too");
  await assert.rejects(Deno.stat(notes), Deno.errors.NotFound);

  // The replay is a shell command line: run it as it is, with a "kagent-run" on PATH that runs
  // main.ts.
  const bin = nodePath.join(project.sandbox.root, "bin");
  await Deno.mkdir(bin);
  await Deno.writeTextFile(
    nodePath.join(bin, "kagent-run"),
    `#!/bin/sh\nexec "${Deno.execPath()}" run --unstable-worker-options --allow-all ` +
      `"${nodePath.join(repository, "main.ts")}" "$@"\n`,
    { mode: 0o755 },
  );
  const shell = new Deno.Command("sh", {
    args: ["-c", replay],
    env: { PATH: `${bin}:/usr/bin:/bin`, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  });
  const replayed = await shell.output();
  const stdout = new TextDecoder().decode(replayed.stdout);
  assert.equal(replayed.code, 0, new TextDecoder().decode(replayed.stderr) + stdout);
  assert.equal(JSON.parse(stdout).ok, true);
  assert.equal(await Deno.readTextFile(notes), "it's here");
});
