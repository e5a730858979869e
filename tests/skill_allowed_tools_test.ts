// A skill's allowed-tools as the Agent Skills specification writes them (issue 18 §4), through a
// run: Claude tool names map to kagent-run's, Bash(program:*) limits exec.run_command to that
// program, unknown entries warn and are dropped (narrowing, never widening), and a SKILL.md with a
// BOM and CRLF line ends loads.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { openTestRun } from "../src/testing/run_harness.ts";
import { writeTree } from "../src/testing/temp_sandbox.ts";
import { createProject, runCli } from "./_cli_helpers.ts";

const crlf = (text: string) => text.replaceAll("\n", "\r\n");

const options = {
  config: { skills: { dirs: ["../skills"] }, commands: ["git", "touch"] },
  permissions: {
    rules: [{ tools: ["exec.run_command"], commands: ["git", "touch"], decision: "allow" }],
  },
  prepare: (sandbox: { root: string; outside: string }) =>
    writeTree(sandbox.root, {
      // A BOM and CRLF line ends, as an editor on Windows writes them.
      "skills/git-reader/SKILL.md": "\uFEFF" + crlf(
        "---\nname: git-reader\ndescription: Reads files and asks git.\n" +
          "allowed-tools: Read, Grep, Bash(git:*), NotebookEdit\nmetadata:\n  version: 1.0\n" +
          "---\n# Git reader\nUse git.\n",
      ),
    }),
};

Deno.test("a skill with a BOM, CRLF and Bash(git:*) loads, then exec.run_command runs git and no other program", async () => {
  await using run = await openTestRun(options);
  const workspace = nodePath.join(run.sandbox.root, "workspace");
  // Near miss: before the skill, the run's own rule lets touch run.
  const before = await run.call("exec.run_command", { argv: ["touch", "before.txt"] });
  assert.equal(before.ok, true, before.output);
  await Deno.stat(nodePath.join(workspace, "before.txt"));

  // The SKILL.md has a BOM and CRLF line ends; its unknown entry is dropped with a warning,
  // recorded with the call's result, and the skill still loads.
  const loaded = await run.call("skills.load_skill", { skill_id: "git-reader" });
  assert.equal(loaded.ok, true, loaded.output);
  assert.match(loaded.output, /# Git reader/);
  assert.match(
    loaded.output,
    /allowed-tools entry "NotebookEdit" names a tool kagent-run does not/,
  );
  const data = loaded.data as Record<string, unknown>;
  assert.deepEqual(data.metadata, { version: "1.0" });
  assert.deepEqual(data.allowed_tools, ["Read", "Grep", "Bash(git:*)", "NotebookEdit"]);
  assert.equal((data.warnings as string[]).length, 1);
  const tools = await run.readLog("tools");
  assert.match(
    JSON.stringify(tools.find((line) => line.tool === "skills.load_skill")),
    /NotebookEdit/,
  );

  const git = await run.call("exec.run_command", { argv: ["git", "--version"] });
  assert.equal(git.ok, true, git.output);
  assert.match(git.output, /git version/);

  const touch = await run.call("exec.run_command", { argv: ["touch", "after.txt"] });
  assert.equal(touch.ok, false);
  assert.equal(touch.error?.type, "permission_denied", touch.output);
  assert.match(touch.output, /skill "git-reader" allows "exec\.run_command" only for "git …"/);
  await assert.rejects(Deno.stat(nodePath.join(workspace, "after.txt")), Deno.errors.NotFound);

  // Read and Grep map to fs.read_file and fs.grep_files; Glob was not listed.
  const read = await run.call("fs.read_file", { path: "before.txt" });
  assert.equal(read.ok, true, read.output);
  const listed = await run.call("fs.list_files", { path: "." });
  assert.equal(listed.error?.type, "tool_not_available");

  const events = await run.readLog("events");
  const event = events.find((line) => line.type === "skill.loaded");
  assert.ok(event);
  assert.deepEqual(event.requested, ["fs.read_file", "fs.grep_files", "exec.run_command"]);
  assert.deepEqual(event.commands, ["git …"]);
  assert.deepEqual(
    [...(event.got as string[])].sort(),
    ["exec.run_command", "fs.grep_files", "fs.read_file"],
  );
});

Deno.test("kagent-run policy shows what a skill's allowed-tools map to, its command limits and warnings, alike for a string and a list", async () => {
  await using project = await createProject({
    config: { skills: { dirs: ["../skills"] }, commands: ["git"] },
  });
  await writeTree(project.sandbox.root, {
    "skills/git-reader/SKILL.md": "---\nname: git-reader\ndescription: Asks git.\n" +
      "allowed-tools:\n  - Read\n  - Bash(git log:*)\n  - NotebookEdit\n---\n# Git\n",
    // The same entries as a string: the same narrowing.
    "skills/git-string/SKILL.md": "---\nname: git-string\ndescription: Asks git.\n" +
      "allowed-tools: Read, Bash(git log:*) NotebookEdit\n---\n# Git\n",
  });
  const { code, stdout } = await runCli(["policy", "--config", project.configPath]);
  assert.equal(code, 0, stdout);
  assert.match(stdout, /git-reader: requested Read Bash\(git log:\*\) NotebookEdit\n/);
  assert.match(stdout, /\n {4}exec\.run_command only for git log …\n/);
  assert.match(stdout, /\n {4}warning: allowed-tools entry "NotebookEdit" names a tool/);
  const json = JSON.parse(
    (await runCli(["policy", "--json", "--config", project.configPath])).stdout,
  );
  const skill = json.skills.find((entry: { skill: string }) => entry.skill === "git-reader");
  assert.deepEqual(skill.maps_to, ["fs.read_file", "exec.run_command"]);
  // No config rule turns exec.run_command on: the skill cannot bring it.
  assert.deepEqual(skill.got, ["fs.read_file"]);
  const stringForm = json.skills.find((entry: { skill: string }) => entry.skill === "git-string");
  assert.deepEqual(
    { ...stringForm, skill: "git-reader" },
    { ...skill, requested: ["Read", "Bash(git log:*)", "NotebookEdit"] },
  );
});
