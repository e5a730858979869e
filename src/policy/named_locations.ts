/**
 * Named locations: the run's folders and roots written by name (`<workspace>`, `<run>`,
 * `<read_root:0>`…) instead of where they lie on this machine, so that a grant and the policy hash
 * mean the same in every checkout of a repository, whatever its path.
 *
 * @module
 */

import * as nodePath from "node:path";

/** A folder and the name it is written with, e.g. `{name: "<workspace>", path: "/src/repo"}`. */
export interface NamedLocation {
  /**
   * `<workspace>`, `<run>`, `<read_root:N>`, `<write_root:N>`; in hashes also `<config>`,
   * `<runs>`, `<home>`, `<program:git>`.
   */
  name: string;
  /** Its absolute real path. */
  path: string;
}

/** The folders of a run that scopes and hashes write by name. */
export interface LocationFolders {
  workspace: string;
  /** The run folder, or null (no run: `kagent-run policy`). */
  runDir?: string | null;
  readRoots?: readonly string[];
  writeRoots?: readonly string[];
}

/**
 * The named locations of a run, most specific (longest path) first: the run folder `<run>`, the
 * roots `<read_root:N>` and `<write_root:N>` (N = the root's index in the config), the workspace
 * `<workspace>`.
 *
 * @example
 * ```ts
 * import { namedLocations } from "./named_locations.ts";
 * const names = namedLocations({ workspace: "/src/repo", runDir: "/src/repo/runs/1" });
 * console.assert(names[0]?.name === "<run>" && names[1]?.name === "<workspace>");
 * ```
 */
export function namedLocations(folders: LocationFolders): NamedLocation[] {
  const entries: NamedLocation[] = [];
  if (folders.runDir !== undefined && folders.runDir !== null) {
    entries.push({ name: "<run>", path: folders.runDir });
  }
  (folders.writeRoots ?? []).forEach((path, index) =>
    entries.push({ name: `<write_root:${index}>`, path })
  );
  (folders.readRoots ?? []).forEach((path, index) =>
    entries.push({ name: `<read_root:${index}>`, path })
  );
  entries.push({ name: "<workspace>", path: folders.workspace });
  return sortLocations(entries);
}

/** Longest path first (the most specific wins); for equal paths the earlier entry stays first. */
export function sortLocations(locations: readonly NamedLocation[]): NamedLocation[] {
  return locations
    .filter((location) => nodePath.isAbsolute(location.path) && location.path !== "/")
    .map((location, index) => ({ location, index }))
    .sort((left, right) =>
      right.location.path.length - left.location.path.length || left.index - right.index
    )
    .map((entry) => entry.location);
}

/**
 * An absolute path written relative to the most specific location that holds it
 * (`/src/repo/src/a.ts` → `<workspace>/src/a.ts`); a path outside every location is returned as
 * it is. Containment is by path components (`/src/repo2` is not in `/src/repo`).
 *
 * @example
 * ```ts
 * import { namedLocations, writePath } from "./named_locations.ts";
 * const names = namedLocations({ workspace: "/src/repo" });
 * console.assert(writePath("/src/repo/src/a.ts", names) === "<workspace>/src/a.ts");
 * console.assert(writePath("/src/repo2/a.ts", names) === "/src/repo2/a.ts");
 * ```
 */
export function writePath(path: string, locations: readonly NamedLocation[]): string {
  for (const location of locations) {
    if (path === location.path) return location.name;
    if (path.startsWith(location.path + "/")) {
      return location.name + path.slice(location.path.length);
    }
  }
  return path;
}

/**
 * One command-line argument with the locations it starts with written by name: the whole
 * argument (`/src/repo/a.txt` → `<workspace>/a.txt`) or the value of `--option=<path>`. So that
 * the written form never stands for two arguments, a value that already starts with `<` or `\` is
 * escaped with a `\` in front.
 *
 * @example
 * ```ts
 * import { namedLocations, writeArgument } from "./named_locations.ts";
 * const names = namedLocations({ workspace: "/src/repo" });
 * console.assert(writeArgument("--file=/src/repo/a", names) === "--file=<workspace>/a");
 * console.assert(writeArgument("<workspace>/a", names) === "\\<workspace>/a");
 * ```
 */
export function writeArgument(argument: string, locations: readonly NamedLocation[]): string {
  const equals = argument.indexOf("=");
  if (equals > 0) {
    return argument.slice(0, equals + 1) + writeValue(argument.slice(equals + 1), locations);
  }
  return writeValue(argument, locations);
}

function writeValue(value: string, locations: readonly NamedLocation[]): string {
  if (value.startsWith("<") || value.startsWith("\\")) return `\\${value}`;
  return nodePath.isAbsolute(value) ? writePath(value, locations) : value;
}

/**
 * Replaces every location in a JSON text (or any text) by its name, wherever it appears as a
 * whole path or a path's leading components: in strings, lists and sentences. Used to hash a
 * policy by its meaning rather than by where its folders lie.
 *
 * @example
 * ```ts
 * import { namedLocations, replaceLocations } from "./named_locations.ts";
 * const names = namedLocations({ workspace: "/src/repo" });
 * const text = JSON.stringify({ workspace: "/src/repo", other: "/src/repo2" });
 * console.assert(replaceLocations(text, names) === '{"workspace":"<workspace>","other":"/src/repo2"}');
 * ```
 */
export function replaceLocations(text: string, locations: readonly NamedLocation[]): string {
  let result = text;
  for (const location of locations) {
    // As the path appears inside a JSON string (quotes and backslashes escaped).
    const written = JSON.stringify(location.path).slice(1, -1);
    const pattern = new RegExp(
      `(?<=^|["'\\s=:(\\[,])${RegExp.escape(written)}(?=/|"|\\\\|\\s|[,;:)\\]}']|$)`,
      "g",
    );
    result = result.replace(pattern, location.name);
  }
  return result;
}
