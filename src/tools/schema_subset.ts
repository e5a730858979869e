/**
 * The JSON Schema subset tool inputs may use. Providers (OpenAI strict mode, Anthropic, MCP clients)
 * agree on this subset; the rest (`oneOf`, `$ref`, conditionals…) is refused at registration so a
 * tool never fails mid-run on a provider that cannot express it.
 *
 * @module
 */

import type { JsonSchema } from "./tool_definition.ts";

/** Types a schema may name (JSON Schema draft 2020-12 `type`, without `null`). */
export const SUPPORTED_TYPES = [
  "object",
  "string",
  "number",
  "integer",
  "boolean",
  "array",
] as const;

/** Keywords refused with a pointed message: composition, references and conditionals. */
export const REFUSED_KEYWORDS = [
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "$ref",
  "$defs",
  "definitions",
  "$dynamicRef",
  "if",
  "then",
  "else",
  "patternProperties",
  "dependentSchemas",
  "dependentRequired",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "prefixItems",
  "contains",
] as const;

const ANNOTATION_KEYWORDS = new Set([
  "description",
  "title",
  "default",
  "examples",
  "$schema",
  "$id",
  "$comment",
]);
const KEYWORDS_BY_TYPE: Record<string, Set<string>> = {
  object: new Set(["properties", "required", "additionalProperties"]),
  string: new Set(["enum", "const", "minLength", "maxLength", "pattern", "format"]),
  number: new Set([
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
  ]),
  integer: new Set([
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
  ]),
  boolean: new Set(["enum", "const"]),
  array: new Set(["items", "minItems", "maxItems", "uniqueItems"]),
};

/**
 * Checks `schema` against the supported subset and returns a closed copy: every object gets
 * `additionalProperties: false` (unknown keys are invalid arguments).
 *
 * @param schema The tool's `input_schema`; its top level must be `type: "object"`.
 * @returns the closed schema, or the list of problems as `at "/properties/x": reason` strings.
 */
export function checkSchemaSubset(
  schema: JsonSchema,
): { schema: JsonSchema } | { problems: string[] } {
  const problems: string[] = [];
  if (schema.type !== "object") problems.push(`at "/": the top level must be "type": "object"`);
  const closed = visit(schema, "", problems);
  return problems.length > 0 ? { problems } : { schema: closed };
}

function visit(node: unknown, pointer: string, problems: string[]): JsonSchema {
  const where = `at "${pointer || "/"}"`;
  if (typeof node !== "object" || node === null || Array.isArray(node)) {
    problems.push(`${where}: a schema must be an object`);
    return {};
  }
  const schema = { ...(node as JsonSchema) };
  for (const keyword of REFUSED_KEYWORDS) {
    if (keyword in schema) {
      problems.push(
        `${where}: "${keyword}" is not supported (use a plain object, enum or separate tools)`,
      );
    }
  }
  const type = schema.type;
  if (typeof type !== "string" || !(SUPPORTED_TYPES as readonly string[]).includes(type)) {
    problems.push(
      `${where}: "type" must be one of ${SUPPORTED_TYPES.map((name) => `"${name}"`).join(", ")}`,
    );
    return schema;
  }
  const allowed = KEYWORDS_BY_TYPE[type] as Set<string>;
  for (const keyword of Object.keys(schema)) {
    if (keyword === "type" || ANNOTATION_KEYWORDS.has(keyword) || allowed.has(keyword)) continue;
    if ((REFUSED_KEYWORDS as readonly string[]).includes(keyword)) continue;
    problems.push(`${where}: "${keyword}" is not supported for type "${type}"`);
  }
  delete schema.$schema;
  if (type === "object") {
    if ("additionalProperties" in schema && schema.additionalProperties !== false) {
      problems.push(`${where}: "additionalProperties" must be false (unknown keys are refused)`);
    }
    schema.additionalProperties = false;
    const properties = schema.properties ?? {};
    if (typeof properties !== "object" || properties === null || Array.isArray(properties)) {
      problems.push(`${where}: "properties" must be an object`);
    } else {
      const closed: Record<string, JsonSchema> = {};
      for (const [name, child] of Object.entries(properties)) {
        closed[name] = visit(child, `${pointer}/properties/${name}`, problems);
      }
      schema.properties = closed;
      const required = schema.required ?? [];
      if (
        !Array.isArray(required) ||
        required.some((name) => typeof name !== "string" || !(name in closed))
      ) {
        problems.push(`${where}: "required" must list names of declared properties`);
      }
    }
  }
  if (type === "array") {
    if (schema.items === undefined) problems.push(`${where}: arrays must declare "items"`);
    else schema.items = visit(schema.items, `${pointer}/items`, problems);
  }
  return schema;
}
