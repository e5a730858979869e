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

export {
  DEFAULT_MAX_LINES,
  MAX_LINE_BYTES,
  MAX_LINES_LIMIT,
  type ReadFileData,
  readFileTool,
} from "./read_file.ts";
export {
  DEFAULT_LIST_LIMIT,
  type ListedEntry,
  type ListFilesData,
  listFilesTool,
  type ListTruncatedReason,
  MAX_LIST_LIMIT,
} from "./list_files.ts";
export {
  DEFAULT_GREP_LIMIT,
  type GrepFilesData,
  grepFilesTool,
  type GrepMatch,
  type GrepSkipped,
  type GrepTruncatedReason,
  MAX_FILES_SCANNED,
  MAX_GREP_LIMIT,
  MAX_MATCH_LINE_CHARACTERS,
  MAX_PATTERN_LENGTH,
  type SkippedFile,
} from "./grep_files.ts";
export { type WriteFileData, writeFileTool } from "./write_file.ts";
export { type EditFileData, editFileTool, MAX_DIFF_OUTPUT_LINES, MAX_EDITS } from "./edit_file.ts";
export { type DeleteFileData, deleteFileTool } from "./delete_file.ts";
export {
  candidatesOf,
  type GrepArguments,
  MAX_CANDIDATE_BYTES,
  ripgrepArguments,
  type RipgrepLaunch,
  RipgrepPrefilter,
  type RipgrepSearch,
} from "./ripgrep_prefilter.ts";
