/**
 * File operations that prove, when they act, that the path still goes through the folders the path
 * guard resolved: a concurrent process may swap a folder on the way for a symlink to elsewhere
 * (`renameat2(RENAME_EXCHANGE)`) between the check and the operation, and swap it back.
 *
 * Deno offers no `openat` (see `_folder_chain.ts` for what was measured), so every operation here
 * is bracketed by a {@linkcode FolderChain}: the folders from the outermost root down to the file's
 * folder are observed, the operation runs, and the chain must still hold (same folders, the ones
 * above unchanged). Reads and deletes first prove the entry itself (lstat inside the bracket: a
 * regular file with the identity the guard saw); reads then compare the opened descriptor with it.
 * Any doubt ends the call as `sandbox_violation` ("changed between the check and the open").
 *
 * Writes (`atomic_write.ts`) never create anything through a path that could lead elsewhere
 * unnoticed:
 * - the temporary file (or, for missing folders, a temporary folder holding them) gets a random
 *   name in the proven folder. Once it exists there, any path through that unique name reaches
 *   it or nothing: nobody else can make the name appear outside the roots. Its contents, mode and
 *   sub-folders are written through the descriptor or through that name;
 * - the final `rename` (overwrite) or `link` (no overwrite) names the temporary first: if the
 *   folders were swapped before the call, the temporary is not found and nothing happens.
 *
 * What remains, stated precisely: a mutation is proven after the fact. A swap landing in the few
 * microseconds between the last `holds()` and the `open(O_EXCL)` of the temporary (or the `unlink`
 * of a delete) would make that one system call act in the swapped-in folder; the next `holds()`
 * always detects it, a misplaced temporary is removed through its unique name (confirmed by its
 * link count dropping to 0) when the swap is still in place, and the call fails. For the final
 * rename or link the window shrinks to the gap between the kernel's two path walks inside that one
 * call. A swapper cannot aim at these windows without holding every folder above still for the
 * second before (a folder changed within the current second is waited for, or refused when it
 * keeps changing), so a swapper in a loop only ever gets refusals.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { ResolvedPath } from "./path_guard.ts";
import {
  type ChainProblem,
  FolderChain,
  FolderChangedError,
  isChainProblem,
} from "./_folder_chain.ts";
import { failure, type ToolOutcome } from "../result/mod.ts";
import { loadNodeFs } from "./_node_fs.ts";

/** An open regular file the guard approved, with its size in bytes. */
export interface VerifiedFile {
  file: Deno.FsFile;
  size: number;
}

/** Options of {@linkcode openVerifiedForRead}. */
export interface ReadOptions {
  /**
   * The identity in `path` was observed inside a held chain already (a walk entry from `walk.ts`):
   * only compare the opened descriptor with it. @default false
   */
  identityProven?: boolean;
  /** Stops a wait for folders to settle. */
  signal?: AbortSignal;
}

/**
 * Opens a checked, existing regular file for reading. The file's folders are held while the entry
 * is lstat'ed (it must be a regular file with the device and inode the guard saw, and no more hard
 * links), then the descriptor must be that same file.
 *
 * @returns the open file, or a failure outcome: `file_not_found`, `not_a_regular_file`,
 * `sandbox_violation` (the path changed between the check and the open), `io_error`.
 * @example
 * ```ts
 * import { PathGuard } from "./path_guard.ts";
 * import { openVerifiedForRead } from "./safe_file.ts";
 * const workspace = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${workspace}/a.txt`, "hello\n");
 * const guard = await PathGuard.create({ workspace, home: null });
 * const check = await guard.check("a.txt", "read");
 * const opened = check.ok ? await openVerifiedForRead(check.path) : null;
 * if (opened !== null && !("ok" in opened)) opened.file.close();
 * await Deno.remove(workspace, { recursive: true });
 * ```
 */
export async function openVerifiedForRead(
  path: ResolvedPath,
  options: ReadOptions = {},
): Promise<VerifiedFile | ToolOutcome> {
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
  let expected = { dev: path.identity?.dev, ino: path.identity?.ino, links: path.links };
  if (options.identityProven !== true) {
    const proven = await proveFile(path, "read file", options.signal);
    if ("ok" in proven) return proven;
    expected = { dev: proven.dev, ino: proven.ino ?? undefined, links: proven.nlink ?? undefined };
  }
  return openProvenForRead(path, expected);
}

/**
 * Opens a regular file whose identity was already proven inside a held chain (a walk entry from
 * `walk.ts`, or the lstat of {@linkcode openVerifiedForRead}) and checks that the descriptor is
 * that very file: same device and inode, a regular file, no more hard links than seen. Synchronous
 * (open and fstat): in the tool Worker they block nothing anyone waits for, and each costs a few
 * µs instead of a round trip to Deno's blocking thread pool.
 *
 * @param expected The identity to compare with. @default the identity and links in `path`
 * @returns the open file, or `sandbox_violation` (another file was opened: nothing of it is
 * read), `file_not_found`, `io_error`.
 */
export function openProvenForRead(
  path: ResolvedPath,
  expected: { dev: number | undefined; ino: number | undefined; links: number | undefined } = {
    dev: path.identity?.dev,
    ino: path.identity?.ino,
    links: path.links,
  },
): VerifiedFile | ToolOutcome {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path.real, { read: true });
  } catch (error) {
    return ioFailure("read file", path, error);
  }
  let stat: Deno.FileInfo;
  try {
    stat = file.statSync();
  } catch (error) {
    file.close();
    return ioFailure("read file", path, error);
  }
  const sameFile = stat.isFile && stat.dev === expected.dev && stat.ino === expected.ino;
  if (!sameFile || (stat.nlink ?? 1) > (expected.links ?? stat.nlink ?? 1)) {
    file.close();
    return changedFailure("read file", path, "it changed between the check and the open");
  }
  return { file, size: stat.size };
}

