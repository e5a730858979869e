import assert from "node:assert/strict";
import { fsTools } from "./mod.ts";

Deno.test("fs.fsTools lists the six tools in order read, list, grep, write, edit, delete", () => {
  assert.deepEqual(fsTools().map((tool) => tool.name), [
    "fs.read_file",
    "fs.list_files",
    "fs.grep_files",
    "fs.write_file",
    "fs.edit_file",
    "fs.delete_file",
  ]);
});

Deno.test("fs.fsTools declares permissions, tags and annotations for the policy", () => {
  const byName = new Map(fsTools().map((tool) => [tool.name, tool]));
  for (const name of ["fs.read_file", "fs.list_files", "fs.grep_files"]) {
    const tool = byName.get(name);
    assert.equal(tool?.permission, "readonly");
    assert.deepEqual(tool?.tags, ["filesystem", "read"]);
    assert.equal(tool?.annotations.read_only, true);
    assert.equal(tool?.annotations.risk_level, 0);
    assert.equal(tool?.annotations.category, "filesystem");
  }
  for (const name of ["fs.write_file", "fs.edit_file"]) {
    const tool = byName.get(name);
    assert.equal(tool?.permission, "write");
    assert.deepEqual(tool?.tags, ["filesystem", "write"]);
    assert.equal(tool?.annotations.risk_level, 2);
    assert.equal(tool?.annotations.idempotent, false);
    assert.equal(tool?.annotations.destructive, false);
    assert.equal(tool?.annotations.category, "filesystem");
  }
  const remove = byName.get("fs.delete_file");
  assert.equal(remove?.permission, "write");
  assert.deepEqual(remove?.tags, ["filesystem", "write", "destructive"]);
  assert.equal(remove?.annotations.destructive, true);
  assert.equal(remove?.annotations.risk_level, 3);
});

Deno.test("fs.fsTools closes every object of every input schema when unknown keys are sent", () => {
  const open: string[] = [];
  const visit = (schema: unknown, where: string) => {
    if (typeof schema !== "object" || schema === null) return;
    const record = schema as Record<string, unknown>;
    if (record.type === "object" && record.additionalProperties !== false) open.push(where);
    for (const [key, value] of Object.entries(record)) visit(value, `${where}/${key}`);
  };
  for (const tool of fsTools()) {
    visit(tool.input_schema, tool.name);
    assert.equal(tool.input_schema.type, "object");
    assert.ok(!JSON.stringify(tool.input_schema).includes("anyOf"), `${tool.name} uses anyOf`);
    const properties = tool.input_schema.properties as Record<string, { description?: string }>;
    for (const [key, property] of Object.entries(properties)) {
      assert.ok(property.description, `${tool.name}.${key} has no description`);
    }
  }
  assert.deepEqual(open, []);
});
