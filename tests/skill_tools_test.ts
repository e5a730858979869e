// skills.list_skills and skills.load_skill through the pipeline (issue 5, first part): the catalogue
// is metadata only, a skill's body comes with its resource list, and skill ids never traverse.
import assert from "node:assert/strict";
import { openTestRun } from "../src/testing/run_harness.ts";
import { writeTree } from "../src/testing/temp_sandbox.ts";

const options = {
  config: { skills: { dirs: ["../skills"] } },
  prepare: (sandbox: { root: string; outside: string }) =>
    writeTree(sandbox.root, {
      "skills/notes/SKILL.md":
        "---\nname: notes\ndescription: Keeps notes tidy.\n---\n# Notes\nBody text.\n",
      "skills/notes/references/style.md": "Use short lines.\n",
      "skills/broken/SKILL.md": "---\nname: other-name\ndescription: Mismatched.\n---\n",
    }),
};

Deno.test("skills.list_skills returns the valid skills' metadata and skips invalid ones", async () => {
  await using run = await openTestRun(options);
  const result = await run.call("skills.list_skills", {});
  assert.equal(result.ok, true, result.output);
  assert.match(result.output, /notes: Keeps notes tidy\./);
  assert.doesNotMatch(result.output, /Body text/, "metadata only");
  assert.doesNotMatch(result.output, /other-name/);
});

Deno.test("skills.load_skill returns the body and resources; traversal ids are refused", async () => {
  await using run = await openTestRun(options);
  const loaded = await run.call("skills.load_skill", { skill_id: "notes" });
  assert.equal(loaded.ok, true, loaded.output);
  assert.match(loaded.output, /Body text/);
  assert.match(loaded.output, /references\/style\.md/);
  for (const skill_id of ["../../home/u/.ssh", "/etc", "a/../../b", "", "."]) {
    const refused = await run.call("skills.load_skill", { skill_id });
    assert.equal(refused.ok, false, skill_id);
    assert.equal(refused.error?.type, "invalid_arguments", `${skill_id}: ${refused.output}`);
    assert.doesNotMatch(refused.output, /root:x:0:0/);
  }
});
