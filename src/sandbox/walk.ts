/**
 * Directory walks for listing and searching: never follow a directory symlink, never open a
 * non-regular file, stop at depth and entry caps, and skip `.git` and the runs folder.
 *
 * Every folder is re-verified as it is read: the folders from the outermost root down to it are
 * held (`_folder_chain.ts`) around its listing and the lstat of each entry, so a folder swapped
 * for a symlink to elsewhere during the walk is never listed, entered or searched. A sub-folder
 * that changed under the walk is passed over and counted (`changed`); the start folder changing
 * ends the walk with an error that `ioFailure` (`safe_file.ts`) reports as `sandbox_violation`.
 *
 * A walk given a {@linkcode TimeBudget} stops when the budget runs out (checked before each entry
 * and each folder it reads) and the caller reports what it found, marked truncated.
 *
 * @module
 */

import type { PathGuard, ResolvedPath } from "./path_guard.ts";
import {
  DEFAULT_SETTLE_BUDGET_MS,
  FolderChain,
  FolderChangedError,
  isChainProblem,
  type SettleBudget,
} from "./_folder_chain.ts";
import type { TimeBudget } from "./time_budget.ts";

/** One entry found by {@linkcode walk}. Symlinks are reported as such and never descended. */
export interface WalkEntry {
  /** Absolute path of the entry (its folder is real; the entry itself may be a symlink). */
  path: string;
  /** Relative to the workspace when inside it, else absolute. */
  display: string;
  name: string;
  type: "file" | "directory" | "symlink" | "other";
  /** Bytes, for files; 0 otherwise. */
  size: number;
  /**
   * Device and inode of a file or folder, from an lstat made while its folders were held (null
   * for other entries): a file opened later must be this one.
   */
  identity: { dev: number; ino: number } | null;
  /** Hard links of a file (lstat `nlink`); 0 for other entries. */
  links: number;
  /** 1 for the entries of the start folder. */
  depth: number;
}

/** Options of {@linkcode walk}. */
export interface WalkOptions {
  guard: PathGuard;
  /** Descend into sub-folders. @default false */
  recursive?: boolean;
  /** Deepest level entered (1 = the start folder's entries). @default 64 */
  maxDepth?: number;
  signal?: AbortSignal;
  /** Filled while walking: what was passed over. */
  stats?: WalkStats;
  /**
   * Stops the walk once it runs out (its `ranOut` then tells the caller). @default no time limit
   */
  budget?: TimeBudget;
}

/** What a walk passed over, for `truncated` flags and summaries. */
export interface WalkStats {
  /** Folders not entered because of `maxDepth`. */
  depth_limited: number;
  /** `.git` and runs folders not entered. */
  excluded: number;
  /** Folders that could not be read. */
  unreadable: number;
  /**
   * Folders passed over because they, or a folder above them, changed while the walk read them
   * (renamed, swapped for a symlink, or still changing after a wait): nothing of theirs is listed.
   */
  changed: number;
}

/** A fresh {@linkcode WalkStats}. */
export function emptyWalkStats(): WalkStats {
  return { depth_limited: 0, excluded: 0, unreadable: 0, changed: 0 };
}

interface Frame {
  chain: FolderChain;
  entries: WalkEntry[];
  next: number;
  depth: number;
}

/**
 * Yields the entries below a checked folder in pre-order (a folder, then everything below it, then
 * its next sibling), sorted by name within each folder so the order is stable. The caller stops
 * iterating to cap the number of entries. A folder's entries are yielded only once its listing and
 * their lstats are proven to have happened in that very folder.
 *
 * @param start A guard-checked path of type `directory`.
 * @throws {TypeError} when `start` is not a folder.
 * @throws {Error} (`FolderChangedError`, mapped by `ioFailure` to `sandbox_violation`) when the
 * start folder's path changed or keeps changing.
 * @example
 * ```ts
 * import { PathGuard } from "./path_guard.ts";
 * import { walk } from "./walk.ts";
 * const guard = await PathGuard.create({ workspace: Deno.cwd(), home: null });
 * const start = await guard.check(".", "list");
 * if (start.ok) for await (const entry of walk(start.path, { guard })) console.log(entry.display);
 * ```
 */
export async function* walk(start: ResolvedPath, options: WalkOptions): AsyncGenerator<WalkEntry> {
  if (start.type !== "directory") {
    throw new TypeError(`Cannot walk "${start.display}": it is not a folder`);
  }
  const { guard, recursive = false, maxDepth = 64, signal, budget: time } = options;
  const stats = options.stats ?? emptyWalkStats();
  const budget: SettleBudget = { remainingMs: DEFAULT_SETTLE_BUDGET_MS };
  const hold = signal === undefined ? { budget } : { budget, signal };

  const held = await FolderChain.hold(start.anchor ?? start.root, start.real, hold);
  if (isChainProblem(held)) throw new FolderChangedError(held);
  const first = await readFolder(held, 1, guard, stats);
  if (first === "changed") {
    throw new FolderChangedError({
      problem: "changed",
      folder: start.real,
      reason: "it changed while it was read",
    });
  }
  const stack: Frame[] = first === null ? [] : [first];
  while (stack.length > 0) {
    if (signal?.aborted) return;
    const frame = stack[stack.length - 1] as Frame;
    const entry = frame.entries[frame.next++];
    if (entry === undefined) {
      stack.pop();
      continue;
    }
    if (time?.exhausted()) return;
    yield entry;
    if (entry.type !== "directory" || !recursive) continue;
    if (guard.excludedFromWalks(entry.path)) {
      stats.excluded += 1;
      continue;
    }
    if (frame.depth >= maxDepth) {
      stats.depth_limited += 1;
      continue;
    }
    if (time?.exhausted()) return;
    const settled = await frame.chain.settle(hold);
    if (isChainProblem(settled)) {
      stats.changed += 1;
      continue;
    }
    frame.chain = settled;
    const child = settled.child(entry.name, entry.identity);
    if (isChainProblem(child)) {
      stats.changed += 1;
      continue;
    }
    const read = await readFolder(child, frame.depth + 1, guard, stats);
    if (read === "changed") stats.changed += 1;
    else if (read !== null) stack.push(read);
  }
}

/**
 * Lists a held folder, sorted, and lstats every entry; then checks that the chain still holds.
 * Returns the frame, `"changed"` when it did not hold, or null when the folder cannot be read.
 */
async function readFolder(
  chain: FolderChain,
  depth: number,
  guard: PathGuard,
  stats: WalkStats,
): Promise<Frame | "changed" | null> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(chain.folder)) names.push(entry.name);
  } catch {
    if (!chain.holds()) return "changed";
    stats.unreadable += 1;
    return null;
  }
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const entries: WalkEntry[] = [];
  for (const name of names) {
    const path = chain.entry(name);
    let stat: Deno.FileInfo;
    try {
      stat = Deno.lstatSync(path);
    } catch {
      continue; // Removed since the listing: pass over it.
    }
    const type: WalkEntry["type"] = stat.isSymlink
      ? "symlink"
      : stat.isDirectory
      ? "directory"
      : stat.isFile
      ? "file"
      : "other";
    const identified = (type === "file" || type === "directory") && stat.ino !== null;
    entries.push({
      path,
      display: guard.display(path),
      name,
      type,
      size: type === "file" ? stat.size : 0,
      identity: identified ? { dev: stat.dev, ino: stat.ino as number } : null,
      links: type === "file" ? stat.nlink ?? 1 : 0,
      depth,
    });
  }
  if (!chain.holds()) return "changed";
  return { chain, entries, next: 0, depth };
}
