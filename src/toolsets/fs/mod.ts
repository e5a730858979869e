/**
 * The filesystem toolset: `fs.read_file`, `fs.list_files`, `fs.grep_files`, `fs.write_file`,
 * `fs.edit_file`, `fs.delete_file`. Every path goes through the context's path guard, in the
 * handler too (the second check, inside the tool Worker).
 *
 * @module
 */

import type { ToolDefinition } from "../../tools/mod.ts";
import { readFileTool } from "./read_file.ts";
import { listFilesTool } from "./list_files.ts";
import { grepFilesTool } from "./grep_files.ts";
import { writeFileTool } from "./write_file.ts";
import { editFileTool } from "./edit_file.ts";
import { deleteFileTool } from "./delete_file.ts";

/**
 * Every fs tool, in a stable order: read, list, grep, write, edit, delete. `fs.delete_file` is
 * destructive (off by default in policy); `fs.write_file` and `fs.edit_file` have permission
 * `write`, the rest `readonly`.
 *
 * @returns fresh array of the shared tool definitions.
 * @example
 * ```ts
 * import { fsTools } from "./mod.ts";
 * console.assert(fsTools()[0]?.name === "fs.read_file");
 * ```
 */
export function fsTools(): ToolDefinition[] {
  return [readFileTool, listFilesTool, grepFilesTool, writeFileTool, editFileTool, deleteFileTool];
}

export { readFileTool } from "./read_file.ts";

export { type RipgrepLaunch, RipgrepPrefilter } from "./ripgrep_prefilter.ts";
