/**
 * How the CLI names a run's folder in its messages.
 *
 * @module
 */

import * as nodePath from "node:path";

/**
 * The run's path relative to the current folder, or the absolute path when it lies outside it.
 *
 * @example
 * ```ts
 * import { displayRunDir } from "./display_run_dir.ts";
 * console.assert(displayRunDir(`${Deno.cwd()}/runs/r1`) === "runs/r1");
 * ```
 */
export function displayRunDir(dir: string): string {
  const relative = nodePath.relative(Deno.cwd(), dir);
  return relative.startsWith("..") ? dir : relative;
}
