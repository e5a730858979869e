/**
 * The environment of a command's child process: only allowlisted variables, never through a glob
 * the ones that configure programs (`never_passed_variables.ts`), with `HOME` and `TMPDIR` pointing
 * at run-private folders and a `PATH` of folders the agent cannot write
 * ({@linkcode commandSearchPath}).
 *
 * @module
 */

import * as nodePath from "node:path";
import { neverPassedFamily } from "./never_passed_variables.ts";

/** Variables passed by default (config `exec.env_allowlist` replaces this list). */
export const DEFAULT_ENV_ALLOWLIST: readonly string[] = [
  "PATH",
  "HOME",
  "TMPDIR",
  "LANG",
  "LC_ALL",
  "TERM",
];

export {
  NEVER_PASSED,
  NEVER_PASSED_FAMILIES,
  type NeverPassedFamily,
  neverPassedFamily,
  type NeverPassedRule,
} from "./never_passed_variables.ts";

/**
 * Tells whether `name` belongs to a family of {@linkcode NEVER_PASSED_FAMILIES} (compared ignoring
 * case): a glob never passes it.
 *
 * @example
 * ```ts
 * import { isNeverPassed } from "./child_environment.ts";
 * console.assert(isNeverPassed("LD_PRELOAD") && isNeverPassed("TAR_OPTIONS") && !isNeverPassed("CI"));
 * ```
 */
export function isNeverPassed(name: string): boolean {
  return neverPassedFamily(name) !== null;
}

/**
 * Turns the config's allowlist into the exact names to pass. An entry without `*` passes the
 * variable of that exact name (even one a glob never passes: someone wrote it); an entry with `*`
 * (any run of characters, e.g. `GITHUB_*`, `*_OPTIONS`) passes every name of `names` it matches,
 * except those {@linkcode isNeverPassed} names (`GIT_*` passes no `GIT_DIR`, `*` no `TAR_OPTIONS`).
 *
 * @param patterns The allowlist, e.g. `["PATH", "CI", "GITHUB_*"]`.
 * @param names The parent's variable names, e.g. `Object.keys(Deno.env.toObject())`.
 * @returns The names of `names` to pass, sorted, without duplicates.
 * @throws {TypeError} When an entry is empty or contains `=` or a NUL character.
 * @example
 * ```ts
 * import { expandAllowlist } from "./child_environment.ts";
 * const names = expandAllowlist(["PATH", "GITHUB_*"], ["PATH", "GITHUB_SHA", "GITHUB_TOKEN"]);
 * console.assert(names.join() === "GITHUB_SHA,PATH");
 * ```
 */
export function expandAllowlist(patterns: readonly string[], names: readonly string[]): string[] {
  const present = new Set(names);
  const passed = new Set<string>();
  for (const pattern of patterns) {
    if (pattern === "" || pattern.includes("=") || pattern.includes("\0")) {
      throw new TypeError(
        `Cannot use the environment allowlist entry "${pattern}": a name must be non-empty ` +
          `without "=" or NUL characters`,
      );
    }
    if (!pattern.includes("*")) {
      if (present.has(pattern)) passed.add(pattern);
      continue;
    }
    const glob = new RegExp(
      `^${pattern.split("*").map((part) => RegExp.escape(part)).join(".*")}$`,
    );
    for (const name of names) {
      if (glob.test(name) && !isNeverPassed(name)) passed.add(name);
    }
  }
  return [...passed].sort();
}

/** Options of {@linkcode buildChildEnvironment}. */
export interface ChildEnvironmentOptions {
  /** Exact names to pass, as returned by {@linkcode expandAllowlist}. */
  names: readonly string[];
  /** Reads the parent's value, e.g. `(name) => Deno.env.get(name)`; `undefined` skips the name. */
  read: (name: string) => string | undefined;
  /** Always set, over any inherited value: absolute run-private folders. */
  overrides: { HOME: string; TMPDIR: string };
  /** Fixed values from the config (e.g. `{ GIT_TERMINAL_PROMPT: "0" }`), set over inherited ones. */
  extra?: Record<string, string>;
}

