import assert from "node:assert/strict";
import { Ajv } from "ajv";
import { MAX_INLINED_SCHEMA_NODES } from "./_schema_references.ts";
import { checkSchemaSubset } from "./schema_subset.ts";
import type { JsonSchema } from "./tool_definition.ts";

const ajv = new Ajv({ strict: true, allowUnionTypes: true, validateFormats: false });

/** The checked schema, failing the test with the problems when it was refused. */
function accepted(schema: JsonSchema): JsonSchema {
  const checked = checkSchemaSubset(schema);
  assert.ok("schema" in checked, "problems" in checked ? checked.problems.join("; ") : "");
  return checked.schema;
}

/** The problems, failing the test when the schema was accepted. */
function refused(schema: JsonSchema): string[] {
  const checked = checkSchemaSubset(schema);
  assert.ok("problems" in checked, `accepted: ${JSON.stringify(checked)}`);
  return checked.problems;
}

// As Pydantic (FastMCP, the Python SDK) writes a tool taking a nested model and an Optional.
const PYDANTIC_STYLE: JsonSchema = {
  type: "object",
  properties: {
    start: { $ref: "#/$defs/Point", description: "Where to start" },
    end: { $ref: "#/$defs/Point" },
    label: { anyOf: [{ type: "string" }, { type: "null" }], default: null, title: "Label" },
  },
  required: ["start", "end"],
  $defs: {
    Point: {
      type: "object",
      properties: { x: { type: "number" }, y: { type: "number" } },
      required: ["x", "y"],
      title: "Point",
    },
  },
};

Deno.test("checkSchemaSubset inlines local $refs and keeps their meaning when a definition is shared", () => {
  const schema = accepted(PYDANTIC_STYLE);
  assert.ok(!JSON.stringify(schema).includes("$ref"));
  assert.equal(schema.$defs, undefined);
  const properties = schema.properties as Record<string, JsonSchema>;
  assert.equal(properties.start?.description, "Where to start"); // the $ref's annotation wins
  assert.equal(properties.end?.title, "Point");
  assert.equal(properties.end?.additionalProperties, false); // inlined objects are closed too
  // The inlined schema accepts and refuses what the original does.
  const original = ajv.compile(PYDANTIC_STYLE);
  const inlined = ajv.compile(schema);
  for (
    const value of [
      { start: { x: 1, y: 2 }, end: { x: 3, y: 4 } },
      { start: { x: 1, y: 2 }, end: { x: 3, y: 4 }, label: null },
      { start: { x: 1, y: 2 }, end: { x: 3, y: 4 }, label: "a" },
      { start: { x: 1 }, end: { x: 3, y: 4 } },
      { start: { x: 1, y: 2 }, end: { x: "3", y: 4 } },
      { start: { x: 1, y: 2 }, end: { x: 3, y: 4 }, label: 7 },
    ]
  ) {
    assert.equal(inlined(value), original(value), JSON.stringify(value));
  }
});

Deno.test("checkSchemaSubset refuses a recursive $ref naming it when a definition contains itself", () => {
  const problems = refused({
    type: "object",
    properties: { tree: { $ref: "#/definitions/Node" } },
    definitions: {
      Node: {
        type: "object",
        properties: { children: { type: "array", items: { $ref: "#/definitions/Node" } } },
      },
    },
  });
  assert.deepEqual(problems, [
    'at "/properties/tree/properties/children/items": "$ref" "#/definitions/Node" refers back ' +
    "to itself (a recursive schema cannot be inlined; flatten the input)",
  ]);
});

Deno.test("checkSchemaSubset refuses a $ref it cannot inline when it is remote, missing or mixed", () => {
  const withProperty = (property: JsonSchema): JsonSchema => ({
    type: "object",
    properties: { a: property },
    $defs: { Name: { type: "string" } },
  });
  assert.match(
    refused(withProperty({ $ref: "https://example.com/schema.json" }))[0] ?? "",
    /"\$ref" is not supported unless it names a definition of the root/,
  );
  assert.match(
    refused(withProperty({ $ref: "#/properties/b" }))[0] ?? "",
    /"\$ref" is not supported unless/,
  );
  assert.match(refused(withProperty({ $ref: "#/$defs/Other" }))[0] ?? "", /which is not defined/);
  assert.match(
    refused(withProperty({ $ref: "#/$defs/Name", minLength: 2 }))[0] ?? "",
    /stands beside "minLength"/,
  );
  // Near miss: the same reference with an annotation beside it is inlined.
  assert.deepEqual(
    (accepted(withProperty({ $ref: "#/$defs/Name", description: "A name" })).properties as Record<
      string,
      unknown
    >).a,
    { type: "string", description: "A name" },
  );
});

