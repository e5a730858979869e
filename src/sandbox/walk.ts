/**
 * Directory walks for listing and searching: never follow a directory symlink, never open a
 * non-regular file, stop at depth and entry caps, and skip `.git` and the runs folder.
 *
 * @module
 */

import type { PathGuard, ResolvedPath } from "./path_guard.ts";

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
  /** Device and inode of a file, from the walk's own lstat (null for other entries). */
  identity: { dev: number; ino: number } | null;
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
}

/** What a walk passed over, for `truncated` flags and summaries. */
export interface WalkStats {
  /** Folders not entered because of `maxDepth`. */
  depth_limited: number;
  /** `.git` and runs folders not entered. */
  excluded: number;
  /** Folders that could not be read. */
  unreadable: number;
}

/** A fresh {@linkcode WalkStats}. */
export function emptyWalkStats(): WalkStats {
  return { depth_limited: 0, excluded: 0, unreadable: 0 };
}

/**
 * Yields the entries below a checked folder in pre-order (a folder, then everything below it, then
 * its next sibling), sorted by name within each folder so the order is stable. The caller stops
 * iterating to cap the number of entries.
 *
 * @param start A guard-checked path of type `directory`.
 * @throws {TypeError} when `start` is not a folder.
 */
export async function* walk(start: ResolvedPath, options: WalkOptions): AsyncGenerator<WalkEntry> {
  if (start.type !== "directory") {
    throw new TypeError(`Cannot walk "${start.display}": it is not a folder`);
  }
  const { guard, recursive = false, maxDepth = 64, signal } = options;
  const stats = options.stats ?? emptyWalkStats();
  // One frame a folder being listed: its sorted entries and the next one to yield.
  const stack: { folder: string; entries: Deno.DirEntry[]; next: number; depth: number }[] = [];
  const open = async (folder: string, depth: number) => {
    const entries: Deno.DirEntry[] = [];
    try {
      for await (const entry of Deno.readDir(folder)) entries.push(entry);
    } catch {
      stats.unreadable += 1;
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    stack.push({ folder, entries, next: 0, depth });
  };
  await open(start.real, 1);
  while (stack.length > 0) {
    if (signal?.aborted) return;
    const frame = stack[stack.length - 1] as (typeof stack)[number];
    const entry = frame.entries[frame.next++];
    if (entry === undefined) {
      stack.pop();
      continue;
    }
    const path = frame.folder === "/" ? `/${entry.name}` : `${frame.folder}/${entry.name}`;
    let type: WalkEntry["type"] = "other";
    let size = 0;
    let identity: WalkEntry["identity"] = null;
    if (entry.isSymlink) type = "symlink";
    else if (entry.isDirectory) type = "directory";
    else if (entry.isFile) {
      type = "file";
      try {
        const stat = await Deno.lstat(path);
        if (!stat.isFile) continue; // replaced since readDir: pass over it
        size = stat.size;
        identity = stat.ino === null ? null : { dev: stat.dev, ino: stat.ino };
      } catch {
        continue;
      }
    }
    yield {
      path,
      display: guard.display(path),
      name: entry.name,
      type,
      size,
      identity,
      depth: frame.depth,
    };
    if (type === "directory" && recursive) {
      if (guard.excludedFromWalks(path)) stats.excluded += 1;
      else if (frame.depth >= maxDepth) stats.depth_limited += 1;
      else await open(path, frame.depth + 1);
    }
  }
}
