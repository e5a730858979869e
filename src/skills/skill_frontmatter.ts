/**
 * Reads and checks the YAML frontmatter of a `SKILL.md` (Agent Skills specification,
 * agentskills.io): the text between the first two `---` lines, parsed with the `yaml` package
 * (data only: no tags that build objects or run code), then held to the closed set of keys.
 *
 * @module
 */

import { parseDocument } from "yaml";
import { SKILL_NAME_PATTERN } from "../exec/mod.ts";

/** Longest skill name, in characters. */
export const MAX_NAME_LENGTH = 64;
/** Longest description, in characters. */
export const MAX_DESCRIPTION_LENGTH = 1024;
/** Longest `compatibility` note, in characters. */
export const MAX_COMPATIBILITY_LENGTH = 500;
/** Most patterns in `allowed-tools`. */
export const MAX_ALLOWED_TOOLS = 128;
/** Longest pattern in `allowed-tools`. */
export const MAX_TOOL_PATTERN_LENGTH = 128;
/** What one `allowed-tools` entry may contain: tool-name characters and `*` wildcards. */
export const TOOL_PATTERN = /^[A-Za-z0-9_.*-]+$/;

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
  name: string;
  description: string;
  license: string | null;
  compatibility: string | null;
  /** String → string; `{}` when absent. */
  metadata: Record<string, string>;
  /** The `allowed-tools` patterns, split on whitespace; `[]` when absent. */
  allowed_tools: string[];
}

/** A parsed `SKILL.md`: its frontmatter and the Markdown body after it, or why it is invalid. */
export type SkillDocument =
  | { ok: true; frontmatter: SkillFrontmatter; body: string }
  | { ok: false; reason: string };

/**
 * Splits and checks a `SKILL.md`. The first line must be `---`; the frontmatter ends at the next
 * `---` line. The name must equal `folderName`.
 *
 * @param text The file's text (a leading BOM is ignored; CRLF line ends are accepted).
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
  const yamlText = lines.slice(1, end).join("\n");
  const body = lines.slice(end + 1).join("\n");

  const document = parseDocument(yamlText, {
    schema: "core",
    uniqueKeys: true,
    prettyErrors: false,
  });
  const firstError = document.errors[0] ?? document.warnings[0];
  if (firstError !== undefined) {
    return invalid(`the YAML frontmatter is not valid: ${firstLine(firstError.message)}`);
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
  const unknown = Object.keys(data).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    return `key "${clip(unknown)}" is not allowed (allowed: ${FRONTMATTER_KEYS.join(", ")})`;
  }

  const name = data.name;
  if (name === undefined) return 'key "name" is missing';
  if (typeof name !== "string") return 'key "name" must be a string';
  if (name.length < 1 || name.length > MAX_NAME_LENGTH) {
    return `key "name" must be 1 to ${MAX_NAME_LENGTH} characters long`;
  }
  if (!SKILL_NAME_PATTERN.test(name)) {
    return `key "name" must match ${SKILL_NAME_PATTERN.source} (lower-case words joined by ` +
      `hyphens), got "${clip(name)}"`;
  }
  if (name !== folderName) {
    return `key "name" must equal the folder name "${clip(folderName)}", got "${name}"`;
  }

  const description = data.description;
  if (description === undefined) return 'key "description" is missing';
  if (typeof description !== "string") return 'key "description" must be a string';
  if (description.trim().length === 0) return 'key "description" must not be empty';
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    return `key "description" must be at most ${MAX_DESCRIPTION_LENGTH} characters long, ` +
      `got ${description.length}`;
  }

  const license = optionalString(data, "license");
  if (typeof license === "object" && license !== null) return license.reason;
  const compatibility = optionalString(data, "compatibility");
  if (typeof compatibility === "object" && compatibility !== null) return compatibility.reason;
  if (compatibility !== null && compatibility.length > MAX_COMPATIBILITY_LENGTH) {
    return `key "compatibility" must be at most ${MAX_COMPATIBILITY_LENGTH} characters long, ` +
      `got ${compatibility.length}`;
  }

  const metadata = checkMetadata(data.metadata);
  if (typeof metadata === "string") return metadata;
  const allowedTools = checkAllowedTools(data["allowed-tools"]);
  if (typeof allowedTools === "string") return allowedTools;

  return {
    name,
    description,
    license,
    compatibility,
    metadata,
    allowed_tools: allowedTools,
  };
}

function optionalString(
  data: Record<string, unknown>,
  key: string,
): string | null | { reason: string } {
  const value = data[key];
  if (value === undefined) return null;
  if (typeof value !== "string") return { reason: `key "${key}" must be a string` };
  if (value.trim().length === 0) return { reason: `key "${key}" must not be empty` };
  return value;
}

function checkMetadata(value: unknown): Record<string, string> | string {
  if (value === undefined) return {};
  if (!isPlainRecord(value)) return 'key "metadata" must be a mapping of strings to strings';
  const metadata: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== "string") {
      return `key "metadata.${clip(key)}" must be a string (quote numbers and booleans)`;
    }
    metadata[key] = entry;
  }
  return metadata;
}

/**
 * Splits `allowed-tools` on whitespace. An absent key gives `[]` (no narrowing); a present but empty
 * one is refused, since it would leave the skill no tools at all by accident.
 */
function checkAllowedTools(value: unknown): string[] | string {
  if (value === undefined) return [];
  if (typeof value !== "string") {
    return 'key "allowed-tools" must be a space-separated string of tool-name patterns';
  }
  const patterns = value.split(/\s+/).filter((pattern) => pattern.length > 0);
  if (patterns.length === 0) return 'key "allowed-tools" must name at least one tool pattern';
  if (patterns.length > MAX_ALLOWED_TOOLS) {
    return `key "allowed-tools" must name at most ${MAX_ALLOWED_TOOLS} patterns`;
  }
  for (const pattern of patterns) {
    if (pattern.length > MAX_TOOL_PATTERN_LENGTH || !TOOL_PATTERN.test(pattern)) {
      return `key "allowed-tools" has an invalid pattern "${clip(pattern)}": use tool names ` +
        `such as "fs.read_file" or "fs.*"`;
    }
  }
  return [...new Set(patterns)];
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
