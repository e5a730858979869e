import assert from "node:assert/strict";
import { Ajv } from "ajv";
import { configJsonSchema, permissionsJsonSchema } from "./json_schema.ts";

Deno.test("configJsonSchema refuses unknown keys when an editor validates a config", () => {
  const validate = new Ajv({ strict: false }).compile(configJsonSchema());
  assert.equal(validate({ workspace: ".", sandbox: { write_roots: ["out"] } }), true);
  assert.equal(validate({ workspace: ".", sandbox: { read_root: [] } }), false);
  assert.equal(validate({ model: { provider: "script", script: "plan.jsonl" } }), true);
  assert.equal(validate({ model: { provider: "openia", script: "plan.jsonl" } }), false);
  assert.equal(validate({ agent: { max_turns: 1.5 } }), false);
  assert.equal(validate({ permissions: { rules: [{ tools: ["*"], decision: "deny" }] } }), true);
  assert.equal(validate({ permissions: "permissions.json" }), true);
});

Deno.test("permissionsJsonSchema refuses a decision when it is not allow, ask or deny", () => {
  const validate = new Ajv({ strict: false }).compile(permissionsJsonSchema());
  assert.equal(validate({ rules: [{ id: "a", tools: ["fs.*"], decision: "ask" }] }), true);
  assert.equal(validate({ rules: [{ tools: ["fs.*"], decision: "allow " }] }), false);
  assert.equal(validate({ rules: [{ tools: "fs.*", decision: "allow" }] }), false);
  assert.equal(validate({ rules: [{ tools: [], decision: "allow" }] }), false);
});

Deno.test("configJsonSchema describes every top-level key when published", () => {
  const schema = configJsonSchema() as { properties: Record<string, { description?: string }> };
  for (const [key, property] of Object.entries(schema.properties)) {
    if (key === "sandbox" || key === "agent" || key === "limits" || key === "audit") continue;
    assert.ok(property.description, `key "${key}" has no description`);
  }
});
