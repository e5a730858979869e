/**
 * OpenAI strict mode for function tools: the standard transform of a tool's input schema, the
 * check of what strict mode cannot express, and the way back for the model's arguments.
 *
 * The transform: every property becomes required, and a property that was optional gets `"null"`
 * added to its type (and to its `enum`), with "Null for the default (…)" or "Null to leave it out"
 * added to its description; every object gets `additionalProperties: false`. On the way back,
 * {@linkcode removeOptionalNulls} deletes the `null` of every property that was optional and whose
 * own schema does not allow null, so the runtime validates the arguments against the tool's
 * original schema.
 *
 * Keywords strict mode does not support but that only narrow values (`minLength`, `maxLength`,
 * `uniqueItems`) or only annotate (`default`, `examples`, `$comment`, `$id`, `$schema`) are left
 * out of the sent schema; the runtime still checks the narrowing ones (`invalid_arguments`, which
 * the model can correct), and their meaning is added to the description ("Length: 1 to 4096
 * characters."). Anything else strict mode cannot express is a problem reported before the run.
 *
 * Source of the supported keywords, formats and limits: OpenAI API docs, "Structured model
 * outputs", section "Supported schemas"
 * (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas), which strict
 * function calling shares (https://platform.openai.com/docs/guides/function-calling, "Strict
 * mode"); figures as documented in February 2026 (the page's baseline as captured by
 * https://jsonschemaprofiles.unitvectorylabs.com/schemas/openai). Earlier revisions of that page
 * allowed 100 properties and 5 levels of nesting; these are the current ones.
 *
 * @module
 */

import type { JsonSchema } from "../../tools/mod.ts";

/** Strict mode's documented size limits for one function's parameters schema. */
export const STRICT_MODE_LIMITS: Readonly<{
  /** Object nesting levels; the root object is level 1, each object inside it one more. */
  max_object_depth: number;
  /** Property definitions in the whole schema, at every level. */
  max_properties: number;
  /** Characters of all property names, enum values and const values together. */
  max_total_string_length: number;
  /** Enum values in the whole schema. */
  max_enum_values: number;
  /** A string enum with more values than this ... */
  large_enum_values: number;
  /** ... may hold at most this many characters in all its values together. */
  large_enum_max_length: number;
}> = Object.freeze({
  max_object_depth: 10,
  max_properties: 5000,
  max_total_string_length: 120_000,
  max_enum_values: 1000,
  large_enum_values: 250,
  large_enum_max_length: 15_000,
});

