/**
 * Local `$ref`s of a tool's input schema, inlined: `{"$ref": "#/$defs/Point"}` is replaced by a copy
 * of the root's `$defs.Point` (or `definitions.Point`, draft-07's spelling), and the root's
 * `$defs`/`definitions` are removed. This is what Pydantic (Python MCP servers), zod's
 * `toJSONSchema` for shared schemas and the Go SDK emit for nested types; the inlined schema means
 * the same and every provider and the strict-mode transform read it without reference resolution.
 *
 * Refused, each with its place: a `$ref` that is not a string naming a root definition (remote
 * references, other JSON pointers), a recursive definition (it cannot be inlined), a `$ref` with
 * sibling keywords other than annotations, and a schema that grows past
 * {@linkcode MAX_INLINED_SCHEMA_NODES} schema objects once inlined (a definition used many times at
 * many levels grows exponentially).
 *
 * @module
 */

import type { JsonSchema } from "./tool_definition.ts";

/** Most schema objects an input schema may hold once its `$ref`s are inlined. */
export const MAX_INLINED_SCHEMA_NODES = 2_000;

/** Keywords that may stand beside a `$ref` (they annotate; the definition's own are replaced). */
const REFERENCE_ANNOTATIONS = new Set(["description", "title", "default", "examples", "$comment"]);

/** The prefixes of references to the root's definitions, with the keyword that holds them. */
const DEFINITION_PREFIXES = [
  { prefix: "#/$defs/", keyword: "$defs" },
  { prefix: "#/definitions/", keyword: "definitions" },
] as const;

interface Expansion {
  definitions: Record<string, Record<string, unknown>>;
  problems: string[];
  nodes: number;
  tooLarge: boolean;
}

/**
 * Inlines the local `$ref`s of `schema` (not changed).
 *
 * @param schema A tool's input schema.
 * @returns The schema without `$ref`, `$defs` or `definitions` at its root (the same object when it
 *   had none), or the problems as `at "<pointer>": <reason>` strings.
 * @example
 * ```ts ignore
 * const inlined = inlineLocalReferences({
 *   type: "object",
 *   properties: { at: { $ref: "#/$defs/Point" } },
 *   $defs: { Point: { type: "object", properties: { x: { type: "number" } } } },
 * });
 * // { schema: { type: "object", properties: { at: { type: "object", properties: { x: … } } } } }
 * ```
 */
export function inlineLocalReferences(
  schema: JsonSchema,
): { schema: JsonSchema } | { problems: string[] } {
  if (
    !JSON.stringify(schema).includes('"$ref"') && !("$defs" in schema || "definitions" in schema)
  ) {
    return { schema };
  }
  const expansion: Expansion = { definitions: {}, problems: [], nodes: 0, tooLarge: false };
  const root: JsonSchema = { ...schema };
  for (const { keyword } of DEFINITION_PREFIXES) {
    const held = root[keyword];
    delete root[keyword];
    if (held === undefined) continue;
    if (!isRecord(held)) {
      expansion.problems.push(`at "/${keyword}": "${keyword}" must be an object of schemas`);
      continue;
    }
    for (const [name, definition] of Object.entries(held)) {
      if (isRecord(definition)) expansion.definitions[`${keyword}/${name}`] = definition;
    }
  }
  const inlined = expand(root, "", [], expansion) as JsonSchema;
  if (expansion.tooLarge) {
    expansion.problems.push(
      `at "/": inlining its "$ref"s makes it larger than ${MAX_INLINED_SCHEMA_NODES} schemas ` +
        `(a definition used many times over)`,
    );
  }
  return expansion.problems.length > 0 ? { problems: expansion.problems } : { schema: inlined };
}

/** A copy of `node` with every `$ref` replaced by its definition; `stack` holds the open ones. */
function expand(node: unknown, pointer: string, stack: string[], expansion: Expansion): unknown {
  if (Array.isArray(node)) {
    return node.map((item, index) => expand(item, `${pointer}/${index}`, stack, expansion));
  }
  if (!isRecord(node)) return node;
  expansion.nodes += 1;
  if (expansion.nodes > MAX_INLINED_SCHEMA_NODES) {
    expansion.tooLarge = true;
    return {};
  }
  const where = `at "${pointer || "/"}"`;
  if ("$ref" in node) {
    const target = definitionOf(node.$ref);
    if (target === null) {
      expansion.problems.push(
        `${where}: "$ref" is not supported unless it names a definition of the root ` +
          `("#/$defs/<name>" or "#/definitions/<name>"): ${JSON.stringify(node.$ref)}`,
      );
      return node;
    }
    const definition = expansion.definitions[target];
    if (definition === undefined) {
      expansion.problems.push(`${where}: "$ref" names "${node.$ref}", which is not defined`);
      return node;
    }
    if (stack.includes(target)) {
      expansion.problems.push(
        `${where}: "$ref" "${node.$ref}" refers back to itself (a recursive schema cannot be ` +
          `inlined; flatten the input)`,
      );
      return node;
    }
    const siblings = Object.keys(node).filter((key) => key !== "$ref");
    const other = siblings.filter((key) => !REFERENCE_ANNOTATIONS.has(key));
    if (other.length > 0) {
      expansion.problems.push(
        `${where}: "$ref" stands beside ${other.map((key) => `"${key}"`).join(", ")} (only ` +
          `annotations may)`,
      );
      return node;
    }
    const resolved = expand(definition, pointer, [...stack, target], expansion) as JsonSchema;
    const annotations = Object.fromEntries(siblings.map((key) => [key, node[key]]));
    return { ...resolved, ...annotations };
  }
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (VALUE_KEYWORDS.has(key)) {
      copy[key] = value; // values, not schemas: copied as they are
    } else if (NAMED_SCHEMAS_KEYWORDS.has(key) && isRecord(value)) {
      copy[key] = Object.fromEntries(
        Object.entries(value).map((
          [name, child],
        ) => [name, expand(child, `${pointer}/${key}/${name}`, stack, expansion)]),
      );
    } else {
      copy[key] = expand(value, `${pointer}/${key}`, stack, expansion);
    }
  }
  return copy;
}

/** Keywords whose value is data (not a schema). */
const VALUE_KEYWORDS = new Set(["enum", "const", "default", "examples", "required"]);
/** Keywords whose value maps names (which may be any word, `enum` included) to schemas. */
const NAMED_SCHEMAS_KEYWORDS = new Set([
  "properties",
  "patternProperties",
  "dependentSchemas",
  "$defs",
  "definitions",
]);

/** `$defs/<name>` or `definitions/<name>` for a reference to a root definition, else null. */
function definitionOf(reference: unknown): string | null {
  if (typeof reference !== "string") return null;
  for (const { prefix, keyword } of DEFINITION_PREFIXES) {
    if (!reference.startsWith(prefix)) continue;
    const name = reference.slice(prefix.length);
    if (name === "" || name.includes("/")) return null;
    try {
      return `${keyword}/${decodeURIComponent(name).replaceAll("~1", "/").replaceAll("~0", "~")}`;
    } catch {
      return null; // a malformed percent-encoding
    }
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
