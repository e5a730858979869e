import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { openTestRun } from "../../testing/run_harness.ts";
import { checkSchemaSubset } from "../../tools/schema_subset.ts";
import type { JsonSchema } from "../../tools/tool_definition.ts";
import {
  removeOptionalNulls,
  STRICT_MODE_FORMATS,
  STRICT_MODE_LIMITS,
  toStrictSchema,
} from "./_strict_schema.ts";

/** The keywords strict mode documents, plus annotations it accepts. */
const SENDABLE = new Set([
  "type",
  "description",
  "title",
  "enum",
  "const",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "pattern",
  "format",
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
]);

/** Asserts the strict invariants at every level: sendable keywords only, closed, all required. */
function assertStrictShape(schema: JsonSchema, where: string): void {
  for (const keyword of Object.keys(schema)) {
    assert.ok(SENDABLE.has(keyword), `${where}: "${keyword}" would be sent`);
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("object")) {
    assert.equal(schema.additionalProperties, false, `${where}: not closed`);
    const properties = schema.properties as Record<string, JsonSchema>;
    assert.deepEqual(schema.required, Object.keys(properties), `${where}: not all required`);
    for (const [name, child] of Object.entries(properties)) {
      assertStrictShape(child, `${where}.${name}`);
    }
  }
  if (types.includes("array")) assertStrictShape(schema.items as JsonSchema, `${where}[]`);
}

/** An object schema nested `levels` objects deep (the root is level 1). */
function nested(levels: number): JsonSchema {
  let schema: JsonSchema = { type: "object", properties: { leaf: { type: "string" } } };
  for (let level = 1; level < levels; level++) {
    schema = { type: "object", properties: { child: schema }, required: ["child"] };
  }
  return schema;
}

/** An object schema with `count` string properties. */
function wide(count: number): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (let index = 0; index < count; index++) properties[`p${index}`] = { type: "string" };
  return { type: "object", properties };
}

Deno.test("toStrictSchema passes every tool of the real registry", async () => {
  await using run = await openTestRun({
    config: {
      commands: ["git"],
      sandbox: { command_isolation: "none" },
      skills: { dirs: ["../skills"] },
      memory: { folder: "../memory", write_mode: "candidate" },
    },
    prepare: (sandbox) => Deno.mkdir(nodePath.join(sandbox.root, "skills")),
  });
  const tools = run.session.registry.list().map((registered) => registered.definition);
  assert.deepEqual(tools.map((tool) => tool.name).sort(), [
    "exec.run_command",
    "fs.delete_file",
    "fs.edit_file",
    "fs.grep_files",
    "fs.list_files",
    "fs.read_file",
    "fs.write_file",
    "memory.recall_memory",
    "memory.write_memory",
    "skills.list_skills",
    "skills.load_skill",
    "skills.run_script",
  ]);
  for (const tool of tools) {
    const { schema, problems } = toStrictSchema(tool.input_schema);
    assert.deepEqual(problems, [], tool.name);
    assertStrictShape(schema, tool.name);
  }
});

Deno.test("toStrictSchema makes fs.edit_file's options nullable and the way back restores them", async () => {
  await using run = await openTestRun({
    permissions: { rules: [{ tools: ["fs.edit_file"], paths: ["notes.md"], decision: "allow" }] },
    prepare: (sandbox) =>
      Deno.writeTextFile(nodePath.join(sandbox.workspace, "notes.md"), "draft, kept\n"),
  });
  const editFile = run.session.registry.get("fs.edit_file")?.definition;
  assert.ok(editFile);
  const { schema } = toStrictSchema(editFile.input_schema);
  const properties = schema.properties as Record<string, JsonSchema>;
  assert.deepEqual(properties.edits?.type, ["array", "null"]);
  assert.deepEqual(properties.unified_diff?.type, ["string", "null"]);
  assert.deepEqual(properties.path?.type, "string");
  // What a strict model sends for "one edit, no diff, default flags" reaches the runtime without
  // the nulls, so the tool's own schema accepts it.
  const sent = JSON.stringify({
    path: "notes.md",
    edits: [{ old: "draft", new: "final" }],
    unified_diff: null,
    replace_all: null,
    create_if_missing: null,
  });
  assert.equal(
    removeOptionalNulls(sent, editFile.input_schema),
    '{"path":"notes.md","edits":[{"old":"draft","new":"final"}]}',
  );
  // The raw strict arguments do not pass the tool's own schema; the file is untouched.
  const raw = await run.call("fs.edit_file", sent);
  assert.equal(raw.error?.type, "invalid_arguments");
  const notes = nodePath.join(run.sandbox.workspace, "notes.md");
  assert.equal(await Deno.readTextFile(notes), "draft, kept\n");
  const result = await run.call("fs.edit_file", removeOptionalNulls(sent, editFile.input_schema));
  assert.equal(result.ok, true, result.summary);
  assert.equal(await Deno.readTextFile(notes), "final, kept\n");
});