Deno.test("checkSchemaSubset refuses a schema that grows past the bound when its $refs are inlined", () => {
  // Each level uses the one below twice: 2^n copies once inlined.
  const definitions: Record<string, JsonSchema> = { L0: { type: "string" } };
  for (let level = 1; level <= 12; level += 1) {
    definitions[`L${level}`] = {
      type: "object",
      properties: { a: { $ref: `#/$defs/L${level - 1}` }, b: { $ref: `#/$defs/L${level - 1}` } },
    };
  }
  const problems = refused({
    type: "object",
    properties: { top: { $ref: "#/$defs/L12" } },
    $defs: definitions,
  });
  assert.deepEqual(problems, [
    `at "/": inlining its "$ref"s makes it larger than ${MAX_INLINED_SCHEMA_NODES} schemas (a ` +
    "definition used many times over)",
  ]);
  // Near miss: six levels (127 schemas) are inlined.
  accepted({ type: "object", properties: { top: { $ref: "#/$defs/L6" } }, $defs: definitions });
});

Deno.test("checkSchemaSubset turns a nullable union into a type list when a server writes one", () => {
  // As Playwright MCP's browser_emulate_media and GitHub MCP's issue_write write them.
  const schema = accepted({
    type: "object",
    properties: {
      colorScheme: {
        description: "Emulates the prefers-color-scheme media feature",
        anyOf: [{ type: "string", enum: ["light", "dark"] }, { type: "null" }],
      },
      issueType: { oneOf: [{ type: "null" }, { type: "string", minLength: 1 }] },
      fixed: { anyOf: [{ const: "yes", type: "string" }, { type: "null" }] },
    },
    additionalProperties: false,
  });
  const properties = schema.properties as Record<string, JsonSchema>;
  assert.deepEqual(properties.colorScheme, {
    type: ["string", "null"],
    enum: ["light", "dark", null],
    description: "Emulates the prefers-color-scheme media feature",
  });
  assert.deepEqual(properties.issueType, { type: ["string", "null"], minLength: 1 });
  assert.deepEqual(properties.fixed, { type: ["string", "null"], enum: ["yes", null] });
  const validate = ajv.compile(schema);
  assert.equal(validate({ colorScheme: null, issueType: null, fixed: null }), true);
  assert.equal(validate({ colorScheme: "dark", issueType: "bug", fixed: "yes" }), true);
  assert.equal(validate({ colorScheme: "blue" }), false);
  assert.equal(validate({ issueType: "" }), false);
});

Deno.test("checkSchemaSubset refuses a union of two non-null schemas when a server writes one", () => {
  // As GitHub MCP's update_issue_assignees writes its items: a name, or an object.
  const problems = refused({
    type: "object",
    properties: {
      assignees: {
        type: "array",
        items: {
          oneOf: [
            { type: "string" },
            { type: "object", properties: { login: { type: "string" } } },
          ],
        },
      },
    },
  });
  assert.match(problems[0] ?? "", /at "\/properties\/assignees\/items": "oneOf" is not supported/);
  // A nullable union with more beside it than annotations is not rewritten either.
  assert.match(
    refused({
      type: "object",
      properties: { a: { anyOf: [{ type: "string" }, { type: "null" }], minLength: 1 } },
    })[0] ?? "",
    /"anyOf" is not supported/,
  );
});

Deno.test("checkSchemaSubset accepts a list of scalar types and refuses object with array", () => {
  const schema = accepted({
    type: "object",
    properties: { value: { type: ["string", "number", "boolean"], minLength: 1, maximum: 9 } },
  });
  const validate = ajv.compile(schema);
  assert.equal(validate({ value: true }), true);
  assert.equal(validate({ value: 10 }), false);
  assert.equal(validate({ value: null }), false);
  for (const type of [["object", "array"], ["null"], [], ["string", "string"], ["text"]]) {
    assert.match(
      refused({ type: "object", properties: { value: { type } } })[0] ?? "",
      /"type" must be one of/,
      JSON.stringify(type),
    );
  }
  // A type list holding object closes it like a plain object.
  const nullableObject = accepted({
    type: "object",
    properties: { o: { type: ["object", "null"], properties: { k: { type: "string" } } } },
  });
  assert.equal(
    (nullableObject.properties as Record<string, JsonSchema>).o?.additionalProperties,
    false,
  );
});
