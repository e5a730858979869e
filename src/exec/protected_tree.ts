/**
 * What the mount profile needs to know of the roots' trees: where the `.git` entries are, which
 * sensitive files and folders to mask, and which sensitive files git tracks (left visible: git
 * must read them to hash the work tree, and their content is in the object store already).
 *
 * One walk, without following links, gathers it ({@linkcode scanTree}); the run's watch
 * (`protected_path_watch.ts`) walks again only what the run itself creates
 * ({@linkcode scanFolder}).
 *
 * @module
 */

import * as nodePath from "node:path";
import { isWithin } from "../sandbox/mod.ts";
import { readIndexPaths } from "./git_index.ts";

/** Most entries a scan of the roots looks at. */
export const MAX_PROFILE_SCAN_ENTRIES = 200_000;

/** What a scan found; paths absolute. */
export interface TreeFacts {
  /** `.git` entries: path → true for a folder, false for a file (`gitdir: …`). */
  repositories: Map<string, boolean>;
  /** Sensitive files and folders to mask (untracked, or hard links to a masked file). */
  masked: Map<string, "file" | "directory">;
  /** Sensitive files git tracks: visible inside the sandbox ("readable through git"). */
  tracked: Set<string>;
}

/** Where and how to scan. */
export interface TreeScanOptions {
  /** Roots a command may write: the workspace and the write roots. */
  writeRoots: readonly string[];
  /** Roots mounted read-only. */
  readRoots: readonly string[];
  /** Folders never entered (the runs folder, bound read-only as a whole). */
  exclusions: readonly string[];
  /** Tells whether a path matches a sensitive pattern (the path guard's `sensitiveMatch`). */
  sensitiveMatch: (path: string) => string | null;
  /** Most entries to look at. @default {@linkcode MAX_PROFILE_SCAN_ENTRIES} */
  maxEntries?: number;
}

/** A scan's result: the facts and the folders of the write roots (to watch), or why none. */
export type TreeScan =
  | { ok: true; facts: TreeFacts; folders: string[] }
  | { ok: false; reason: string };

/**
 * Walks the roots (links never followed, `.git` folders and masked folders never entered) for
 * `.git` entries and sensitive files; then reads the index of each repository holding one, so
 * that tracked sensitive files stay visible; then, when a masked file has other names (hard
 * links), finds them in the roots and masks them too.
 *
 * @returns the facts and the write roots' folders; `ok: false` when the roots hold more than
 *   `maxEntries` entries (fail closed: no command runs on a partial scan)
 * @example
 * ```ts
 * import { scanTree } from "./protected_tree.ts";
 * const root = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${root}/.env`, "TOKEN=x");
 * const scan = scanTree({
 *   writeRoots: [root], readRoots: [], exclusions: [],
 *   sensitiveMatch: (path) => path.endsWith("/.env") ? ".env" : null,
 * });
 * console.assert(scan.ok && scan.facts.masked.get(`${root}/.env`) === "file");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function scanTree(options: TreeScanOptions): TreeScan {
  const facts: TreeFacts = { repositories: new Map(), masked: new Map(), tracked: new Set() };
  const folders: string[] = [];
  const budget = { left: options.maxEntries ?? MAX_PROFILE_SCAN_ENTRIES };
  const writeRoots = outermost(options.writeRoots);
  // The write roots first, their folders collected (to watch), even inside a read root.
  const readRoots = outermost(options.readRoots).filter((root) =>
    !writeRoots.some((writeRoot) => isWithin(root, writeRoot))
  );
  for (const root of [...writeRoots, ...readRoots]) {
    const into = writeRoots.includes(root) ? folders : [];
    if (!scanFolder(root, options, facts, into, budget)) {
      return {
        ok: false,
        reason:
          `the roots hold more than ${
            options.maxEntries ?? MAX_PROFILE_SCAN_ENTRIES
          } entries to check for .git folders and sensitive files; narrow the workspace or add ` +
          `read roots instead`,
      };
    }
  }
  settleTracked(facts);
  maskHardLinks(facts, options);
  return { ok: true, facts, folders };
}

/**
 * Walks one folder and what it holds into `facts` (links never followed; `.git` folders, masked
 * folders and exclusions never entered), adding each folder walked to `folders`.
 *
 * @returns false when the budget ran out (the facts are then partial)
 */