Deno.test("toStrictSchema refuses a format strict mode lacks and accepts a supported one", () => {
  const schemaWith = (format: string): JsonSchema => ({
    type: "object",
    properties: { link: { type: "string", format, description: "Where" } },
    required: ["link"],
  });
  // Both are valid declarative tool schemas (the registry's subset accepts them).
  assert.ok("schema" in checkSchemaSubset(schemaWith("uri")));
  assert.ok("schema" in checkSchemaSubset(schemaWith("date")));
  assert.deepEqual(toStrictSchema(schemaWith("uri")).problems, [
    'property "link" of its input schema uses format "uri", which strict mode does not ' +
    `support; remove "format" or use one of ${
      STRICT_MODE_FORMATS.map((name) => `"${name}"`).join(", ")
    }`,
  ]);
  assert.deepEqual(toStrictSchema(schemaWith("date")).problems, []);
});

Deno.test("toStrictSchema refuses keywords it cannot express, naming where", () => {
  const { problems } = toStrictSchema({
    type: "object",
    properties: {
      choice: { oneOf: [{ type: "string" }, { type: "integer" }] },
      items: { type: "array", items: { type: "object", patternProperties: {} } },
      open: { type: "object", additionalProperties: true },
      list: { type: "array" },
    },
  });
  assert.deepEqual(problems, [
    'property "choice" of its input schema has no "type"; strict mode needs one (add "type")',
    'property "choice" of its input schema uses "oneOf", which strict mode does not support; ' +
    'remove it, or turn strict mode off ("model.strict": false)',
    'property "items[]" of its input schema uses "patternProperties", which strict mode does ' +
    'not support; remove it, or turn strict mode off ("model.strict": false)',
    'property "open" of its input schema allows additional properties; strict mode needs ' +
    '"additionalProperties": false (declare every property)',
    'property "list" of its input schema is an array without an "items" schema; strict mode ' +
    'needs one (add "items")',
  ]);
});

Deno.test("toStrictSchema allows 10 levels of objects and refuses 11", () => {
  assert.deepEqual(toStrictSchema(nested(STRICT_MODE_LIMITS.max_object_depth)).problems, []);
  assert.deepEqual(toStrictSchema(nested(STRICT_MODE_LIMITS.max_object_depth + 1)).problems, [
    'property "child.child.child.child.child.child.child.child.child.child" of its input schema ' +
    "is an object nested 11 levels deep; strict mode allows at most 10 levels (flatten the input)",
  ]);
});

Deno.test("toStrictSchema allows 5000 properties and refuses 5001", () => {
  assert.deepEqual(toStrictSchema(wide(STRICT_MODE_LIMITS.max_properties)).problems, []);
  assert.deepEqual(toStrictSchema(wide(STRICT_MODE_LIMITS.max_properties + 1)).problems, [
    "its input schema has 5001 properties; strict mode allows at most 5000 in one schema " +
    "(split the tool)",
  ]);
});

Deno.test("toStrictSchema enforces the enum limits and leaves a near miss alone", () => {
  const withEnum = (values: unknown[]): JsonSchema => ({
    type: "object",
    properties: { pick: { type: "string", enum: values } },
    required: ["pick"],
  });
  const values = (count: number, length: number) =>
    Array.from({ length: count }, (_, index) => String(index).padStart(length, "x"));
  // 1000 values pass; 1001 do not.
  assert.deepEqual(toStrictSchema(withEnum(values(1000, 4))).problems, []);
  assert.match(
    toStrictSchema(withEnum(values(1001, 4))).problems.join("\n"),
    /its input schema has 1001 enum values; strict mode allows at most 1000/,
  );
  // 251 values of 60 characters (15060) are too long; 250 of them (15000 characters) are fine.
  assert.deepEqual(toStrictSchema(withEnum(values(250, 60))).problems, []);
  assert.deepEqual(toStrictSchema(withEnum(values(251, 60))).problems, [
    'property "pick" of its input schema has a string enum of 251 values and 15060 characters; ' +
    "strict mode allows at most 15000 characters in an enum of more than 250 values",
  ]);
});