/**
 * The facts of a checked regular file as they really are in the guard's folder: its folders are
 * held while it is lstat'ed, and it must still be the file the guard saw (for a listing of one
 * file, whose size must not come from a file a swap led to).
 *
 * @returns the lstat of the file, or `file_not_found`, `sandbox_violation`, `io_error`.
 */
export function inspectVerifiedFile(
  path: ResolvedPath,
  signal?: AbortSignal,
): Promise<Deno.FileInfo | ToolOutcome> {
  return proveFile(path, "inspect file", signal);
}

/**
 * Holds the folders of a checked regular file and lstats the file inside the hold. Retries once
 * when the hold breaks (a read has no effect to undo).
 */
async function proveFile(
  path: ResolvedPath,
  action: string,
  signal?: AbortSignal,
): Promise<Deno.FileInfo | ToolOutcome> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const chain = await holdFolder(path, action, signal);
    if (!(chain instanceof FolderChain)) return chain;
    let entry: Deno.FileInfo;
    try {
      entry = Deno.lstatSync(path.real);
    } catch (error) {
      return ioFailure(action, path, error);
    }
    if (!chain.holds()) continue;
    if (
      !entry.isFile || entry.dev !== path.identity?.dev || entry.ino !== path.identity?.ino ||
      (entry.nlink ?? 1) > (path.links ?? entry.nlink ?? 1)
    ) {
      return changedFailure(action, path, "it changed between the check and the open");
    }
    return entry;
  }
  return changedFailure(action, path, "a folder on its path changed while it was opened");
}

/** Holds the folders from the path's anchor down to its folder, or the failure to report. */
async function holdFolder(
  path: ResolvedPath,
  action: string,
  signal?: AbortSignal,
): Promise<FolderChain | ToolOutcome> {
  const anchor = path.anchor ?? path.root;
  const folder = nodePath.dirname(path.real);
  // Settled folders (the usual case) are held without a wait or an asynchronous call.
  const held = FolderChain.tryHold(anchor, folder) ??
    await FolderChain.hold(anchor, folder, { ...(signal === undefined ? {} : { signal }) });
  if (!isChainProblem(held)) return held;
  if (held.problem === "missing") {
    return failure("file_not_found", `Cannot ${action} "${path.display}": it does not exist`, {
      path: path.display,
    });
  }
  return chainFailure(action, path, held);
}

/**
 * Deletes a checked regular file. Folders are refused, and so is a path whose last component is a
 * symlink: deleting `path.real` would delete the link's target, not the link. The file's folders
 * are held, the entry must still be the file the guard saw, and the folders must still hold
 * after the `unlink`.
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
      { path: path.display },
    );
  }
  const { unlinkSync } = await loadNodeFs();
  const chain = await holdFolder(path, "delete file");
  if (!(chain instanceof FolderChain)) return chain;
  try {
    const now = Deno.lstatSync(path.real);
    if (
      !now.isFile || now.dev !== path.identity?.dev || now.ino !== path.identity?.ino ||
      !chain.holds()
    ) {
      return changedFailure("delete file", path, "it changed between the check and the delete");
    }
    unlinkSync(path.real);
  } catch (error) {
    return ioFailure("delete file", path, error);
  }
  if (!chain.holds()) {
    return changedFailure(
      "delete file",
      path,
      "a folder on its path changed during the delete (a concurrent rename); check what was deleted",
    );
  }
  return null;
}

/** A failure for a chain that could not be held, naming the folder. */
export function chainFailure(
  action: string,
  path: ResolvedPath | string,
  problem: ChainProblem,
): ToolOutcome {
  if (problem.problem === "io") return ioFailure(action, path, problem.error);
  const display = typeof path === "string" ? path : path.display;
  const reason = problem.problem === "busy"
    ? `the folder "${problem.folder}" on its path keeps changing (a concurrent rename?); try again`
    : problem.problem === "missing"
    ? `the folder "${problem.folder}" on its path disappeared`
    : `the folder "${problem.folder}" on its path changed between the check and the use`;
  return failure("sandbox_violation", `Cannot ${action} "${display}": ${reason}`, {
    path: display,
    folder: problem.folder,
  });
}

/** `sandbox_violation` for a path that is no longer what the guard saw. */
export function changedFailure(action: string, path: ResolvedPath, reason: string): ToolOutcome {
  return failure("sandbox_violation", `Cannot ${action} "${path.display}": ${reason}`, {
    path: path.display,
  });
}

/**
 * Maps an error thrown by a file operation to an outcome. `NotCapable` is Deno's permission layer
 * (layer 2) stopping the operation, and a walk's `FolderChangedError` a folder that changed under
 * it: both `sandbox_violation`.
 */
export function ioFailure(
  action: string,
  path: ResolvedPath | string,
  error: unknown,
): ToolOutcome {
  if (error instanceof FolderChangedError) return chainFailure(action, path, error.problem);
  const display = typeof path === "string" ? path : path.display;
  const reason = error instanceof Error ? error.message : String(error);
  if (isNotCapable(error)) {
    return failure(
      "sandbox_violation",
      `Cannot ${action} "${display}": Deno's permissions refused it (${reason})`,
      { path: display },
    );
  }
  if (error instanceof Deno.errors.NotFound || (error as { code?: string }).code === "ENOENT") {
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
