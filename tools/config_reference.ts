/**
 * Renders docs/CONFIG.md, the reference of every config key, from the published JSON Schema (so
 * it cannot drift from the code: `deno task schemas` writes it, a test compares it).
 *
 * @module
 */

type SchemaNode = {
  type?: string | string[];
  description?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  additionalProperties?: boolean | SchemaNode;
};

interface Row {
  key: string;
  type: string;
  description: string;
}

/** The Markdown reference of a config JSON Schema: one table row per key, nested keys dotted. */
export function configReference(schema: SchemaNode): string {
  const rows: Row[] = [];
  walk(schema, "", rows);
  const escape = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");
  return [
    "# Config reference",
    "",
    "Generated from the config schema by `deno task schemas` (docs/config.schema.json); do not",
    "edit by hand. Paths are relative to the config file's folder. Unknown keys are errors.",
    "",
    "| Key | Type | Meaning |",
    "| --- | --- | --- |",
    ...rows.map((row) => `| \`${row.key}\` | ${escape(row.type)} | ${escape(row.description)} |`),
    "",
  ].join("\n");
}

function walk(node: SchemaNode, path: string, rows: Row[], variant = ""): void {
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    if (key === "$schema") continue;
    const childPath = path === "" ? key : `${path}.${key}`;
    const variants = child.oneOf ?? child.anyOf ?? [];
    rows.push({ key: childPath, type: typeOf(child), description: descriptionOf(child, variant) });
    for (const option of variants) {
      const tag = discriminator(option);
      if (option.properties !== undefined) walk(option, childPath, rows, tag);
    }
    if (child.properties !== undefined) walk(child, childPath, rows);
    if (child.items?.properties !== undefined) walk(child.items, `${childPath}[]`, rows);
    // A map of objects (`agents`): its entries' keys under `<id>`.
    const entry = child.additionalProperties;
    if (typeof entry === "object" && entry.properties !== undefined) {
      walk(entry, `${childPath}.<id>`, rows);
    }
  }
}

/** `provider: "openai"` for a variant of a tagged union, from its first constant property. */
function discriminator(node: SchemaNode): string {
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    if (child.const !== undefined) return `${key}: ${JSON.stringify(child.const)}`;
  }
  return "";
}

function typeOf(node: SchemaNode): string {
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (node.enum !== undefined) return node.enum.map((value) => JSON.stringify(value)).join(" / ");
  const variants = node.oneOf ?? node.anyOf;
  if (variants !== undefined) return [...new Set(variants.map(typeOf))].join(" or ");
  const type = Array.isArray(node.type) ? node.type.join(" or ") : node.type ?? "any";
  if (type === "array" && node.items !== undefined) return `array of ${typeOf(node.items)}`;
  // zod's int() bounds are the safe-integer range: no bound worth printing.
  const minimum = Math.abs(node.minimum ?? 0) >= Number.MAX_SAFE_INTEGER ? undefined : node.minimum;
  const maximum = Math.abs(node.maximum ?? 0) >= Number.MAX_SAFE_INTEGER ? undefined : node.maximum;
  const range = minimum !== undefined || maximum !== undefined
    ? ` ${minimum ?? ""}…${maximum ?? ""}`
    : "";
  return `${type}${range}`;
}

function descriptionOf(node: SchemaNode, variant: string): string {
  const text = node.description ?? "";
  return variant === "" ? text : `(${variant}) ${text}`.trim();
}