Deno.test("toStrictSchema refuses more than 120000 characters of names and enum values", () => {
  const long = (count: number): JsonSchema => {
    const properties: Record<string, JsonSchema> = {};
    for (let index = 0; index < count; index++) {
      properties[`${"n".repeat(996)}${String(index).padStart(4, "0")}`] = { type: "string" };
    }
    return { type: "object", properties };
  };
  assert.deepEqual(toStrictSchema(long(120)).problems, []);
  assert.deepEqual(toStrictSchema(long(121)).problems, [
    "the property names, enum and const values of its input schema add up to 121000 " +
    "characters; strict mode allows at most 120000",
  ]);
});

Deno.test("toStrictSchema makes optional enums and consts nullable and keeps declared nulls", () => {
  const original: JsonSchema = {
    type: "object",
    properties: {
      mode: { type: "string", enum: ["fast", "slow"] },
      kind: { type: "string", const: "page" },
      note: { type: ["string", "null"] },
    },
  };
  const { schema, problems } = toStrictSchema(original);
  assert.deepEqual(problems, []);
  assert.deepEqual(schema.properties, {
    mode: {
      type: ["string", "null"],
      enum: ["fast", "slow", null],
      description: "Null to leave it out.",
    },
    kind: { type: ["string", "null"], enum: ["page", null], description: "Null to leave it out." },
    note: { type: ["string", "null"] },
  });
  // A null the original schema allows is the model's value, not "left out".
  assert.equal(removeOptionalNulls('{"note":null,"mode":null}', original), '{"note":null}');
});

Deno.test("removeOptionalNulls keeps required nulls, nested shapes and text that is not an object", () => {
  const schema: JsonSchema = {
    type: "object",
    properties: {
      path: { type: "string" },
      edits: {
        type: "array",
        items: {
          type: "object",
          properties: { old: { type: "string" }, hint: { type: "string" } },
          required: ["old"],
        },
      },
    },
    required: ["path"],
  };
  assert.equal(
    removeOptionalNulls('{"path":null,"edits":[{"old":null,"hint":null},{"old":"a"}]}', schema),
    '{"path":null,"edits":[{"old":null},{"old":"a"}]}',
  );
  // Unchanged text stays byte for byte (its sha256 in the audit is the model's).
  assert.equal(removeOptionalNulls('{ "path": "a" }', schema), '{ "path": "a" }');
  assert.equal(removeOptionalNulls("{oops", schema), "{oops");
  assert.equal(removeOptionalNulls("[null]", schema), "[null]");
  // A key the schema does not declare is left for the runtime to refuse.
  assert.equal(
    removeOptionalNulls('{"path":"a","__proto__":null,"extra":null}', schema),
    '{"path":"a","__proto__":null,"extra":null}',
  );
});

Deno.test("toStrictSchema sends the forms the subset widens to when MCP servers write them", () => {
  // Pydantic-style $defs/$ref, a nullable anyOf and a list of scalar types, after the subset.
  const checked = checkSchemaSubset({
    type: "object",
    properties: {
      at: { $ref: "#/$defs/Point" },
      label: { anyOf: [{ type: "string", enum: ["a", "b"] }, { type: "null" }], default: null },
      value: { type: ["string", "number", "boolean"] },
    },
    required: ["at"],
    $defs: { Point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
  });
  assert.ok("schema" in checked);
  const { schema, problems } = toStrictSchema(checked.schema);
  assert.deepEqual(problems, []);
  assertStrictShape(schema, "root");
  const properties = schema.properties as Record<string, JsonSchema>;
  // Already nullable: sent as it is; the optional scalar list gets "null" added.
  assert.deepEqual(properties.label?.type, ["string", "null"]);
  assert.deepEqual(properties.value?.type, ["string", "number", "boolean", "null"]);
  // On the way back, the null of a nullable property is the server's own value: kept.
  assert.equal(
    removeOptionalNulls('{"at":{"x":1},"label":null,"value":null}', checked.schema),
    '{"at":{"x":1},"label":null}',
  );
});