/** The string `format` values strict mode supports. */
export const STRICT_MODE_FORMATS: readonly string[] = Object.freeze([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);

const TYPES = new Set(["object", "string", "number", "integer", "boolean", "array", "null"]);
const ANY_TYPE_KEYWORDS = new Set(["type", "description", "title", "enum", "const"]);
const NUMBER_KEYWORDS = [
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
];
const KEYWORDS_BY_TYPE: Record<string, readonly string[]> = {
  object: ["properties", "required", "additionalProperties"],
  string: ["pattern", "format"],
  number: NUMBER_KEYWORDS,
  integer: NUMBER_KEYWORDS,
  array: ["items", "minItems", "maxItems"],
  boolean: [],
  null: [],
};
/** Left out of the sent schema: the runtime still validates the original. */
const DROPPED_KEYWORDS = new Set([
  "minLength",
  "maxLength",
  "uniqueItems",
  "default",
  "examples",
  "$comment",
  "$id",
  "$schema",
]);

/** What {@linkcode toStrictSchema} produced. */
export interface StrictSchemaResult {
  /** The schema to send with `strict: true`; meaningful only when `problems` is empty. */
  schema: JsonSchema;
  /**
   * What strict mode cannot express, each as `<where>: <reason>; <what to change>` with `<where>`
   * being `its input schema` or `property "edits[].old" of its input schema`.
   */
  problems: string[];
}

interface Walk {
  problems: string[];
  properties: number;
  enumValues: number;
  stringLength: number;
  depthReported: boolean;
}

/**
 * Transforms a tool's input schema for OpenAI strict mode and lists what it cannot express.
 *
 * @param schema The tool's `input_schema` (not changed).
 * @returns The strict schema and the problems; see {@linkcode StrictSchemaResult}.
 * @example
 * ```ts
 * import { toStrictSchema } from "./_strict_schema.ts";
 * const { schema, problems } = toStrictSchema({
 *   type: "object",
 *   properties: { path: { type: "string" }, limit: { type: "integer", default: 200 } },
 *   required: ["path"],
 * });
 * console.assert(problems.length === 0);
 * console.assert(JSON.stringify(schema.required) === '["path","limit"]');
 * ```
 */
export function toStrictSchema(schema: JsonSchema): StrictSchemaResult {
  const walk: Walk = {
    problems: [],
    properties: 0,
    enumValues: 0,
    stringLength: 0,
    depthReported: false,
  };
  if (schema.type !== "object") {
    walk.problems.push(
      `its input schema has "type": ${JSON.stringify(schema.type ?? null)}; strict mode needs ` +
        `the root to be "type": "object"`,
    );
    return { schema, problems: walk.problems };
  }
  const strict = transform(schema, "", 0, walk);
  const limits = STRICT_MODE_LIMITS;
  if (walk.properties > limits.max_properties) {
    walk.problems.push(
      `its input schema has ${walk.properties} properties; strict mode allows at most ` +
        `${limits.max_properties} in one schema (split the tool)`,
    );
  }
  if (walk.enumValues > limits.max_enum_values) {
    walk.problems.push(
      `its input schema has ${walk.enumValues} enum values; strict mode allows at most ` +
        `${limits.max_enum_values} in one schema (shorten the enums or use a plain string)`,
    );
  }
  if (walk.stringLength > limits.max_total_string_length) {
    walk.problems.push(
      `the property names, enum and const values of its input schema add up to ` +
        `${walk.stringLength} characters; strict mode allows at most ` +
        `${limits.max_total_string_length}`,
    );
  }
  return { schema: strict, problems: walk.problems };
}

/**
 * The way back from strict mode: deletes, at every level, the `null` value of each property that
 * the original schema does not require and whose own schema does not allow null.
 *
 * @param argumentsText The arguments JSON text the model sent.
 * @param schema The tool's original `input_schema`.
 * @returns The text with those nulls removed; the same text when there were none, or when it is
 *   not a JSON object (the runtime then reports `invalid_arguments`).
 * @example
 * ```ts
 * import { removeOptionalNulls } from "./_strict_schema.ts";
 * const schema = {
 *   type: "object",
 *   properties: { path: { type: "string" }, limit: { type: "integer" } },
 *   required: ["path"],
 * };
 * console.assert(removeOptionalNulls('{"path":"a","limit":null}', schema) === '{"path":"a"}');
 * ```
 */
export function removeOptionalNulls(argumentsText: string, schema: JsonSchema): string {
  let value: unknown;
  try {
    value = JSON.parse(argumentsText);
  } catch {
    return argumentsText;
  }
  if (!isRecord(value)) return argumentsText;
  return stripNulls(value, schema) > 0 ? JSON.stringify(value) : argumentsText;
}

/** Deletes the optional nulls of `value` in place; returns how many were deleted. */
function stripNulls(value: unknown, schema: unknown): number {
  if (!isRecord(schema)) return 0;
  let removed = 0;
  if (isRecord(value) && isRecord(schema.properties)) {
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(schema.properties, key)) continue;
      const child = schema.properties[key];
      if (value[key] === null && !required.includes(key) && !allowsNull(child)) {
        delete value[key];
        removed += 1;
      } else {
        removed += stripNulls(value[key], child);
      }
    }
  } else if (Array.isArray(value) && isRecord(schema.items)) {
    for (const item of value) removed += stripNulls(item, schema.items);
  }
  return removed;
}

function transform(node: unknown, path: string, depth: number, walk: Walk): JsonSchema {
  const where = path === "" ? "its input schema" : `property "${path}" of its input schema`;
  if (!isRecord(node)) {
    walk.problems.push(`${where} is not a JSON Schema object; strict mode needs one`);
    return {};
  }
  const types = typesOf(node.type);
  if (types === null) {
    walk.problems.push(
      `${where} has "type": ${JSON.stringify(node.type)}; strict mode supports ` +
        `${[...TYPES].map((name) => `"${name}"`).join(", ")}`,
    );
    return { ...node };
  }
  if (types.length === 0 && !("enum" in node) && !("const" in node)) {
    walk.problems.push(`${where} has no "type"; strict mode needs one (add "type")`);
  }
  const allowed = new Set([
    ...ANY_TYPE_KEYWORDS,
    ...types.flatMap((type) => KEYWORDS_BY_TYPE[type] ?? []),
  ]);
  const strict: JsonSchema = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (allowed.has(keyword)) {
      strict[keyword] = value;
    } else if (!DROPPED_KEYWORDS.has(keyword)) {
      walk.problems.push(
        `${where} uses "${keyword}", which strict mode does not support; remove it, or turn ` +
          `strict mode off ("model.strict": false)`,
      );
    }
  }
  const notes = droppedNotes(node);
  countValues(node, where, walk);
  if (typeof node.format === "string" && !STRICT_MODE_FORMATS.includes(node.format)) {
    walk.problems.push(
      `${where} uses format "${node.format}", which strict mode does not support; remove ` +
        `"format" or use one of ${STRICT_MODE_FORMATS.map((name) => `"${name}"`).join(", ")}`,
    );
  }
  if (types.includes("object")) transformObject(node, strict, path, where, depth + 1, walk);
  if (types.includes("array")) {
    if (!isRecord(node.items)) {
      walk.problems.push(
        `${where} is an array without an "items" schema; strict mode needs one (add "items")`,
      );
    } else {
      strict.items = transform(node.items, `${path}[]`, depth, walk);
    }
  }
  if (notes.length > 0) strict.description = describe(strict.description, notes);
  return strict;
}

