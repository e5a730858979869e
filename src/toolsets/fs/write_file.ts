/**
 * `fs.write_file`: creates or replaces a text file atomically.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../../tools/mod.ts";
import { failure, success, type ToolOutcome } from "../../result/mod.ts";
import { writeFileAtomic } from "../../sandbox/mod.ts";
import { checkPath, isOutcome } from "./_check.ts";
import { formatBytes, MAX_FILE_BYTES } from "./_limits.ts";
import { plural } from "./_text.ts";

const parameters = z.strictObject({
  path: z.string().min(1).max(4096).describe("File to write, relative to the workspace"),
  content: z.string().max(MAX_FILE_BYTES).describe(
    "The whole new content (UTF-8 text, at most 10 MiB)",
  ),
  create_dirs: z.boolean().default(true).describe("Create missing parent folders"),
  overwrite: z.boolean().default(false).describe(
    "Replace the file if it exists; without it an existing file is an error",
  ),
});

/** Structured result of `fs.write_file`. */
export interface WriteFileData {
  /** The file, relative to the workspace. */
  path: string;
  /** Bytes written (UTF-8). */
  bytes: number;
  /** The file did not exist before. */
  created: boolean;
}

/**
 * `fs.write_file(path, content, create_dirs = true, overwrite = false)`: writes `content` (UTF-8,
 * at most 10 MiB) through a temporary file and a rename, so readers never see half a file and no
 * temporary file is left behind. An existing file keeps its mode. Writes never follow a symlink
 * out of the roots (the guard resolves the leaf, dangling links included).
 *
 * Errors: the guard's refusals, `path_conflict` (exists and `overwrite` is false),
 * `not_a_regular_file` (a folder), `file_not_found` (missing folder and `create_dirs` false),
 * `file_too_large`, `io_error`, `sandbox_violation`.
 */
export const writeFileTool = defineTool({
  name: "fs.write_file",
  description: "Write a whole text file (at most 10 MiB). Refuses to replace an existing file " +
    "unless overwrite is true; creates missing folders unless create_dirs is false. For changes " +
    "to part of a file use fs.edit_file.",
  parameters,
  permission: "write",
  tags: ["filesystem", "write"],
  annotations: { category: "filesystem", risk_level: 2, idempotent: false },
  targets: (args) => [{ kind: "path", path: args.path, access: "write" }],
  handler: async (args, context): Promise<ToolOutcome> => {
    const path = await checkPath(context.guard, args.path, "write", "write file");
    if (isOutcome(path)) return path;
    const bytes = new TextEncoder().encode(args.content);
    if (bytes.byteLength > MAX_FILE_BYTES) {
      return failure(
        "file_too_large",
        `Cannot write file "${path.display}": the content is ${formatBytes(bytes.byteLength)}, ` +
          `more than ${formatBytes(MAX_FILE_BYTES)}`,
        { path: path.display, bytes: bytes.byteLength, limit: MAX_FILE_BYTES },
      );
    }
    const created = path.type === "missing";
    const refused = await writeFileAtomic(path, bytes, {
      overwrite: args.overwrite ?? false,
      createDirectories: args.create_dirs ?? true,
    });
    if (refused !== null) return refused;
    const data: WriteFileData = { path: path.display, bytes: bytes.byteLength, created };
    const written = `Wrote ${plural(bytes.byteLength, "byte")} to "${path.display}"`;
    return success(
      `${written} (${created ? "created" : "replaced"})`,
      `${written}${created ? " (new file)" : ""}`,
      data,
    );
  },
});
