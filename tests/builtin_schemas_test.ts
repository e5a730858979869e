// The built-in tools' schemas are compiled on first use without the meta-schema check
// (src/tools/registry.ts); here each one is compiled the strict way, meta-schema included, so a
// schema Ajv would refuse cannot hide until a model calls the tool.
import assert from "node:assert/strict";
import { ToolRegistry } from "../src/tools/mod.ts";
import { toolSet } from "../src/toolsets/mod.ts";
import { taskToolDefinitions } from "../src/tasks/mod.ts";
import { agentToolDefinitions } from "../src/toolsets/agents/mod.ts";

Deno.test("every built-in tool schema passes the meta-schema and compiles at registration", () => {
  const registry = new ToolRegistry();
  const tools = [
    ...toolSet({
      command_tools: true,
      declarative_tools: [],
      skill_dirs: ["/nonexistent/skills"],
      memory: {
        mode: "candidate",
        folder: "/nonexistent/memory",
        scopes: ["project"],
        provider: { kind: "file" },
        candidates_file: null,
        secrets: [],
      },
    }),
    ...agentToolDefinitions(),
    ...taskToolDefinitions(),
  ];
  const names = tools.map((tool) => tool.name);
  for (const expected of ["fs.read_file", "exec.run_command", "skills.load", "memory.search"]) {
    assert.ok(names.some((name) => name.startsWith(expected.split(".")[0]!)), expected);
  }
  for (const tool of tools) registry.register(tool, { compile: "now" });
  assert.equal(registry.list().length, tools.length);
  assert.ok(tools.length >= 10, `only ${tools.length} tools`);
});
