/**
 * The JSON Schema subset tool inputs may use. Providers (OpenAI strict mode, Anthropic, MCP clients)
 * agree on this subset; the rest (general `oneOf`/`anyOf`, `allOf`, conditionals…) is refused at
 * registration so a tool never fails mid-run on a provider that cannot express it.
 *
 * Three forms that MCP servers emit are accepted by rewriting them into the subset, with the same
 * meaning: local `$ref`s to the root's `$defs`/`definitions` are inlined (`_schema_references.ts`:
 * no recursion, at most 2,000 schemas once inlined); a nullable union, `anyOf`/`oneOf` of one
 * schema and `{"type": "null"}`, becomes that schema with `"null"` added to its `type` (and its
 * `enum`); and `type` may be a list of types (`["string", "null"]`,
 * `["string", "number", "boolean"]`) holding at most one of `object` and `array`.
 *
 * @module
 */

import { inlineLocalReferences } from "./_schema_references.ts";
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

/**
 * Keywords refused with a pointed message: composition (but a nullable union), references that are
 * not inlined (nested `$defs`), and conditionals.
 */
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
 * Checks `schema` against the supported subset and returns a closed copy: local `$ref`s inlined,
 * nullable unions turned into a `type` list, and every object given `additionalProperties: false`
 * (unknown keys are invalid arguments).
 *
 * @param schema The tool's `input_schema` (not changed); its top level must be `type: "object"`.
 * @returns the closed schema, or the list of problems as `at "/properties/x": reason` strings.
 * @example
 * ```ts
 * import { checkSchemaSubset } from "./schema_subset.ts";
 * const checked = checkSchemaSubset({
 *   type: "object",
 *   properties: { label: { anyOf: [{ type: "string" }, { type: "null" }] } },
 * });
 * console.assert("schema" in checked);
 * const refused = checkSchemaSubset({
 *   type: "object",
 *   properties: { id: { oneOf: [{ type: "string" }, { type: "integer" }] } },
 * });
 * console.assert("problems" in refused);
 * ```
 */
export function checkSchemaSubset(
  schema: JsonSchema,
): { schema: JsonSchema } | { problems: string[] } {
  const inlined = inlineLocalReferences(schema);
  if ("problems" in inlined) return inlined;
  const problems: string[] = [];
  if (inlined.schema.type !== "object") {
    problems.push(`at "/": the top level must be "type": "object"`);
  }
  const closed = visit(inlined.schema, "", problems);
  return problems.length > 0 ? { problems } : { schema: closed };
}

function visit(node: unknown, pointer: string, problems: string[]): JsonSchema {
  const where = `at "${pointer || "/"}"`;
  if (typeof node !== "object" || node === null || Array.isArray(node)) {
    problems.push(`${where}: a schema must be an object`);
    return {};
  }
  const schema = nullableForm({ ...(node as JsonSchema) });
  for (const keyword of REFUSED_KEYWORDS) {
    if (keyword in schema) {
      problems.push(
        `${where}: "${keyword}" is not supported (use a plain object, enum or separate tools)`,
      );
    }
  }
  const types = typesOf(schema.type);
  if (types === null) {
    problems.push(
      `${where}: "type" must be one of ${SUPPORTED_TYPES.map((name) => `"${name}"`).join(", ")}` +
        `, or a list of them (and "null") with at most one of "object" and "array"`,
    );
    return schema;
  }
  const allowed = new Set(types.flatMap((type) => [...(KEYWORDS_BY_TYPE[type] ?? [])]));
  for (const keyword of Object.keys(schema)) {
    if (keyword === "type" || ANNOTATION_KEYWORDS.has(keyword) || allowed.has(keyword)) continue;
    if ((REFUSED_KEYWORDS as readonly string[]).includes(keyword)) continue;
    problems.push(
      `${where}: "${keyword}" is not supported for type ${JSON.stringify(schema.type)}`,
    );
  }
  delete schema.$schema;
  if (types.includes("object")) {
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
  if (types.includes("array")) {
    if (schema.items === undefined) problems.push(`${where}: arrays must declare "items"`);
    else schema.items = visit(schema.items, `${pointer}/items`, problems);
  }
  return schema;
}

/**
 * The types `type` names: one supported type, or a list of distinct supported types and `"null"`
 * with at least one that is not `"null"` and at most one of `"object"` and `"array"`; else null.
 */
function typesOf(type: unknown): string[] | null {
  const supported = SUPPORTED_TYPES as readonly string[];
  if (typeof type === "string") return supported.includes(type) ? [type] : null;
  if (!Array.isArray(type) || type.length === 0) return null;
  const names = type.filter((name): name is string => typeof name === "string");
  if (names.length !== type.length || new Set(names).size !== names.length) return null;
  if (names.some((name) => name !== "null" && !supported.includes(name))) return null;
  const containers = names.filter((name) => name === "object" || name === "array").length;
  return names.some((name) => name !== "null") && containers <= 1 ? names : null;
}

/**
 * A nullable union, `anyOf` or `oneOf` of one schema and `{"type": "null"}` (in either order),
 * as that schema with `"null"` added to its `type` (and `enum`, or `const` as an `enum`) and the
 * union's annotations over its own; any other schema unchanged.
 */
function nullableForm(schema: JsonSchema): JsonSchema {
  const keyword = "anyOf" in schema ? "anyOf" : "oneOf" in schema ? "oneOf" : null;
  if (keyword === null) return schema;
  const branches = schema[keyword];
  if (!Array.isArray(branches) || branches.length !== 2) return schema;
  const isNull = (branch: unknown) =>
    typeof branch === "object" && branch !== null && (branch as JsonSchema).type === "null" &&
    Object.keys(branch).every((key) => key === "type" || ANNOTATION_KEYWORDS.has(key));
  const nulls = branches.filter(isNull).length;
  const other = branches.find((branch) => !isNull(branch));
  if (nulls !== 1 || typeof other !== "object" || other === null || Array.isArray(other)) {
    return schema;
  }
  const outer = Object.keys(schema).filter((key) => key !== keyword);
  if (outer.some((key) => !ANNOTATION_KEYWORDS.has(key))) return schema;
  const inner = { ...(other as JsonSchema) };
  const types = typesOf(inner.type);
  if (types === null) return schema;
  const result: JsonSchema = {
    ...inner,
    type: types.includes("null") ? types : [...types, "null"],
  };
  if (Array.isArray(inner.enum) && !inner.enum.includes(null)) result.enum = [...inner.enum, null];
  if ("const" in inner) {
    result.enum = [inner.const, null];
    delete result.const;
  }
  for (const key of outer) result[key] = schema[key];
  return result;
}
