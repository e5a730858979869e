/**
 * File operations that re-verify what the path guard saw, for the window between the check and the
 * operation (a component swapped for a symlink by a concurrent command, say).
 *
 * Deno ignores `O_NOFOLLOW` when it runs with restricted permissions (measured with Deno 2.9.6:
 * node:fs `openSync(link, O_RDONLY | O_NOFOLLOW)` returns a descriptor in a Worker), so the checks
 * here compare device and inode numbers instead: what was opened must be what the guard resolved.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { ResolvedPath } from "./path_guard.ts";
import { failure, type ToolOutcome } from "../tools/tool_result.ts";

/** An open regular file the guard approved, with its size in bytes. */
export interface VerifiedFile {
  file: Deno.FsFile;
  size: number;
}

/**
 * Opens a checked, existing regular file for reading and verifies that the descriptor is the file
 * the guard resolved (same device and inode, still a regular file).
 *
 * @returns the open file, or a failure outcome: `file_not_found`, `not_a_regular_file`,
 * `sandbox_violation` (the file changed identity between check and open), `io_error`.
 */
export async function openVerifiedForRead(path: ResolvedPath): Promise<VerifiedFile | ToolOutcome> {
  if (path.type === "missing") {
    return failure("file_not_found", `Cannot read file "${path.display}": it does not exist`, {
      path: path.display,
    });
  }
  if (path.type !== "file") {
    return failure("not_a_regular_file", `Cannot read file "${path.display}": it is a folder`, {
      path: path.display,
    });
  }
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path.real, { read: true });
  } catch (error) {
    return ioFailure("read file", path, error);
  }
  let stat: Deno.FileInfo;
  try {
    stat = await file.stat();
  } catch (error) {
    file.close();
    return ioFailure("read file", path, error);
  }
  if (!stat.isFile || stat.dev !== path.identity?.dev || stat.ino !== path.identity?.ino) {
    file.close();
    return failure(
      "sandbox_violation",
      `Cannot read file "${path.display}": it changed between the check and the open`,
      { path: path.display },
    );
  }
  return { file, size: stat.size };
}

/** Options of {@linkcode writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Replace an existing file. @default false */
  overwrite?: boolean;
  /** Create missing parent folders. @default true */
  createDirectories?: boolean;
}

/**
 * Writes `content` to a checked path atomically: a temporary file created exclusively in the same
 * folder (exclusive create refuses any existing name, dangling symlinks included), then `link`
 * (no overwrite: fails if the name appeared meanwhile) or `rename` (overwrite: replaces the name,
 * never follows a symlink there). The folder's real path is verified again just before the rename.
 * An existing file keeps its mode.
 *
 * @returns `null` on success, or a failure outcome: `path_conflict`, `not_a_regular_file`,
 * `file_not_found` (missing folder without `createDirectories`), `sandbox_violation`, `io_error`.
 */
