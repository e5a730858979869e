/**
 * Path helpers private to the config folder: `~/` expansion, resolution, containment.
 *
 * @module
 */

import { isAbsolute, relative, resolve, sep } from "node:path";

/**
 * Resolves a path written in a config file to an absolute, normalised path, without touching the
 * file system (no realpath: the sandbox does that).
 *
 * `~` and `~/...` expand to `home`; other relative paths resolve against `baseDir`.
 *
 * @param written The path as written.
 * @param baseDir Absolute folder relative paths resolve against.
 * @param home Reads the home folder; called only when the path starts with `~`. Returns
 *   `undefined` when the home folder is unknown.
 * @returns The absolute path, or `null` when the path needs a home folder and none is known.
 */
export function resolveWrittenPath(
  written: string,
  baseDir: string,
  home: () => string | undefined,
): string | null {
  if (written === "~" || written.startsWith("~/")) {
    const homeDir = home();
    if (homeDir === undefined || homeDir === "") return null;
    return resolve(homeDir, written.slice(2));
  }
  return resolve(baseDir, written);
}

/**
 * Tells whether `child` is `parent` or lies below it, comparing path components (so `/w/project2`
 * is not inside `/w/project`). Both paths must be absolute and normalised.
 */
export function isPathInside(child: string, parent: string): boolean {
  const path = relative(parent, child);
  if (path === "") return true;
  if (isAbsolute(path)) return false;
  const first = path.split(sep, 1)[0];
  return first !== "..";
}

/** What is at a path: a directory, a file (or anything else that is not a directory), or nothing. */
export type PathKind = "directory" | "file" | "missing";

/**
 * Tells what is at `path`, following symlinks.
 *
 * @throws Whatever `Deno.stat` throws other than `NotFound` (e.g. `PermissionDenied`).
 */
export async function pathKind(path: string): Promise<PathKind> {
  try {
    const info = await Deno.stat(path);
    return info.isDirectory ? "directory" : "file";
  } catch (error: unknown) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return "missing";
    }
    throw error;
  }
}
