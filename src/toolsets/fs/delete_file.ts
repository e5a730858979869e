/**
 * `fs.delete_file`: removes one regular file.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../../tools/mod.ts";
import { failure, success, type ToolOutcome } from "../../result/mod.ts";
import { printable } from "../../sandbox/mod.ts";
import { deleteVerifiedFile } from "../../sandbox/mod.ts";
import { checkPath, isOutcome } from "./_check.ts";
import { plural } from "./_text.ts";

const parameters = z.strictObject({
  path: z.string().min(1).max(4096).describe("File to delete, relative to the workspace"),
});

/** Structured result of `fs.delete_file`. */
export interface DeleteFileData {
  /** The deleted file, relative to the workspace. */
  path: string;
  /** Its size before deletion, in bytes. */
  bytes: number;
}

/**
 * `fs.delete_file(path)`: deletes a regular file. Folders are refused, and so is a path that is
 * itself a symlink (the guard resolves it to its target, and deleting the target through a link
 * is never what was asked).
 *
 * Errors: the guard's refusals, `file_not_found`, `not_a_regular_file` (a folder or a symlink),
 * `io_error`, `sandbox_violation`.
 */
export const deleteFileTool = defineTool({
  name: "fs.delete_file",
  description:
    "Delete one regular file (not a folder, not a symlink). Destructive: cannot be undone.",
  parameters,
  permission: "write",
  tags: ["filesystem", "write", "destructive"],
  annotations: { category: "filesystem", destructive: true, risk_level: 3, idempotent: false },
  targets: (args) => [{ kind: "path", path: args.path, access: "delete" }],
  handler: async (args, context): Promise<ToolOutcome> => {
    const path = await checkPath(context.guard, args.path, "delete", "delete file");
    if (isOutcome(path)) return path;
    if (path.via_symlink) {
      return failure(
        "not_a_regular_file",
        `Cannot delete "${
          printable(args.path)
        }": it is a symlink (to "${path.display}"); only regular files can be deleted`,
        { path: args.path, target: path.display },
      );
    }
    const refused = await deleteVerifiedFile(path);
    if (refused !== null) return refused;
    const data: DeleteFileData = { path: path.display, bytes: path.size };
    return success(
      `Deleted "${path.display}" (${plural(path.size, "byte")})`,
      `Deleted "${path.display}"`,
      data,
    );
  },
});
