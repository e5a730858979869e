import assert from "node:assert/strict";
import { skillRequestFor } from "./skill_requests.ts";
import { parseSkillDocument } from "./skill_frontmatter.ts";

Deno.test("skillRequestFor narrows to allowed-tools when the skill names them", () => {
  assert.deepEqual(skillRequestFor({ name: "demo", allowed_tools: ["fs.read_file", "fs.*"] }), {
    skill: "demo",
    allowed_tools: ["fs.read_file", "fs.*"],
  });
});

Deno.test("skillRequestFor narrows nothing when the skill has no allowed-tools", () => {
  const request = skillRequestFor({ name: "demo", allowed_tools: [] });
  assert.equal(request.allowed_tools, undefined);
  assert.equal(request.allowed_commands, undefined);
});

Deno.test("skillRequestFor gives the same request for allowed-tools as a string and as a list", () => {
  const requestOf = (allowedTools: string) => {
    const parsed = parseSkillDocument(
      `---\nname: demo\ndescription: d\nallowed-tools:${allowedTools}\n---\n`,
      "demo",
    );
    if (!parsed.ok) throw new Error(parsed.reason);
    return skillRequestFor(parsed.frontmatter);
  };
  const fromString = requestOf(" Read Grep Bash(git:*)");
  assert.deepEqual(fromString, {
    skill: "demo",
    allowed_tools: ["fs.read_file", "fs.grep_files", "exec.run_command"],
    allowed_commands: [{ tool: "exec.run_command", argv: ["git"], prefix: true }],
  });
  assert.deepEqual(requestOf("\n  - Read\n  - Grep\n  - Bash(git:*)"), fromString);
  assert.deepEqual(requestOf(" Read, Grep, Bash(git:*)"), fromString);
});

Deno.test("skillRequestFor narrows to no tool when no entry can be honoured", () => {
  assert.deepEqual(skillRequestFor({ name: "demo", allowed_tools: ["NotebookEdit"] }), {
    skill: "demo",
    allowed_tools: [],
  });
});
