/**
 * Atomic writes into a checked path, through a temporary that exists only in the proven folder.
 * The guarantees and the one remaining window are described in `safe_file.ts`; the proof that a
 * folder chain held is in `_folder_chain.ts`.
 *
 * @module
 */

import type * as NodeFs from "node:fs";
import * as nodePath from "node:path";
import type { ResolvedPath } from "./path_guard.ts";
import { FolderChain, isChainProblem } from "./_folder_chain.ts";
import { chainFailure, changedFailure, ioFailure } from "./safe_file.ts";
import { failure, type ToolOutcome } from "../result/mod.ts";
import { loadNodeFs } from "./_node_fs.ts";

/** Options of {@linkcode writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Replace an existing file. @default false */
  overwrite?: boolean;
  /** Create missing parent folders. @default true */
  createDirectories?: boolean;
}

const ACTION = "write file";
/** `node:fs`, set by {@linkcode writeFileAtomic} before anything below runs (see `_node_fs.ts`). */
let nodeFs: typeof NodeFs;
/** How long a misplaced temporary is chased through its unique name, in tries (1 ms apart). */
const REMOVAL_TRIES = 50;

/**
 * Writes `content` to a checked path atomically: a temporary file with a random name in the
 * file's folder (held, see `_folder_chain.ts`), written and synced through its descriptor, then
 * `rename` onto the name (overwrite: replaces it, never follows a symlink there) or `link` to it
 * (no overwrite: fails if the name appeared meanwhile). Missing folders are built inside a
 * temporary folder, file included, which one `rename` puts in place. An existing file keeps its
 * mode. The folders must hold from before the first creation until after the last rename.
 *
 * @returns `null` on success, or a failure outcome: `path_conflict`, `not_a_regular_file`,
 * `file_not_found` (missing folder without `createDirectories`), `sandbox_violation` (the path
 * changed between the check and the write), `io_error`.
 * @example
 * ```ts
 * import { PathGuard } from "./path_guard.ts";
 * import { writeFileAtomic } from "./atomic_write.ts";
 * const workspace = await Deno.makeTempDir();
 * const guard = await PathGuard.create({ workspace, home: null });
 * const check = await guard.check("notes/a.txt", "write");
 * if (check.ok) console.assert((await writeFileAtomic(check.path, "hello\n")) === null);
 * await Deno.remove(workspace, { recursive: true });
 * ```
 */
