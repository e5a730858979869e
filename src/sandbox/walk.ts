/**
 * Directory walks for listing and searching: never follow a directory symlink, never open a
 * non-regular file, stop at depth and entry caps, and skip `.git` and the runs folder.
 *
 * Every folder is re-verified as it is read: the folders from the outermost root down to it are
 * held (`_folder_chain.ts`) around its listing and the lstat of each entry, so a folder swapped
 * for a symlink to elsewhere during the walk is never listed, entered or searched. A folder's
 * entries are lstat'ed in batches, smallest names first (`_name_queue.ts`: a large folder is a
 * heap, never sorted whole), each batch proven by the chain before any of it is yielded: a walk
 * that stops after ten entries of a folder of 200,000 lstats a few dozen. The file system calls
 * are synchronous (a few µs each against 15 – 45 µs for the asynchronous forms); the walk lets
 * other events in every 50 ms, so an abort still arrives. A sub-folder
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
import { NameQueue } from "./_name_queue.ts";
import type { TimeBudget } from "./time_budget.ts";
import type { IgnoreRules } from "./ignore_rules.ts";

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
  /**
   * Folders whose own size (`st_size`) reaches this many bytes are listed with the streaming
   * reader (see {@linkcode LARGE_FOLDER_BYTES}); tests pass 0 to use it for every folder.
   * @default 1048576 (1 MiB)
   */
  largeFolderBytes?: number;
  /**
   * Lstat every entry (for its size, identity and links). With false, an entry the folder's
   * listing types as a regular file is yielded without an lstat: `size` 0, `identity` null,
   * `links` 0; folders, links and other entries are lstat'ed as ever. For a search that reads only
   * some of the files (the ripgrep candidates) and proves each one it reads through the guard
   * first: 13,000 lstats were a third of a search of a `node_modules` tree (issue 16).
   * @default true
   */
  statFiles?: boolean;
  /**
   * `.gitignore`/`.ignore` rules: an entry they ignore is neither yielded nor entered, and is
   * counted in `stats.ignored`. @default null (every entry)
   */
  ignoreRules?: IgnoreRules | null;
}

/** What a walk passed over, for `truncated` flags and summaries. */
export interface WalkStats {
  /** Folders not entered because of `maxDepth`. */
  depth_limited: number;
  /** `.git` and runs folders not entered. */
  excluded: number;
  /** Entries left out by `.gitignore`/`.ignore` rules (an ignored folder counts once). */
  ignored: number;
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
  return { depth_limited: 0, excluded: 0, ignored: 0, unreadable: 0, changed: 0 };
}

interface Frame {
  chain: FolderChain;
  /** Names not lstat'ed yet, smallest first. */
  names: NameQueue;
  /** With `statFiles: false`: the names the listing typed as regular files (never lstat'ed). */
  files: Set<string> | null;
  /** The current batch, lstat'ed and proven; `next` is the next to yield. */
  entries: WalkEntry[];
  next: number;
  /** Size of the next batch. */
  batch: number;
  depth: number;
}

/** How {@linkcode readFolder} lists: see `WalkOptions.largeFolderBytes` and `statFiles`. */
interface FolderReading {
  largeFolderBytes: number;
  statFiles: boolean;
}

/** Entries lstat'ed in a folder's first batch; each later batch doubles, up to the largest. */
const FIRST_BATCH = 64;
const LARGEST_BATCH = 4096;
/** Longest stretch of synchronous work before the walk lets other events (an abort) in, in ms. */
const YIELD_EVERY_MS = 50;

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
  const ignoreRules = options.ignoreRules ?? null;
  const stats = options.stats ?? emptyWalkStats();
  const budget: SettleBudget = { remainingMs: DEFAULT_SETTLE_BUDGET_MS };
  const hold = signal === undefined ? { budget } : { budget, signal };

  const anchor = start.anchor ?? start.root;
  const held = FolderChain.tryHold(anchor, start.real) ??
    await FolderChain.hold(anchor, start.real, hold);
  if (isChainProblem(held)) throw new FolderChangedError(held);
  const reading: FolderReading = {
    largeFolderBytes: options.largeFolderBytes ?? LARGE_FOLDER_BYTES,
    statFiles: options.statFiles ?? true,
  };
  const first = await readFolder(held, 1, guard, stats, reading);
  const startChanged = (): FolderChangedError =>
    new FolderChangedError({
      problem: "changed",
      folder: start.real,
      reason: "it changed while it was read",
    });
  if (first === "changed") throw startChanged();
  const stack: Frame[] = first === null ? [] : [first];
  let lastYield = performance.now();
  while (stack.length > 0) {
    if (performance.now() - lastYield >= YIELD_EVERY_MS) {
      // Everything here is synchronous: let a pending abort (a message) arrive.
      await new Promise((resolve) => setTimeout(resolve, 0));
      lastYield = performance.now();
    }
    if (signal?.aborted) return;
    const frame = stack[stack.length - 1] as Frame;
    if (frame.next >= frame.entries.length) {
      if (frame.names.remaining === 0) {
        stack.pop();
        continue;
      }
      if (time?.exhausted()) return;
      if (!readBatch(frame, guard)) {
        if (stack.length === 1 && frame.depth === 1) throw startChanged();
        stats.changed += 1;
        stack.pop();
      }
      continue;
    }
    const entry = frame.entries[frame.next++] as WalkEntry;
    if (time?.exhausted()) return;
    if (ignoreRules?.ignores(entry.path, entry.type === "directory")) {
      stats.ignored += 1;
      continue;
    }
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
    const read = await readFolder(child, frame.depth + 1, guard, stats, reading);
    if (read === "changed") stats.changed += 1;
    else if (read !== null) stack.push(read);
  }
}