export function scanFolder(
  root: string,
  options: Pick<TreeScanOptions, "exclusions" | "sensitiveMatch">,
  facts: TreeFacts,
  folders: string[],
  budget: { left: number },
): boolean {
  if (options.exclusions.some((excluded) => isWithin(root, excluded))) return true;
  const pending = [root];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(folder)];
    } catch {
      continue; // Not readable here: then not readable inside either.
    }
    folders.push(folder);
    budget.left -= entries.length;
    if (budget.left < 0) return false;
    for (const entry of entries) {
      const path = nodePath.join(folder, entry.name);
      if (entry.isSymlink) continue; // Links are never followed; their targets are not mounted.
      if (entry.name === ".git") {
        facts.repositories.set(path, entry.isDirectory);
        continue;
      }
      if (options.sensitiveMatch(path) !== null) {
        if (entry.isFile) facts.masked.set(path, "file");
        else if (entry.isDirectory) facts.masked.set(path, "directory");
        continue;
      }
      if (entry.isDirectory && !options.exclusions.some((excluded) => isWithin(path, excluded))) {
        pending.push(path);
      }
    }
  }
  return true;
}

/**
 * Moves the masked files that their repository's index lists to `facts.tracked`. A file belongs
 * to the nearest repository above it; a `.git` file names its repository folder (`gitdir:`).
 */
export function settleTracked(facts: TreeFacts): void {
  const indexes = new Map<string, Set<string> | null>();
  for (const [path, type] of [...facts.masked]) {
    if (type !== "file") continue;
    const repository = nearestRepository(path, facts.repositories);
    if (repository === null) continue;
    let paths = indexes.get(repository.gitPath);
    if (paths === undefined) {
      const gitFolder = repository.isFolder ? repository.gitPath : gitdirOf(repository.gitPath);
      paths = gitFolder === null ? null : readIndexPaths(nodePath.join(gitFolder, "index"));
      indexes.set(repository.gitPath, paths);
    }
    const relative = nodePath.relative(nodePath.dirname(repository.gitPath), path);
    if (paths?.has(relative.split(nodePath.sep).join("/")) === true) {
      facts.masked.delete(path);
      facts.tracked.add(path);
    }
  }
}

/** The `.git` of the closest work tree above `path`, or null. */
function nearestRepository(
  path: string,
  repositories: Map<string, boolean>,
): { gitPath: string; isFolder: boolean } | null {
  let folder = nodePath.dirname(path);
  while (true) {
    const gitPath = nodePath.join(folder, ".git");
    const isFolder = repositories.get(gitPath);
    if (isFolder !== undefined) return { gitPath, isFolder };
    const parent = nodePath.dirname(folder);
    if (parent === folder) return null;
    folder = parent;
  }
}

/**
 * Masks every other name of a masked file within the roots (same device and inode): a hard link
 * `innocent.txt` → `.env` would otherwise show the secret. Only when a masked file has more than
 * one link is the tree walked again, with one `lstat` a file.
 */
function maskHardLinks(facts: TreeFacts, options: TreeScanOptions): void {
  const inodes = new Set<string>();
  for (const [path, type] of facts.masked) {
    if (type !== "file") continue;
    try {
      const info = Deno.lstatSync(path);
      if ((info.nlink ?? 1) > 1) inodes.add(`${info.dev}:${info.ino}`);
    } catch {
      // Gone since the walk: nothing to mask.
    }
  }
  if (inodes.size === 0) return;
  for (const root of outermost([...options.writeRoots, ...options.readRoots])) {
    const pending = [root];
    while (pending.length > 0) {
      const folder = pending.pop() as string;
      let entries: Deno.DirEntry[];
      try {
        entries = [...Deno.readDirSync(folder)];
      } catch {
        continue;
      }
      for (const entry of entries) {
        const path = nodePath.join(folder, entry.name);
        if (entry.isSymlink || entry.name === ".git" || facts.masked.has(path)) continue;
        if (entry.isDirectory) {
          if (!options.exclusions.some((excluded) => isWithin(path, excluded))) pending.push(path);
          continue;
        }
        if (!entry.isFile) continue;
        try {
          const info = Deno.lstatSync(path);
          if (inodes.has(`${info.dev}:${info.ino}`)) {
            facts.masked.set(path, "file");
            facts.tracked.delete(path);
          }
        } catch {
          // Gone since the walk.
        }
      }
    }
  }
}

/** The folder a `.git` file names (`gitdir: ../.git/worktrees/x`), or null. */
export function gitdirOf(path: string): string | null {
  try {
    const text = Deno.readTextFileSync(path).slice(0, 4096);
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(text);
    if (match?.[1] === undefined) return null;
    return nodePath.resolve(nodePath.dirname(path), match[1]);
  } catch {
    return null;
  }
}

/** The paths of `paths` that no other path of `paths` contains. */
export function outermost(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter((path) => !unique.some((other) => other !== path && isWithin(path, other)));
}
