import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { callTool } from "../../testing/call_tool.ts";
import { createTempSandbox } from "../../testing/temp_sandbox.ts";
import { createTestContext } from "../../testing/tool_context.ts";
import { createSkillTools } from "./skill_tools.ts";
import { type LoadSkillData, loadSkillTool } from "./load_skill.ts";

const REPO_SKILLS = nodePath.resolve(import.meta.dirname ?? ".", "../../../skills");

Deno.test("skills.load_skill refuses ids that are paths and touches nothing", async () => {
  await using sandbox = await createTempSandbox();
  const context = await createTestContext({ workspace: sandbox.workspace });
  const tool = loadSkillTool([REPO_SKILLS]);
  for (const id of ["../../home/u/.ssh", "/etc", "a/../../b", "", ".", "..", "Survey"]) {
    const outcome = await callTool(tool, { skill_id: id }, context);
    assert.equal(outcome.error?.type, "invalid_arguments", id);
    assert.ok(outcome.error?.message.startsWith(`Cannot load skill "${id}": a skill id`), id);
  }
});

Deno.test("skills.load_skill returns the body and resources of a real skill", async () => {
  await using sandbox = await createTempSandbox();
  const context = await createTestContext({ workspace: sandbox.workspace });
  const outcome = await callTool(
    loadSkillTool([REPO_SKILLS]),
    { skill_id: "survey-repository" },
    context,
  );
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(outcome.summary, 'Loaded skill "survey-repository" with 1 resource');
  assert.match(outcome.output, /^# Survey a repository/);
  assert.match(outcome.output, /- scripts\/count_lines.sh$/);
  const data = outcome.data as LoadSkillData;
  assert.deepEqual(data.resources, ["scripts/count_lines.sh"]);
  assert.equal(data.path, "skills/survey-repository");
});

Deno.test("skills.load_skill reports an unknown skill with the available names", async () => {
  await using sandbox = await createTempSandbox();
  const context = await createTestContext({ workspace: sandbox.workspace });
  const outcome = await callTool(loadSkillTool([REPO_SKILLS]), { skill_id: "nope" }, context);
  assert.equal(outcome.error?.type, "file_not_found");
  assert.equal(
    outcome.error?.message,
    'Cannot load skill "nope": there is no such skill (available: review-changes, ' +
      "survey-repository)",
  );
});

Deno.test("skills.load_skill gives the reason when the skill is invalid", async () => {
  await using sandbox = await createTempSandbox();
  const skills = nodePath.join(sandbox.workspace, "skills");
  await Deno.mkdir(nodePath.join(skills, "broken"), { recursive: true });
  await Deno.writeTextFile(nodePath.join(skills, "broken", "SKILL.md"), "---\nname: broken\n---\n");
  const context = await createTestContext({ workspace: sandbox.workspace });
  const outcome = await callTool(loadSkillTool([skills]), { skill_id: "broken" }, context);
  assert.equal(outcome.error?.type, "skill_invalid");
  assert.equal(
    outcome.error?.message,
    'Cannot load skill "broken/SKILL.md": key "description" is missing',
  );
});

Deno.test("createSkillTools builds readonly skills tools", () => {
  const tools = createSkillTools([REPO_SKILLS]);
  assert.deepEqual(tools.map((tool) => tool.name), ["skills.list_skills", "skills.load_skill"]);
  for (const tool of tools) {
    assert.equal(tool.permission, "readonly");
    assert.deepEqual(tool.tags, ["skills", "read"]);
    assert.equal(tool.annotations.category, "skills");
    assert.equal(tool.annotations.read_only, true);
  }
});
