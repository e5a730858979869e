// Skills in the shapes the public anthropics/skills collection uses (issue 24 §4), from fixtures
// written in those shapes (tests/testdata/skills_anthropic/): a description of 1,068 characters
// and top-level version:/author: load with warnings the run records; a loaded skill's reference
// files (pdf/forms.md) are read through the path guard, read-only; names and traversal are still
// refused (near misses).
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, readJsonl, repository, runCli } from "./_cli_helpers.ts";

const SKILLS = nodePath.join(repository, "tests/testdata/skills_anthropic");

Deno.test("anthropics/skills shapes load, and a loaded skill's reference files are readable, read-only", async () => {
  const forms = nodePath.join(SKILLS, "pdf/forms.md");
  const turn = (id: string, name: string, args: Record<string, unknown>) =>
    JSON.stringify({ tool_calls: [{ id, name, arguments: args }] });
  await using project = await createProject({
    config: { skills: { dirs: [SKILLS] } },
    plan: [
      JSON.stringify({
        tool_calls: [
          { id: "list", name: "skills.list_skills", arguments: {} },
          { id: "api", name: "skills.load_skill", arguments: { skill_id: "claude-api" } },
        ],
      }),
      turn("pdf", "skills.load_skill", { skill_id: "pdf" }),
      turn("forms", "fs.read_file", { path: forms }),
      turn("reference", "fs.read_file", { path: nodePath.join(SKILLS, "pdf/reference.md") }),
      // Near misses: a write into the skill, a path that climbs out of it, a name that is a path.
      turn("write", "fs.write_file", { path: forms, content: "changed", overwrite: true }),
      turn("climb", "fs.read_file", { path: `${SKILLS}/pdf/../../../../deno.json` }),
      turn("traversal", "skills.load_skill", { skill_id: "../pdf" }),
      JSON.stringify({ content: "Read the form instructions." }),
    ],
    permissions: { rules: [{ tools: ["fs.write_file"], decision: "allow" }] },
  });
  const result = await runCli(["--config", project.configPath]);
  assert.equal(result.code, 0, result.stderr);
  const records = await readJsonl(nodePath.join(await onlyRunDir(project), "logs/tools.jsonl"));
  const byId = new Map(records.map((record) => [record.tool_call_id as string, record]));
  const outcome = (id: string) => byId.get(id)?.result as Record<string, unknown>;
  const errorType = (id: string) => (outcome(id).error_type as string | null) ?? "ok";

  const listed = JSON.stringify(outcome("list"));
  assert.match(listed, /claude-api/);
  assert.match(listed, /\bpdf\b/);
  assert.equal(errorType("api"), "ok");
  assert.match(JSON.stringify(outcome("api")), /1068 characters long, over the spec's 1024/);
  assert.equal(errorType("pdf"), "ok");
  assert.match(JSON.stringify(outcome("pdf")), /key \\"version\\" is not in the Agent Skills spec/);
  assert.match(JSON.stringify(outcome("pdf")), /forms\.md/);
  // The load tells the model where the skill's files are read.
  assert.ok(
    String(outcome("pdf").output).includes(`fs.read_file at "${SKILLS}/pdf/<file>"`),
    String(outcome("pdf").output),
  );
  assert.equal(errorType("forms"), "ok");
  assert.match(String(outcome("forms").output), /Filling PDF forms/);
  assert.equal(errorType("reference"), "ok");

  assert.notEqual(errorType("write"), "ok");
  assert.match(await Deno.readTextFile(forms), /^# Filling PDF forms/, "the skill is unchanged");
  assert.equal(errorType("climb"), "path_outside_sandbox");
  assert.equal(errorType("traversal"), "invalid_arguments");
});
