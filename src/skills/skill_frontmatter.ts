/**
 * Reads and checks the YAML frontmatter of a `SKILL.md` as the Agent Skills specification
 * (agentskills.io) and its reference validator `skills-ref` do: the text between the first two
 * `---` lines, parsed with the `yaml` package's failsafe schema, so that every scalar is a string
 * (`version: 1.0` gives `"1.0"`, as the reference's strictyaml does), with no tags, anchors or
 * duplicate keys. Lengths count Unicode code points. Where published skills (the anthropics/skills
 * collection) and the clients users know are looser than the spec, loading is too, with a warning
 * the run records: keys outside the spec (`version:`, `author:`) are ignored, and a description
 * over 1,024 characters is kept (up to eight times that). Names, and everything the path guard
 * checks, stay strict. The test data in `tests/testdata/skills_spec/` records the reference's
 * verdict on each edge case and the differences kept on purpose (a BOM is skipped, flow lists are
 * read, metadata values that are mappings or lists become JSON, the two looser rules above).
 *
 * @module
 */

import { type Document, isNode, parseDocument, visit } from "yaml";
import { MAX_SKILL_NAME_LENGTH, skillNameProblem } from "../exec/mod.ts";
import { splitAllowedTools } from "./allowed_tools.ts";

/** Longest skill name, in characters (Unicode code points). */
export const MAX_NAME_LENGTH = MAX_SKILL_NAME_LENGTH;
/** The spec's longest description, in characters (Unicode code points): longer ones warn. */
export const MAX_DESCRIPTION_LENGTH = 1024;
/** Longest description loaded at all, in characters: eight times the spec's (refused above). */
export const MAX_DESCRIPTION_HARD_LENGTH = 8 * MAX_DESCRIPTION_LENGTH;
/** Longest `compatibility` note, in characters (Unicode code points). */
export const MAX_COMPATIBILITY_LENGTH = 500;
/** Most entries in `allowed-tools`. */
export const MAX_ALLOWED_TOOLS = 128;
/** Longest entry in `allowed-tools`, in characters. */
export const MAX_TOOL_PATTERN_LENGTH = 256;

/** The frontmatter keys a `SKILL.md` may use. */
export const FRONTMATTER_KEYS = [
  "name",
  "description",
  "license",
  "compatibility",
  "metadata",
  "allowed-tools",
] as const;

/** The checked frontmatter of a skill. */
export interface SkillFrontmatter {
  /** The name, trimmed and in NFKC, as the reference reads it. */
  name: string;
  description: string;
  /** null when absent or empty. */
  license: string | null;
  /** null when absent or empty. */
  compatibility: string | null;
  /** String → string; `{}` when absent (or not a mapping: then a warning says so). */
  metadata: Record<string, string>;
  /**
   * The `allowed-tools` entries as written: a space- (or comma-) separated string split outside
   * parentheses, or a YAML list; `[]` when absent or empty (no narrowing).
   */
  allowed_tools: string[];
  /** What was accepted but not used, one sentence each (e.g. metadata that is not a mapping). */
  warnings: string[];
}

/** A parsed `SKILL.md`: its frontmatter and the Markdown body after it, or why it is invalid. */
export type SkillDocument =
  | { ok: true; frontmatter: SkillFrontmatter; body: string }
  | { ok: false; reason: string };

/**
 * Splits and checks a `SKILL.md`. The first line must be `---`; the frontmatter ends at the next
 * `---` line. The name must equal `folderName` once both are in NFKC.
 *
 * @param text The file's text (a leading BOM is skipped; CRLF line ends are accepted).
 * @param folderName The skill folder's name.
 * @returns the frontmatter and body, or a reason such as `key "name" must match …` (no prefix).
 * @example
 * ```ts
 * import { parseSkillDocument } from "./skill_frontmatter.ts";
 * const parsed = parseSkillDocument("---\nname: a\ndescription: Does a\n---\n# A\n", "a");
 * if (!parsed.ok) throw new Error(parsed.reason);
 * ```
 */
export function parseSkillDocument(text: string, folderName: string): SkillDocument {
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  if (lines[0]?.replace(/\r$/, "") !== "---") {
    return invalid('the file must start with a "---" line opening the YAML frontmatter');
  }
  const end = lines.findIndex((line, index) => index > 0 && line.replace(/\r$/, "") === "---");
  if (end === -1) return invalid('the YAML frontmatter has no closing "---" line');
  const yamlText = lines.slice(1, end).map((line) => line.replace(/\r$/, "")).join("\n");
  const body = lines.slice(end + 1).join("\n");

  const document = parseDocument(yamlText, {
    schema: "failsafe",
    uniqueKeys: true,
    prettyErrors: false,
  });
  const firstError = document.errors[0] ?? document.warnings[0];
  if (firstError !== undefined) {
    return invalid(`the YAML frontmatter is not valid: ${firstLine(firstError.message)}`);
  }
  if (hasAnchorOrTag(document)) {
    return invalid("the YAML frontmatter is not valid: anchors and tags are not allowed");
  }
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 0 });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return invalid(`the YAML frontmatter is not valid: ${firstLine(message)}`);
  }
  if (!isPlainRecord(data)) return invalid("the YAML frontmatter must be a mapping of keys");
  const checked = checkFrontmatter(data, folderName);
  if (typeof checked === "string") return invalid(checked);
  return { ok: true, frontmatter: checked, body };
}