/**
 * Default of `WalkOptions.largeFolderBytes`: a folder whose own size (`st_size`) reaches this many
 * bytes is listed with the streaming reader. Folder sizes grow with their entries on the usual
 * file systems (ext4, XFS and btrfs: bytes of entries, about 28 a short name on ext4; tmpfs: 20 a
 * name): 1 MiB is some 37,000 names on ext4, which the synchronous reader lists with about 30 MiB
 * more at its peak. A wrong guess costs speed or memory, never a result: both readers return the
 * same names.
 */
export const LARGE_FOLDER_BYTES = 1024 * 1024;

/**
 * Lists a held folder and proves its first batch of entries. Returns the frame, `"changed"` when
 * the chain did not hold, or null when the folder cannot be read.
 *
 * A small folder is read synchronously (one `getdents` loop instead of a round trip to Deno's
 * blocking thread pool per chunk). A large one is read with `Deno.readDir`, which hands the names
 * over as it goes: `Deno.readDirSync` builds every entry as an object first, measured at 167 MiB
 * more for a folder of 200,000 files against 20 MiB — but one asynchronous step a name makes it
 * about 3× slower (1.2 – 1.3 s against 0.4 – 0.5 s; issue 16): memory is bounded, time is not.
 */
async function readFolder(
  chain: FolderChain,
  depth: number,
  guard: PathGuard,
  stats: WalkStats,
  reading: FolderReading,
): Promise<Frame | "changed" | null> {
  const names: string[] = [];
  const files = reading.statFiles ? null : new Set<string>();
  const take = (entry: Deno.DirEntry) => {
    names.push(entry.name);
    if (files !== null && entry.isFile) files.add(entry.name);
  };
  try {
    if (Deno.statSync(chain.folder).size < reading.largeFolderBytes) {
      for (const entry of Deno.readDirSync(chain.folder)) take(entry);
    } else {
      for await (const entry of Deno.readDir(chain.folder)) take(entry);
    }
  } catch {
    if (!chain.holds()) return "changed";
    stats.unreadable += 1;
    return null;
  }
  const frame: Frame = {
    chain,
    names: new NameQueue(names),
    files,
    entries: [],
    next: 0,
    batch: FIRST_BATCH,
    depth,
  };
  if (!readBatch(frame, guard)) return "changed";
  return frame;
}

/**
 * Takes the next batch of names (smallest first), lstats each, then checks that the chain still
 * holds: the chain is compared with its first observation, so every batch is proven on its own.
 * Returns false when it did not hold (nothing of the batch may be used).
 */
function readBatch(frame: Frame, guard: PathGuard): boolean {
  const { chain, depth } = frame;
  const entries: WalkEntry[] = [];
  for (let count = 0; count < frame.batch; count += 1) {
    const name = frame.names.take();
    if (name === undefined) break;
    const path = chain.entry(name);
    if (frame.files?.has(name)) {
      // Listed as a regular file, not lstat'ed (`statFiles: false`): whoever reads it proves it.
      const display = guard.display(path);
      entries.push({ path, display, name, type: "file", size: 0, identity: null, links: 0, depth });
      continue;
    }
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
  frame.batch = Math.min(frame.batch * 2, LARGEST_BATCH);
  frame.entries = entries;
  frame.next = 0;
  return chain.holds();
}
