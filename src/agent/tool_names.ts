/**
 * Tool names as providers see them. Canonical names are dotted (`fs.read_file`); OpenAI-style
 * function names must match `^[a-zA-Z0-9_-]{1,64}$`, so each dot becomes `__` (`fs__read_file`).
 * A mangled name that is too long, has other characters, or collides with another tool's is
 * shortened deterministically to 55 characters + `_` + 8 hex characters of sha256(canonical).
 *
 * @module
 */

import { sha256Hex } from "../audit/mod.ts";

/** What every provider tool name matches. */
export const PROVIDER_NAME_PATTERN: RegExp = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_LENGTH = 64;
const PREFIX_LENGTH = 55;

/**
 * The plain mangled form of a canonical name: `.` → `__`, any other character outside
 * `[a-zA-Z0-9_-]` → `_`, shortened with a hash suffix when needed to stay within 64 characters
 * or when characters were replaced. Collisions are not considered here; see {@linkcode ToolNameMap}.
 *
 * @example
 * ```ts
 * import { mangleToolName } from "./tool_names.ts";
 * console.assert(mangleToolName("fs.read_file") === "fs__read_file");
 * ```
 */
export function mangleToolName(canonical: string): string {
  const dotted = canonical.replaceAll(".", "__");
  const sanitized = dotted.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (sanitized !== dotted || sanitized.length === 0 || sanitized.length > MAX_LENGTH) {
    return shortenToolName(canonical);
  }
  return sanitized;
}

/** The shortened form: the first 55 characters of the sanitized name, `_`, sha256 prefix. */
function shortenToolName(canonical: string): string {
  const sanitized = canonical.replaceAll(".", "__").replace(/[^a-zA-Z0-9_-]/g, "_");
  const hash = sha256Hex(canonical).slice(0, 8);
  return `${sanitized.slice(0, PREFIX_LENGTH)}_${hash}`;
}

/**
 * A two-way map between canonical tool names and provider names for one tool set. Names whose
 * plain mangled forms collide all get the shortened form, so the result does not depend on order.
 *
 * @example
 * ```ts
 * import { ToolNameMap } from "./tool_names.ts";
 * const names = new ToolNameMap(["fs.read_file", "shell.exec"]);
 * console.assert(names.toProvider("fs.read_file") === "fs__read_file");
 * console.assert(names.toCanonical("shell__exec") === "shell.exec");
 * console.assert(names.toCanonical("nope") === null);
 * ```
 */
export class ToolNameMap {
  readonly #toProvider = new Map<string, string>();
  readonly #toCanonical = new Map<string, string>();

  /**
   * @param canonicalNames The run's tool names; duplicates are ignored.
   * @throws {TypeError} when two canonical names still map to one provider name.
   */
  constructor(canonicalNames: Iterable<string>) {
    const names = [...new Set(canonicalNames)].sort();
    const plain = new Map<string, string[]>();
    for (const name of names) {
      const mangled = mangleToolName(name);
      plain.set(mangled, [...(plain.get(mangled) ?? []), name]);
    }
    for (const [mangled, group] of plain) {
      for (const name of group) {
        const providerName = group.length === 1 ? mangled : shortenToolName(name);
        const other = this.#toCanonical.get(providerName);
        if (other !== undefined) {
          throw new TypeError(
            `Cannot map tool names "${other}" and "${name}": both become provider name "${providerName}"`,
          );
        }
        this.#toProvider.set(name, providerName);
        this.#toCanonical.set(providerName, name);
      }
    }
  }

  /**
   * The provider name of a canonical name. A name outside the set (e.g. an unknown name the model
   * used earlier in the conversation) gets its plain mangled form.
   */
  toProvider(canonical: string): string {
    return this.#toProvider.get(canonical) ?? mangleToolName(canonical);
  }

  /** The canonical name of a provider name, or `null` when it is not in the set. */
  toCanonical(providerName: string): string | null {
    return this.#toCanonical.get(providerName) ?? null;
  }

  /** Number of tools in the map. */
  get size(): number {
    return this.#toProvider.size;
  }
}