export async function writeFileAtomic(
  path: ResolvedPath,
  content: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<ToolOutcome | null> {
  const { overwrite = false, createDirectories = true } = options;
  if (path.type === "directory" || path.type === "other") {
    return failure(
      "not_a_regular_file",
      `Cannot write file "${path.display}": it is not a regular file`,
      {
        path: path.display,
      },
    );
  }
  if (path.type === "file" && !overwrite) {
    return failure(
      "path_conflict",
      `Cannot write file "${path.display}": it exists; pass "overwrite": true to replace it`,
      { path: path.display },
    );
  }
  const folder = nodePath.dirname(path.real);
  try {
    if (createDirectories) {
      await Deno.mkdir(folder, { recursive: true });
    }
    const folderReal = await Deno.realPath(folder);
    if (folderReal !== folder) return changedFailure(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return failure(
        "file_not_found",
        `Cannot write file "${path.display}": its folder does not exist`,
        {
          path: path.display,
        },
      );
    }
    return ioFailure("write file", path, error);
  }

  const temporary = `${folder}/.${nodePath.basename(path.real)}.${
    crypto.randomUUID().slice(0, 8)
  }.kagent-tmp`;
  try {
    const file = await Deno.open(temporary, { write: true, createNew: true, mode: 0o644 });
    try {
      const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
      let written = 0;
      while (written < bytes.byteLength) written += await file.write(bytes.subarray(written));
      if (path.type === "file") {
        const previous = await Deno.lstat(path.real);
        if (previous.mode !== null) await Deno.chmod(temporary, previous.mode & 0o7777);
      }
      await file.sync();
    } finally {
      file.close();
    }
    if ((await Deno.realPath(folder)) !== folder) {
      await Deno.remove(temporary);
      return changedFailure(path);
    }
    if (overwrite) {
      const now = await lstatOrNull(path.real);
      if (now !== null && (now.isSymlink || !now.isFile)) {
        await Deno.remove(temporary);
        return changedFailure(path);
      }
      await Deno.rename(temporary, path.real);
    } else {
      try {
        await Deno.link(temporary, path.real);
      } finally {
        await Deno.remove(temporary).catch(() => {});
      }
    }
    return null;
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    if (error instanceof Deno.errors.AlreadyExists) {
      return failure(
        "path_conflict",
        `Cannot write file "${path.display}": it appeared while writing`,
        {
          path: path.display,
        },
      );
    }
    return ioFailure("write file", path, error);
  }
}

/**
 * Deletes a checked regular file. Folders are refused, and so is a path whose last component is a
 * symlink: deleting `path.real` would delete the link's target, not the link.
 *
 * @returns `null` on success, or `file_not_found`, `not_a_regular_file`, `sandbox_violation`, `io_error`.
 */
export async function deleteVerifiedFile(path: ResolvedPath): Promise<ToolOutcome | null> {
  if (path.via_symlink) {
    return failure(
      "not_a_regular_file",
      `Cannot delete "${path.requested}": it is a symlink; delete its target "${path.display}" by name instead`,
      { path: path.display },
    );
  }
  if (path.type === "missing") {
    return failure("file_not_found", `Cannot delete file "${path.display}": it does not exist`, {
      path: path.display,
    });
  }
  if (path.type !== "file") {
    return failure(
      "not_a_regular_file",
      `Cannot delete "${path.display}": only regular files can be deleted`,
      {
        path: path.display,
      },
    );
  }
  try {
    const now = await Deno.lstat(path.real);
    if (!now.isFile || now.dev !== path.identity?.dev || now.ino !== path.identity?.ino) {
      return changedFailure(path);
    }
    await Deno.remove(path.real);
    return null;
  } catch (error) {
    return ioFailure("delete file", path, error);
  }
}

async function lstatOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

function changedFailure(path: ResolvedPath): ToolOutcome {
  return failure(
    "sandbox_violation",
    `Cannot change "${path.display}": the path changed between the check and the write`,
    { path: path.display },
  );
}

/**
 * Maps an error thrown by a file operation to an outcome. `NotCapable` is Deno's permission layer
 * (layer 2) stopping the operation: `sandbox_violation`.
 */
export function ioFailure(
  action: string,
  path: ResolvedPath | string,
  error: unknown,
): ToolOutcome {
  const display = typeof path === "string" ? path : path.display;
  const reason = error instanceof Error ? error.message : String(error);
  if (isNotCapable(error)) {
    return failure(
      "sandbox_violation",
      `Cannot ${action} "${display}": Deno's permissions refused it (${reason})`,
      {
        path: display,
      },
    );
  }
  if (error instanceof Deno.errors.NotFound) {
    return failure("file_not_found", `Cannot ${action} "${display}": it does not exist`, {
      path: display,
    });
  }
  return failure("io_error", `Cannot ${action} "${display}": ${reason}`, { path: display });
}

/** Tells whether Deno's permission layer refused an operation (node:fs errors carry the name only). */
export function isNotCapable(error: unknown): boolean {
  return error instanceof Deno.errors.NotCapable ||
    (error instanceof Error && error.name === "NotCapable");
}