/**
 * Builds the complete environment of a child: the parent's values of `names`, then `extra`, then
 * `overrides` (so `HOME` and `TMPDIR` always point at the run's folders). Nothing else is
 * inherited when it is spawned with `clearEnv: true`.
 *
 * @param options See {@linkcode ChildEnvironmentOptions}.
 * @returns A new record, name to value.
 * @throws {TypeError} When a name is empty or contains `=` or NUL, a value contains NUL, or an
 *   override is not an absolute path.
 * @example
 * ```ts
 * import { buildChildEnvironment } from "./child_environment.ts";
 * const env = buildChildEnvironment({
 *   names: ["PATH"],
 *   read: (name) => name === "PATH" ? "/usr/bin:/bin" : undefined,
 *   overrides: { HOME: "/srv/run/home", TMPDIR: "/srv/run/tmp" },
 * });
 * console.assert(env.PATH === "/usr/bin:/bin" && env.HOME === "/srv/run/home");
 * ```
 */
export function buildChildEnvironment(options: ChildEnvironmentOptions): Record<string, string> {
  const env: Record<string, string> = {};
  const set = (name: string, value: string) => {
    if (name === "" || name.includes("=") || name.includes("\0") || value.includes("\0")) {
      throw new TypeError(
        `Cannot pass the environment variable "${name}": names must be non-empty without "=", ` +
          `and neither may contain NUL characters`,
      );
    }
    Object.defineProperty(env, name, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  };
  for (const name of options.names) {
    const value = options.read(name);
    if (value !== undefined) set(name, value);
  }
  for (const [name, value] of Object.entries(options.extra ?? {})) set(name, value);
  for (const [name, value] of Object.entries(options.overrides)) {
    if (!value.startsWith("/")) {
      throw new TypeError(`Cannot set "${name}" for a child: "${value}" is not an absolute path`);
    }
    set(name, value);
  }
  return env;
}

/** The system's program folders, searched after the configured programs' own. */
export const SYSTEM_PROGRAM_FOLDERS: readonly string[] = [
  "/usr/local/sbin",
  "/usr/local/bin",
  "/usr/sbin",
  "/usr/bin",
  "/sbin",
  "/bin",
];

/**
 * Builds the `PATH` of a command's child: the folders of the configured programs, then
 * {@linkcode SYSTEM_PROGRAM_FOLDERS}, without duplicates, and never a folder equal to or inside a
 * forbidden root (compared by path components). A program that looks up another one (`tar -z`
 * runs `gzip`, git runs `ssh`) then never finds one the agent wrote: the parent's `PATH` may start
 * with a workspace `bin/`. Entries that are relative, not normalised, or hold `:` or NUL (which
 * `PATH` cannot spell, and an empty or relative entry means the current folder to execvp(3)) are
 * left out. Pure: nothing is read from the file system.
 *
 * @param programPaths Absolute real paths of the configured programs, e.g. `["/usr/bin/git"]`.
 * @param forbiddenRoots Absolute real paths of the folders the agent can write (write roots, the
 *   workspace, the run's folders).
 * @returns A `:`-separated value, never empty.
 * @throws {TypeError} When a forbidden root is not an absolute normalised path.
 * @throws {RangeError} When every folder is inside a forbidden root.
 * @example
 * ```ts
 * import { commandSearchPath } from "./child_environment.ts";
 * const path = commandSearchPath(["/opt/tools/bin/jq", "/usr/bin/git", "/w/bin/x"], ["/w"]);
 * console.assert(path === "/opt/tools/bin:/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/sbin:/bin");
 * ```
 */
export function commandSearchPath(
  programPaths: readonly string[],
  forbiddenRoots: readonly string[],
): string {
  for (const root of forbiddenRoots) {
    if (!isNormalAbsolute(root)) {
      throw new TypeError(
        `Cannot build a command search path with the root "${root}": it must be an absolute, ` +
          "normalised path",
      );
    }
  }
  const inside = (folder: string) =>
    forbiddenRoots.some((root) => root === "/" || folder === root || folder.startsWith(`${root}/`));
  const folders: string[] = [];
  const candidates = [
    ...programPaths.map((path) => nodePath.posix.dirname(path)),
    ...SYSTEM_PROGRAM_FOLDERS,
  ];
  for (const folder of candidates) {
    if (!isNormalAbsolute(folder) || folder.includes(":") || folders.includes(folder)) continue;
    if (!inside(folder)) folders.push(folder);
  }
  if (folders.length === 0) {
    throw new RangeError(
      `Cannot build a command search path: every program folder is inside a writable root ` +
        `(${forbiddenRoots.join(", ")})`,
    );
  }
  return folders.join(":");
}

/** `/a/b`: absolute, no `.`/`..`/empty component, no trailing slash (except `/`), no NUL. */
function isNormalAbsolute(path: string): boolean {
  return path.startsWith("/") && !path.includes("\0") &&
    (path === "/" || (nodePath.posix.normalize(path) === path && !path.endsWith("/")));
}