function checkFrontmatter(
  data: Record<string, unknown>,
  folderName: string,
): SkillFrontmatter | string {
  const known: readonly string[] = FRONTMATTER_KEYS;
  const warnings: string[] = [];
  // Keys outside the spec (`version:`, `author:` as published skills use them) are tolerated as
  // the clients users know tolerate them: ignored, with a warning the run records.
  for (const key of Object.keys(data).filter((key) => !known.includes(key))) {
    warnings.push(
      `key "${clip(key)}" is not in the Agent Skills spec (${
        FRONTMATTER_KEYS.join(", ")
      }): it is ignored`,
    );
  }

  const rawName = data.name;
  if (rawName === undefined) return 'key "name" is missing';
  if (typeof rawName !== "string") return 'key "name" must be a string';
  const name = rawName.trim().normalize("NFKC");
  const nameProblem = skillNameProblem(name);
  if (nameProblem !== null) {
    return `key "name" must be a skill name (letters and digits in lower-case words joined by ` +
      `single hyphens, at most ${MAX_NAME_LENGTH} characters): ${nameProblem}, got ` +
      `"${clip(name)}"`;
  }
  if (name !== folderName.normalize("NFKC")) {
    return `key "name" must equal the folder name "${clip(folderName)}", got "${clip(name)}"`;
  }

  const description = data.description;
  if (description === undefined) return 'key "description" is missing';
  if (typeof description !== "string") return 'key "description" must be a string';
  if (description.trim().length === 0) return 'key "description" must not be empty';
  const descriptionLength = [...description].length;
  if (descriptionLength > MAX_DESCRIPTION_HARD_LENGTH) {
    return `key "description" must be at most ${MAX_DESCRIPTION_HARD_LENGTH} characters long, ` +
      `got ${descriptionLength}`;
  }
  if (descriptionLength > MAX_DESCRIPTION_LENGTH) {
    warnings.push(
      `key "description" is ${descriptionLength} characters long, over the spec's ` +
        `${MAX_DESCRIPTION_LENGTH}: it is kept whole`,
    );
  }

  const license = optionalString(data, "license");
  if (typeof license === "object" && license !== null) return license.reason;
  const compatibility = optionalString(data, "compatibility");
  if (typeof compatibility === "object" && compatibility !== null) return compatibility.reason;
  const compatibilityLength = [...(compatibility ?? "")].length;
  if (compatibilityLength > MAX_COMPATIBILITY_LENGTH) {
    return `key "compatibility" must be at most ${MAX_COMPATIBILITY_LENGTH} characters long, ` +
      `got ${compatibilityLength}`;
  }

  const metadata = checkMetadata(data.metadata, warnings);
  const allowedTools = checkAllowedTools(data["allowed-tools"]);
  if (typeof allowedTools === "string") return allowedTools;

  return {
    name,
    description: description.trim(),
    license,
    compatibility,
    metadata,
    allowed_tools: allowedTools,
    warnings,
  };
}

/** A string key: null when absent or empty (as if absent). */
function optionalString(
  data: Record<string, unknown>,
  key: string,
): string | null | { reason: string } {
  const value = data[key];
  if (value === undefined) return null;
  if (typeof value !== "string") return { reason: `key "${key}" must be a string` };
  return value.trim().length === 0 ? null : value;
}

/**
 * Metadata values become strings, as in the reference (`str(value)`): scalars are strings already
 * (failsafe schema); a nested mapping or list becomes its JSON. Metadata that is not a mapping is
 * ignored with a warning (the reference does not check it).
 */
function checkMetadata(value: unknown, warnings: string[]): Record<string, string> {
  if (value === undefined || value === "") return {};
  if (!isPlainRecord(value)) {
    warnings.push('key "metadata" is not a mapping of strings to strings: it is ignored');
    return {};
  }
  const metadata: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    metadata[key] = typeof entry === "string" ? entry : JSON.stringify(entry);
  }
  return metadata;
}

/**
 * The `allowed-tools` entries: a string split on whitespace and commas outside parentheses, or a
 * YAML list of strings. Absent or empty gives `[]` (no narrowing). What each entry means is
 * decided later (`mapAllowedTools`), where unknown entries warn and are dropped.
 */
function checkAllowedTools(value: unknown): string[] | string {
  if (value === undefined) return [];
  let entries: string[];
  if (typeof value === "string") {
    entries = splitAllowedTools(value);
  } else if (Array.isArray(value) && value.every((entry) => typeof entry === "string")) {
    entries = value.map((entry) => entry.trim()).filter((entry) => entry !== "");
  } else {
    return 'key "allowed-tools" must be a space-separated string of tools (e.g. "Read Grep ' +
      'Bash(git:*)") or a list of strings';
  }
  if (entries.length > MAX_ALLOWED_TOOLS) {
    return `key "allowed-tools" must name at most ${MAX_ALLOWED_TOOLS} tools, got ${entries.length}`;
  }
  const long = entries.find((entry) => entry.length > MAX_TOOL_PATTERN_LENGTH);
  if (long !== undefined) {
    return `key "allowed-tools" has an entry longer than ${MAX_TOOL_PATTERN_LENGTH} characters: ` +
      `"${clip(long)}"`;
  }
  return [...new Set(entries)];
}

/** Tells whether a node of the document carries an anchor or an explicit tag (`&a`, `!!str`). */
function hasAnchorOrTag(document: Document): boolean {
  let found = false;
  visit(document, (_key, node) => {
    if (isNode(node) && (node.anchor !== undefined || node.tag !== undefined)) {
      found = true;
      return visit.BREAK;
    }
    return undefined;
  });
  return found;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !(value instanceof Map) && !(value instanceof Set);
}

function invalid(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

function firstLine(text: string): string {
  return clip(text.split("\n")[0] ?? "");
}

/** Shortens a value for a message and strips control characters. */
function clip(text: string): string {
  // deno-lint-ignore no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, "?");
  return clean.length > 80 ? `${clean.slice(0, 77)}…` : clean;
}
