import assert from "node:assert/strict";
import { mapAllowedTools, splitAllowedTools } from "./allowed_tools.ts";

Deno.test("mapAllowedTools maps Claude tool names to kagent-run's", () => {
  const mapped = mapAllowedTools(["Read", "Write", "Edit", "MultiEdit", "Glob", "LS", "Grep"]);
  assert.deepEqual(mapped.tools, [
    "fs.read_file",
    "fs.write_file",
    "fs.edit_file",
    "fs.list_files",
    "fs.grep_files",
  ]);
  assert.deepEqual(mapped.commands, []);
  assert.deepEqual(mapped.warnings, []);
});

Deno.test("mapAllowedTools limits exec.run_command to the programs of Bash(…) entries", () => {
  const mapped = mapAllowedTools([
    "Bash(git:*)",
    "Bash(git diff:*)",
    "Bash(jq *)",
    "Bash(npm test)",
  ]);
  assert.deepEqual(mapped.tools, ["exec.run_command"]);
  assert.deepEqual(mapped.commands, [
    { tool: "exec.run_command", argv: ["git"], prefix: true },
    { tool: "exec.run_command", argv: ["git", "diff"], prefix: true },
    { tool: "exec.run_command", argv: ["jq"], prefix: true },
    { tool: "exec.run_command", argv: ["npm", "test"], prefix: false },
  ]);
});

Deno.test("mapAllowedTools lifts the command limits when a plain entry allows every command", () => {
  for (const plain of ["Bash", "Bash(*)", "exec.run_command", "exec.*", "*"]) {
    const mapped = mapAllowedTools(["Bash(git:*)", plain]);
    assert.deepEqual(mapped.commands, [], plain);
    assert.ok(mapped.tools.includes("exec.run_command") || mapped.tools.includes(plain), plain);
  }
  // A plain entry for another tool does not lift them.
  assert.equal(mapAllowedTools(["Bash(git:*)", "fs.*"]).commands.length, 1);
});

Deno.test("mapAllowedTools keeps kagent-run names and maps Claude MCP names", () => {
  const mapped = mapAllowedTools(["fs.read_file", "fs.*", "mcp__github__get_issue", "mcp__jira"]);
  assert.deepEqual(mapped.tools, ["fs.read_file", "fs.*", "mcp.github.get_issue", "mcp.jira.*"]);
});

Deno.test("mapAllowedTools drops, with a warning, entries it cannot honour", () => {
  const mapped = mapAllowedTools([
    "Read",
    "NotebookEdit",
    "read_file",
    "Read(src/**)",
    "Bash(git log | sh:*)",
    "Bash(rm -rf *.tmp)",
    "Bash()",
  ]);
  assert.deepEqual(mapped.tools, ["fs.read_file"]);
  assert.deepEqual(mapped.commands, []);
  assert.equal(mapped.warnings.length, 6);
  assert.match(mapped.warnings[0]!, /^allowed-tools entry "NotebookEdit" names a tool/);
  assert.match(mapped.warnings[2]!, /"Read\(src\/\*\*\)" limits "Read" in a way/);
  assert.match(mapped.warnings[3]!, /command pattern kagent-run does not apply/);
  // Only unknown entries: nothing is left, so the skill narrows the run to no tool at all.
  assert.deepEqual(mapAllowedTools(["NotebookEdit"]).tools, []);
});

Deno.test("splitAllowedTools splits on spaces and commas outside parentheses", () => {
  assert.deepEqual(splitAllowedTools("Read Grep  Bash(git:*)"), ["Read", "Grep", "Bash(git:*)"]);
  assert.deepEqual(splitAllowedTools("Read, Grep,Bash(git diff:*)\n  fs.*"), [
    "Read",
    "Grep",
    "Bash(git diff:*)",
    "fs.*",
  ]);
  assert.deepEqual(splitAllowedTools("  "), []);
});
