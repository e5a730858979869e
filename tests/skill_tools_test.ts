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

Deno.test("loading a skill narrows the tool set for the rest of the run; a skill never widens it", async () => {
  await using run = await openTestRun({
    config: { skills: { dirs: ["../skills"] } },
    permissions: { rules: [{ tools: ["fs.write_file"], decision: "allow" }] },
    prepare: (sandbox) =>
      writeTree(sandbox.root, {
        "skills/reader/SKILL.md":
          "---\nname: reader\ndescription: Reads only.\nallowed-tools: fs.read_file fs.write_file exec.run_command skills.load_skill\n---\nRead.\n",
      }),
  });
  const before = await run.call("fs.list_files", { path: "." });
  assert.equal(before.ok, true, before.output);
  const loaded = await run.call("skills.load_skill", { skill_id: "reader" });
  assert.equal(loaded.ok, true, loaded.output);
  const narrowed = await run.call("fs.list_files", { path: "." });
  assert.equal(narrowed.error?.type, "tool_not_available", "not in the skill's allowed-tools");
  const kept = await run.call("fs.write_file", { path: "a.txt", content: "x" });
  assert.equal(kept.ok, true, kept.output);
  const notGranted = await run.call("exec.run_command", { argv: ["true"] });
  assert.equal(
    notGranted.error?.type,
    "tool_not_available",
    "a skill never grants what the run lacks",
  );
  const events = await run.readLog("events");
  const event = events.find((line) => line.type === "skill.loaded");
  assert.ok(event);
  assert.deepEqual(event.requested, [
    "fs.read_file",
    "fs.write_file",
    "exec.run_command",
    "skills.load_skill",
  ]);
  assert.ok((event.got as string[]).includes("fs.write_file"));
  assert.ok(!(event.got as string[]).includes("exec.run_command"));
  assert.ok((event.removed as string[]).includes("fs.list_files"));
});

Deno.test("a run reports invalid skills with their file and reason, and keeps going", async () => {
  await using run = await openTestRun(options);
  const errors = await run.readLog("errors");
  const reported = errors.find((line) => line.source === "skills");
  assert.ok(reported, "the invalid skill is in errors.jsonl");
  assert.match(String(reported.message), /broken\/SKILL\.md/);
  const listed = await run.call("skills.list_skills", {});
  assert.equal(listed.ok, true);
});
