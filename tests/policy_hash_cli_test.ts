// `kagent-run policy` prints the hash runs use (issue 24 §9): a grant built by hand from the
// printed hash lets exactly that call through in a run; `policy --json` carries the same hash, its
// run folder written as <run>. Near miss: a grant naming another hash is refused.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, runCli } from "./_cli_helpers.ts";

Deno.test("the hash kagent-run policy prints is the one a run's grants name", async () => {
  await using project = await createProject({
    plan: [
      JSON.stringify({
        tool_calls: [{
          id: "w",
          name: "fs.write_file",
          arguments: { path: "notes.md", content: "approved" },
        }],
      }),
      JSON.stringify({ content: "Done." }),
    ],
  });
  const printed = await runCli(["policy", "--config", project.configPath]);
  assert.equal(printed.code, 0, printed.stderr);
  const hash = /^Policy ([0-9a-f]{64}) for config /.exec(printed.stdout)?.[1];
  assert.ok(hash, printed.stdout);
  assert.match(printed.stdout, /write roots: {2}<run>\/workspace, <run>\/deliverables/);
  const json = JSON.parse(
    (await runCli(["policy", "--config", project.configPath, "--json"])).stdout,
  );
  assert.equal(json.hash, hash);
  assert.doesNotMatch(JSON.stringify(json), /kagent-run-policy-/);

  const grant = (policy: string) =>
    JSON.stringify({ tool: "fs.write_file", scope: ["write:<workspace>/notes.md"], policy });
  const other = await runCli([
    "--config",
    project.configPath,
    "--approve",
    grant("0".repeat(64)),
  ]);
  assert.equal(other.code, 2, other.stderr);
  await assert.rejects(Deno.stat(nodePath.join(project.sandbox.workspace, "notes.md")));

  const allowed = await runCli(["--config", project.configPath, "--approve", grant(hash)]);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.equal(
    await Deno.readTextFile(nodePath.join(project.sandbox.workspace, "notes.md")),
    "approved",
  );
});
