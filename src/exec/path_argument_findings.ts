/**
 * Path arguments of a command (`argv:path-outside-roots`, `argv:protected-path`,
 * `argv:sensitive-path`): the values of a command line that name paths, checked as spelled against
 * the path guard's roots, protected paths and sensitive patterns.
 *
 * @module
 */

import * as nodePath from "node:path";
import { isWithin, type PathGuard, printable } from "../sandbox/mod.ts";
import { type ArgumentFinding, argumentValues } from "./argv_analysis.ts";

/**
 * Arguments that name paths are checked like the request's own paths, on every value they carry
 * ({@linkcode argumentValues}: operands, `--option=value`, a value attached in a short cluster such
 * as `-T/x` or `-cf/x`, dd-style `if=/x`). A value is a path when it is absolute, starts with `~`,
 * `./` or `../`, or contains a `/`; a `file:` URL (any case, any host form, percent-decoded) is
 * the path it names; `@/x` (curl's `-d @file`, response files) is `/x`. Other URLs are not paths.
 *
 * - A path that resolves (as text, from the working folder) outside every root, or into /proc,
 *   /sys or /dev: `argv:path-outside-roots` (`unchecked`).
 * - Else one inside a protected path (the runs folder, the config, skill folders, any `.git`):
 *   `argv:protected-path` (`file_write`).
 * - Else one the guard calls sensitive (`.env`, `*.pem`, `~/.ssh/...`; a bare file name counts
 *   too, unless it holds blanks or glob characters): `argv:sensitive-path` (`sensitive`).
 *
 * At most one finding per argument and rule. Checked as spelled, not followed through links: this
 * gives the policy meaning; the mount profile decides what a command can reach.
 *
 * @example
 * ```ts
 * import { PathGuard } from "../sandbox/path_guard.ts";
 * import { pathArgumentFindings } from "./path_argument_findings.ts";
 * const guard = await PathGuard.create({ workspace: Deno.cwd(), home: null });
 * pathArgumentFindings(["curl", "file:///etc/passwd"], Deno.cwd(), guard)[0]?.id;
 * // "argv:path-outside-roots"
 * ```
 */
export function pathArgumentFindings(
  argv: readonly string[],
  cwd: string,
  guard: PathGuard,
): ArgumentFinding[] {
  const findings: ArgumentFinding[] = [];
  const seen = new Set<string>();
  for (const { index, value } of argumentValues(argv)) {
    const argument = argv[index] ?? "";
    const found = valueFinding(value, cwd, guard);
    if (found === null || seen.has(`${index}:${found.id}`)) continue;
    seen.add(`${index}:${found.id}`);
    findings.push({ ...found, index, argument });
  }
  return findings;
}

/** The finding one value gives, without its index and argument, or null. */
function valueFinding(
  value: string,
  cwd: string,
  guard: PathGuard,
): Omit<ArgumentFinding, "index" | "argument"> | null {
  const spelled = spelledPath(value);
  if (spelled === null) return null;
  const named = spelled.url || spelled.path !== value
    ? `"${printable(value)}" (the path "${printable(spelled.path)}")`
    : `"${printable(value)}"`;
  const expanded = spelled.path === "~" || spelled.path.startsWith("~/")
    ? (guard.home === null ? null : guard.home + spelled.path.slice(1))
    : spelled.path.startsWith("~")
    ? null
    : spelled.path;
  const absolute = expanded === null ? null : nodePath.resolve(cwd, expanded);
  if (spelled.url || looksLikePath(spelled.path)) {
    if (
      absolute === null || !guard.allReadRoots.some((root) => isWithin(absolute, root)) ||
      isSpecial(absolute)
    ) {
      return {
        id: "argv:path-outside-roots",
        kind: "unchecked",
        reason: `it names ${named}, outside the workspace and every root`,
      };
    }
    const protectedPath = guard.protectedMatch(absolute);
    if (protectedPath !== null) {
      return {
        id: "argv:protected-path",
        kind: "file_write",
        reason: `it names ${named}, inside the protected path "${protectedPath}"`,
      };
    }
  }
  const pattern = absolute === null || /[\s*?[]/.test(spelled.path)
    ? null
    : guard.sensitiveMatch(absolute);
  if (pattern === null) return null;
  return {
    id: "argv:sensitive-path",
    kind: "sensitive",
    reason: `it names ${named}, which matches the sensitive pattern "${pattern}"`,
    ...(absolute === null ? {} : { path: absolute }),
  };
}

/**
 * The path a value spells: a `file:` URL's path (host dropped, percent-decoded), the file after
 * `@`, or the value itself; null for another URL or an empty value.
 */
function spelledPath(value: string): { path: string; url: boolean } | null {
  if (/^file:/i.test(value)) {
    // RFC 8089: file:/path, file:///path, file://host/path; the query and fragment are no part.
    let path = value.slice("file:".length).replace(/[?#].*$/s, "");
    if (path.startsWith("//")) {
      const slash = path.indexOf("/", 2);
      path = slash === -1 ? "/" : path.slice(slash);
    }
    return { path: decoded(path === "" ? "/" : path), url: true };
  }
  if (value === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return null;
  if (value.startsWith("@") && looksLikePath(value.slice(1))) {
    return { path: value.slice(1), url: false };
  }
  return { path: value, url: false };
}

/** `%2e%2e` → `..`, as curl and git read a file URL; the text as given when it does not decode. */
function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function looksLikePath(value: string): boolean {
  return value.startsWith("/") || value.startsWith("~") || value.startsWith("./") ||
    value.startsWith("../") || value === ".." || value.includes("/");
}

function isSpecial(path: string): boolean {
  return ["/proc", "/sys", "/dev"].some((special) => isWithin(path, special));
}