export async function writeFileAtomic(
  path: ResolvedPath,
  content: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<ToolOutcome | null> {
  const { overwrite = false, createDirectories = true } = options;
  nodeFs = await loadNodeFs();
  if (path.type === "directory" || path.type === "other") {
    return failure(
      "not_a_regular_file",
      `Cannot write file "${path.display}": it is not a regular file`,
      { path: path.display },
    );
  }
  if (path.type === "file" && !overwrite) {
    return failure(
      "path_conflict",
      `Cannot write file "${path.display}": it exists; pass "overwrite": true to replace it`,
      { path: path.display },
    );
  }
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  const anchor = path.anchor ?? path.root;
  const held = await FolderChain.hold(anchor, nodePath.dirname(path.real));
  if (!isChainProblem(held)) return writeInFolder(held, path, bytes, overwrite);
  if (held.problem !== "missing" || held.index === 0) return chainFailure(ACTION, path, held);
  if (!createDirectories) {
    return failure(
      "file_not_found",
      `Cannot write file "${path.display}": its folder does not exist`,
      {
        path: path.display,
      },
    );
  }
  if (path.type === "file") {
    return changedFailure(ACTION, path, "its folder disappeared between the check and the write");
  }
  const parent = await FolderChain.hold(anchor, nodePath.dirname(held.folder));
  if (isChainProblem(parent)) return chainFailure(ACTION, path, parent);
  const missing = nodePath.relative(parent.folder, path.real).split("/");
  return await writeUnderNewFolders(parent, missing, bytes, path);
}

/** The folder exists: a temporary beside the file, then rename or link. */
async function writeInFolder(
  chain: FolderChain,
  path: ResolvedPath,
  bytes: Uint8Array,
  overwrite: boolean,
): Promise<ToolOutcome | null> {
  let current: NodeFs.Stats | null;
  try {
    current = lstatOrNull(path.real);
  } catch (error) {
    return ioFailure(ACTION, path, error);
  }
  if (current?.isDirectory()) {
    return failure("not_a_regular_file", `Cannot write file "${path.display}": it is a folder`, {
      path: path.display,
    });
  }
  const sameFile = current !== null && current.isFile() && current.dev === path.identity?.dev &&
    current.ino === path.identity?.ino;
  if (path.type === "file" && !sameFile) {
    return changedFailure(ACTION, path, "it changed between the check and the write");
  }
  if (!overwrite && current !== null) return appeared(path);
  if (!chain.holds()) return changedFailure(ACTION, path, folderChanged("the check"));
  const mode = current?.isFile() ? current.mode & 0o7777 : null;
  const temporary = chain.entry(temporaryName());
  let fd: number;
  try {
    fd = nodeFs.openSync(temporary, "wx", 0o644);
  } catch (error) {
    return ioFailure(ACTION, path, error);
  }
  // Removes the temporary through its unique name before answering (or says it could not).
  const removedThen = async (outcome: ToolOutcome, links = 0): Promise<ToolOutcome> =>
    (await removeTemporary(fd, temporary, links)) ? outcome : leftBehind(path, temporary);
  const errorOutcome = (error: unknown): ToolOutcome =>
    chain.holds()
      ? ioFailure(ACTION, path, error)
      : changedFailure(ACTION, path, folderChanged("the write"));
  try {
    if (!chain.holds()) {
      return await removedThen(changedFailure(ACTION, path, folderChanged("the creation")));
    }
    writeAll(fd, bytes);
    if (mode !== null) nodeFs.fchmodSync(fd, mode);
    nodeFs.fsyncSync(fd);
    if (overwrite) {
      const now = lstatOrNull(path.real);
      if (now !== null && (now.isSymbolicLink() || !now.isFile())) {
        return await removedThen(
          changedFailure(ACTION, path, "it changed between the check and the write"),
        );
      }
      if (!chain.holds()) {
        return await removedThen(changedFailure(ACTION, path, folderChanged("the write")));
      }
      nodeFs.renameSync(temporary, path.real);
      return chain.holds() ? null : misplaced(path);
    }
    if (!chain.holds()) {
      return await removedThen(changedFailure(ACTION, path, folderChanged("the write")));
    }
    try {
      nodeFs.linkSync(temporary, path.real);
    } catch (error) {
      return await removedThen(
        errorCode(error) === "EEXIST" ? appeared(path) : errorOutcome(error),
      );
    }
    const held = chain.holds();
    const removed = await removeTemporary(fd, temporary, 1);
    if (!held) return misplaced(path);
    return removed ? null : leftBehind(path, temporary);
  } catch (error) {
    return await removedThen(errorOutcome(error));
  } finally {
    nodeFs.closeSync(fd);
  }
}

/**
 * Some folders are missing: build them, file included, inside a temporary folder with a random
 * name in the deepest existing folder (held), then rename it to the first missing name. Everything
 * after the temporary folder's creation goes through its unique name.
 *
 * @param missing The missing folder names, then the file name.
 */
async function writeUnderNewFolders(
  parent: FolderChain,
  missing: string[],
  bytes: Uint8Array,
  path: ResolvedPath,
): Promise<ToolOutcome | null> {
  const top = parent.entry(temporaryName());
  if (!parent.holds()) return changedFailure(ACTION, path, folderChanged("the check"));
  try {
    nodeFs.mkdirSync(top);
  } catch (error) {
    return parent.holds()
      ? ioFailure(ACTION, path, error)
      : changedFailure(ACTION, path, folderChanged("the creation"));
  }
  let folderFd: number;
  try {
    folderFd = nodeFs.openSync(top, nodeFs.constants.O_RDONLY | nodeFs.constants.O_DIRECTORY);
  } catch {
    // Created but not reachable right now: a swap hides it. Try its unique name for a while.
    for (let tries = 0; tries < REMOVAL_TRIES; tries += 1) {
      if (tryRemoveTree(top)) return changedFailure(ACTION, path, folderChanged("the creation"));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return leftBehind(path, top);
  }
  // Removes the temporary folder through its unique name before answering.
  const removedThen = async (outcome: ToolOutcome): Promise<ToolOutcome> =>
    (await removeTree(folderFd, top)) ? outcome : leftBehind(path, top);
  const errorOutcome = (error: unknown): ToolOutcome =>
    parent.holds()
      ? ioFailure(ACTION, path, error)
      : changedFailure(ACTION, path, folderChanged("the write"));
  try {
    if (!parent.holds()) {
      return await removedThen(changedFailure(ACTION, path, folderChanged("the creation")));
    }
    let inner = top;
    for (const name of missing.slice(1, -1)) {
      inner = `${inner}/${name}`;
      nodeFs.mkdirSync(inner);
    }
    const fd = nodeFs.openSync(`${inner}/${missing[missing.length - 1]}`, "wx", 0o644);
    try {
      writeAll(fd, bytes);
      nodeFs.fsyncSync(fd);
    } finally {
      nodeFs.closeSync(fd);
    }
    if (!parent.holds()) {
      return await removedThen(changedFailure(ACTION, path, folderChanged("the write")));
    }
    try {
      nodeFs.renameSync(top, parent.entry(missing[0] as string));
    } catch (error) {
      const code = errorCode(error);
      if (code === "EEXIST" || code === "ENOTEMPTY" || code === "ENOTDIR") {
        return await removedThen(failure(
          "path_conflict",
          `Cannot write file "${path.display}": "${missing[0]}" appeared while writing`,
          { path: path.display },
        ));
      }
      return await removedThen(errorOutcome(error));
    }
    return parent.holds() ? null : misplaced(path);
  } catch (error) {
    return await removedThen(errorOutcome(error));
  } finally {
    nodeFs.closeSync(folderFd);
  }
}

/**
 * Unlinks `temporary` until the descriptor's link count is down to `links` (0: gone everywhere),
 * for at most {@linkcode REMOVAL_TRIES} ms while a swap may hide it. The name exists nowhere else,
 * so unlinking it can only ever remove our own file, wherever a swap put it. Returns whether the
 * count got there.
 */
async function removeTemporary(fd: number, temporary: string, links: number): Promise<boolean> {
  for (let tries = 0; tries < REMOVAL_TRIES; tries += 1) {
    try {
      nodeFs.unlinkSync(temporary);
    } catch {
      // Not reachable through this path right now (or already gone): the count tells.
    }
    if (nodeFs.fstatSync(fd).nlink <= links) return true;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return false;
}

/**
 * Removes a temporary folder tree through its unique name until the folder's descriptor shows no
 * link left, for at most {@linkcode REMOVAL_TRIES} ms. Returns whether it is gone.
 */
async function removeTree(folderFd: number, top: string): Promise<boolean> {
  for (let tries = 0; tries < REMOVAL_TRIES; tries += 1) {
    tryRemoveTree(top);
    if (nodeFs.fstatSync(folderFd).nlink === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return false;
}

/** One recursive removal through the unique name; true when it removed something. */
function tryRemoveTree(top: string): boolean {
  try {
    Deno.removeSync(top, { recursive: true });
    return true;
  } catch {
    return false;
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.byteLength) {
    written += nodeFs.writeSync(fd, bytes, written, bytes.byteLength - written);
  }
}

function lstatOrNull(path: string): NodeFs.Stats | null {
  try {
    return nodeFs.lstatSync(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT" || error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

function errorCode(error: unknown): string | undefined {
  if (error instanceof Deno.errors.AlreadyExists) return "EEXIST";
  return (error as { code?: string }).code;
}

function temporaryName(): string {
  return `.kagent-${crypto.randomUUID()}.tmp`;
}

function folderChanged(during: string): string {
  return `a folder on its path changed during ${during} (a concurrent rename)`;
}

function appeared(path: ResolvedPath): ToolOutcome {
  return failure(
    "path_conflict",
    `Cannot write file "${path.display}": it appeared while writing`,
    {
      path: path.display,
    },
  );
}

function misplaced(path: ResolvedPath): ToolOutcome {
  return changedFailure(
    ACTION,
    path,
    "a folder on its path changed during the final rename (a concurrent rename); the file may " +
      "have been written where the swapped folder led",
  );
}

function leftBehind(path: ResolvedPath, temporary: string): ToolOutcome {
  return changedFailure(
    ACTION,
    path,
    `a folder on its path was swapped while writing; the temporary "${
      nodePath.basename(temporary)
    }" could not be removed from where the swapped folder led`,
  );
}
