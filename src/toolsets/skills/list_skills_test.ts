import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { callTool } from "../../testing/call_tool.ts";
import { createTempSandbox } from "../../testing/temp_sandbox.ts";
import { createTestContext } from "../../testing/tool_context.ts";
import { type ListSkillsData, listSkillsTool } from "./list_skills.ts";

const REPO_SKILLS = nodePath.resolve(import.meta.dirname ?? ".", "../../../skills");

Deno.test("skills.list_skills lists name, description and path of each skill", async () => {
  await using sandbox = await createTempSandbox();
  const context = await createTestContext({ workspace: sandbox.workspace });
  const outcome = await callTool(listSkillsTool([REPO_SKILLS]), {}, context);
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(outcome.summary, "Found 2 skills");
  const data = outcome.data as ListSkillsData;
  assert.deepEqual(data.skills.map((skill) => [skill.name, skill.path]), [
    ["review-changes", "skills/review-changes"],
    ["survey-repository", "skills/survey-repository"],
  ]);
  assert.equal(data.invalid_count, 0);
  assert.deepEqual(Object.keys(data.skills[0]!), ["name", "description", "path"]);
});

Deno.test("skills.list_skills refuses arguments and shows workspace-relative paths", async () => {
  await using sandbox = await createTempSandbox();
  const skills = nodePath.join(sandbox.workspace, ".agents", "skills");
  await Deno.mkdir(nodePath.join(skills, "demo"), { recursive: true });
  await Deno.writeTextFile(
    nodePath.join(skills, "demo", "SKILL.md"),
    "---\nname: demo\ndescription: Demo\n---\nBody\n",
  );
  const context = await createTestContext({ workspace: sandbox.workspace });
  const tool = listSkillsTool([await Deno.realPath(skills)]);
  const refused = await callTool(tool, { extra: 1 }, context);
  assert.equal(refused.error?.type, "invalid_arguments");
  const outcome = await callTool(tool, {}, context);
  assert.deepEqual((outcome.data as ListSkillsData).skills, [
    { name: "demo", description: "Demo", path: ".agents/skills/demo" },
  ]);
});
