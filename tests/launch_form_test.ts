// Relative paths mean the user's folder in every launch form (issue 24 §2): under `deno task` Deno
// runs main.ts from the checkout and leaves the user's folder in INIT_CWD; kagent-run goes back
// there, so --config, --task-file and `verify runs/<id>` typed in a project folder work, and the
// commands it prints start with `deno task kagent-run`. An INIT_CWD left by an outer `npm run`
// does not move a kagent-run started directly.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import {
  createProject,
  environmentForTask,
  onlyRunDir,
  repository,
  taskFlags,
} from "./_cli_helpers.ts";

const decoder = new TextDecoder();

async function run(cwd: string, args: string[], env: Record<string, string> = {}) {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    clearEnv: true,
    env: environmentForTask({ NO_COLOR: "1", ...env }),
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("under deno task, --config, --task-file, --workspace and verify runs/<id> resolve against the folder the user is in", async () => {
  await using project = await createProject({
    plan: [
      JSON.stringify({
        tool_calls: [{
          id: "w",
          name: "fs.write_file",
          arguments: { path: "docs.md", content: "notes" },
        }],
      }),
      JSON.stringify({ content: "Done." }),
    ],
  });
  const root = project.sandbox.root;
  await Deno.writeTextFile(nodePath.join(root, "task.md"), "The task from the user's folder");
  const task = (args: string[]) =>
    run(root, ["task", "--config", nodePath.join(repository, "deno.json"), "kagent-run", ...args]);

  const started = await task([
    "--config",
    "config/agent.jsonc",
    "--task-file",
    "task.md",
    "--workspace",
    "./workspace",
    "--output",
    "json",
  ]);
  // The write asks for an approval (no rule allows it): exit 3 with the whole command printed.
  assert.equal(started.code, 3, started.stderr);
  const result = JSON.parse(started.stdout);
  assert.match(result.replay, /^deno task kagent-run run --config config\/agent\.jsonc /);
  const runDir = await onlyRunDir(project);
  const runJson = JSON.parse(await Deno.readTextFile(nodePath.join(runDir, "run.json")));
  assert.equal(runJson.task, "The task from the user's folder");
  assert.equal(runJson.workspace, await Deno.realPath(project.sandbox.workspace));

  const relativeRun = nodePath.relative(root, runDir);
  const verified = await task(["verify", relativeRun]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);

  // Near miss: started directly from another folder, an INIT_CWD left by an outer `npm run` does
  // not move kagent-run; the same relative run folder is not found from there.
  const elsewhere = nodePath.join(root, "workspace");
  const direct = await run(
    elsewhere,
    [
      "run",
      ...taskFlags("kagent-run"),
      nodePath.join(repository, "main.ts"),
      "verify",
      relativeRun,
    ],
    { INIT_CWD: root },
  );
  assert.notEqual(direct.code, 0);
  assert.match(direct.stdout + direct.stderr, /runs\//);
});