function transformObject(
  node: JsonSchema,
  strict: JsonSchema,
  path: string,
  where: string,
  depth: number,
  walk: Walk,
): void {
  const limit = STRICT_MODE_LIMITS.max_object_depth;
  if (depth > limit && !walk.depthReported) {
    walk.depthReported = true;
    walk.problems.push(
      `${where} is an object nested ${depth} levels deep; strict mode allows at most ${limit} ` +
        `levels (flatten the input)`,
    );
  }
  if ("additionalProperties" in node && node.additionalProperties !== false) {
    walk.problems.push(
      `${where} allows additional properties; strict mode needs "additionalProperties": false ` +
        `(declare every property)`,
    );
  }
  strict.additionalProperties = false;
  const properties = node.properties ?? {};
  if (!isRecord(properties)) {
    walk.problems.push(`${where} has "properties" that is not an object of schemas`);
    return;
  }
  const required = Array.isArray(node.required) ? node.required : [];
  const names = Object.keys(properties);
  const transformed: Record<string, JsonSchema> = {};
  for (const name of names) {
    walk.properties += 1;
    walk.stringLength += name.length;
    const original = properties[name];
    const child = transform(original, path === "" ? name : `${path}.${name}`, depth, walk);
    transformed[name] = required.includes(name) || !isRecord(original)
      ? child
      : nullable(child, original);
  }
  strict.properties = transformed;
  strict.required = names;
}

/** An optional property's strict form: null allowed (and meaning "not given"). */
function nullable(strict: JsonSchema, original: JsonSchema): JsonSchema {
  if (allowsNull(original)) return strict;
  const result = { ...strict };
  if (typeof result.type === "string") result.type = [result.type, "null"];
  else if (Array.isArray(result.type)) result.type = [...result.type, "null"];
  if (Array.isArray(result.enum)) result.enum = [...result.enum, null];
  if ("const" in result) {
    result.enum = [result.const, null];
    delete result.const;
  }
  const note = "default" in original
    ? `Null for the default (${JSON.stringify(original.default)}).`
    : "Null to leave it out.";
  result.description = describe(result.description, [note]);
  return result;
}

/** What the dropped narrowing keywords meant, for the description. */
function droppedNotes(node: JsonSchema): string[] {
  const notes: string[] = [];
  const min = typeof node.minLength === "number" && node.minLength > 0 ? node.minLength : null;
  const max = typeof node.maxLength === "number" ? node.maxLength : null;
  if (min !== null && max !== null) notes.push(`Length: ${min} to ${max} characters.`);
  else if (min !== null) notes.push(`At least ${min} characters.`);
  else if (max !== null) notes.push(`At most ${max} characters.`);
  if (node.uniqueItems === true) notes.push("Items must be unique.");
  return notes;
}

function countValues(node: JsonSchema, where: string, walk: Walk): void {
  if ("const" in node) walk.stringLength += valueLength(node.const);
  if (!Array.isArray(node.enum)) return;
  walk.enumValues += node.enum.length;
  const length = node.enum.reduce((sum: number, value) => sum + valueLength(value), 0);
  walk.stringLength += length;
  const limits = STRICT_MODE_LIMITS;
  const strings = node.enum.every((value) => typeof value === "string");
  if (
    strings && node.enum.length > limits.large_enum_values && length > limits.large_enum_max_length
  ) {
    walk.problems.push(
      `${where} has a string enum of ${node.enum.length} values and ${length} characters; ` +
        `strict mode allows at most ${limits.large_enum_max_length} characters in an enum of ` +
        `more than ${limits.large_enum_values} values`,
    );
  }
}

function valueLength(value: unknown): number {
  return typeof value === "string" ? value.length : String(JSON.stringify(value)).length;
}

/** The description with notes appended as sentences. */
function describe(description: unknown, notes: string[]): string {
  const text = typeof description === "string" ? description.trim() : "";
  if (text === "") return notes.join(" ");
  return [/[.!?]$/.test(text) ? text : `${text}.`, ...notes].join(" ");
}

/** The schema's types as a list (`[]` when it names none), or null when `type` is malformed. */
function typesOf(type: unknown): string[] | null {
  if (type === undefined) return [];
  const list = Array.isArray(type) ? type : [type];
  return list.every((name) => typeof name === "string" && TYPES.has(name))
    ? list as string[]
    : null;
}

function allowsNull(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  const type = schema.type;
  return type === "null" || (Array.isArray(type) && type.includes("null")) ||
    (Array.isArray(schema.enum) && schema.enum.includes(null)) ||
    ("const" in schema && schema.const === null);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
