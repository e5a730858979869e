/**
 * `node:fs`, imported on first need. The tool Worker's start-up loads no Node compatibility module
 * unless a tool needs one (issue 16: `node:fs` alone costs a Worker about 10 ms to load, and
 * reading or listing never needs it); the file-descriptor calls Deno does not offer (`fchmod`,
 * `open` with `O_DIRECTORY`, numeric descriptors) come from here when a write or delete runs.
 * Private to the folder.
 *
 * @module
 */

import type * as NodeFs from "node:fs";

let loaded: typeof NodeFs | null = null;

/** The `node:fs` module, imported the first time it is asked for. */
export async function loadNodeFs(): Promise<typeof NodeFs> {
  return loaded ??= await import("node:fs");
}
