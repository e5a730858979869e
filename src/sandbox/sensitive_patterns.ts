/**
 * Sensitive paths (ARCHITECTURE §6, issue 2): the patterns every run has, and how one pattern
 * matches a path (with a `/`: the whole absolute path and everything below it; without: the file
 * name).
 *
 * @module
 */

import * as nodePath from "node:path";
import picomatch from "picomatch";

/** Sensitive path patterns every run has (ARCHITECTURE §6, issue 2). `~/` is the home folder. */
export const DEFAULT_SENSITIVE_PATTERNS: readonly string[] = [
  "~/.ssh",
  "~/.gnupg",
  "~/.aws",
  "~/.config/gcloud",
  "*.pem",
  "*.key",
  ".env",
  ".env.*",
];

/**
 * A matcher for one sensitive pattern. `~/` expands to `home`; with no home such a pattern matches
 * nothing. `test(path, name)` takes the path's file name when the caller has it (a guard tests every
 * pattern on one path: it takes the name once, not once a pattern); it must be
 * `nodePath.basename(path)`, which is the default.
 *
 * @example
 * ```ts
 * import { sensitiveMatcher } from "./sensitive_patterns.ts";
 * const matcher = sensitiveMatcher("*.pem", null);
 * console.assert(matcher.test("/w/certs/server.pem") && !matcher.test("/w/server.pem.txt"));
 * ```
 */
export function sensitiveMatcher(
  pattern: string,
  home: string | null,
): { pattern: string; test: (path: string, name?: string) => boolean } {
  // The glob compiles when a text first passes the literal precheck: most never do, and compiling
  // the default patterns cost each guard 5 – 10 ms, once in each thread, at every start (issue 16).
  if (!pattern.includes("/")) {
    let matchName: ((name: string) => boolean) | null = null;
    const mayMatch = literalPrecheck(pattern);
    return {
      pattern,
      test: (path, name = nodePath.basename(path)) =>
        mayMatch(name) && (matchName ??= picomatch(pattern, { dot: true }))(name),
    };
  }
  let absolute = pattern;
  if (pattern.startsWith("~/")) {
    if (home === null) return { pattern, test: () => false };
    absolute = home + pattern.slice(1);
  }
  const stripped = absolute.replace(/\/+$/, "");
  let matchPath: ((path: string) => boolean) | null = null;
  const mayMatch = literalPrecheck(stripped);
  return {
    pattern,
    test: (path) =>
      mayMatch(path) &&
      (matchPath ??= picomatch([absolute, `${stripped}/**`], { dot: true }))(path),
  };
}

/**
 * A cheap test every match of `glob` passes: the literal pieces between its `*` and `?` wildcards
 * all occur in the text. Lists and walks test every entry against every pattern, and most names
 * miss the literal at once. A glob with any other special character (`[`, `{`, `(`, `!`, `+`,
 * `@`, `\`) gets no precheck (its literals may sit inside alternatives).
 */
function literalPrecheck(glob: string): (text: string) => boolean {
  // picomatch rewrites `./`, `..`, empty path segments and Windows separators before matching:
  // their text is not literal either.
  if (/[[\]{}()!+@\\|^$]/.test(glob) || /(^|\/)\.{1,2}(\/|$)|\/\//.test(glob)) return () => true;
  const pieces = glob.split(/[*?]+/).filter((piece) => piece.length > 0);
  if (pieces.length === 0) return () => true;
  return (text) => pieces.every((piece) => text.includes(piece));
}
