/**
 * Tells whether something exists at a path, without following a final symlink: the question
 * attack tests ask of marker files ("the file outside the root does not exist").
 *
 * @module
 */

/**
 * @returns true when `path` names anything (a dangling symlink included), false when nothing.
 * @example
 * ```ts
 * import { exists } from "./path_exists.ts";
 * console.assert(!(await exists("/nonexistent/kagent")));
 * ```
 */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
