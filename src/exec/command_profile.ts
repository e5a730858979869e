/**
 * The mount profile of one confined command: what exists inside the bubblewrap sandbox, and what
 * of it is writable. Only the system folders, the programs' own folders, the roots and the run's
 * folders exist; inside writable roots the protected paths stay read-only (the whole `.git`, the
 * config, permissions, instructions, skill folders, the runs folder) and sensitive files (`.env`,
 * keys) are masked unless the call was approved for them.
 *
 * A protected path that does not exist yet (a `.git` at the top of a writable root, or
 * `.git/commondir`) cannot be bound without creating it on the host; it is watched instead: when a
 * command creates one, {@linkcode quarantineCreated} moves it out of the root and the call fails.
 *
 * Built in the tool Worker before each command (the tree changes between calls), from plain data.
 *
 * @module
 */

import * as nodePath from "node:path";
import { isWithin } from "../sandbox/mod.ts";
import type { BwrapPlan } from "./bubblewrap.ts";
import type { SystemMount } from "./system_mounts.ts";

/**
 * Entries of a `.git` folder that stay read-only even with `tools.git_write`: each makes git run a
 * program or read another repository (`config`: core.fsmonitor, filters, aliases; `hooks/`;
 * `commondir` and `objects/info/alternates`: another repository's config and objects; `info/`:
 * attributes and excludes; `config.worktree`: per-worktree config).
 */
export const GIT_READ_ONLY_ENTRIES: readonly string[] = [
  "config",
  "config.worktree",
  "hooks",
  "commondir",
  "info",
  "objects/info/alternates",
];

/** Most entries scanned for `.git` folders and sensitive files before a command. */
export const MAX_PROFILE_SCAN_ENTRIES = 200_000;

/** What {@linkcode commandProfile} needs; every path absolute and real. */
export interface ProfileInputs {
  bwrapPath: string;
  system: readonly SystemMount[];
  /** The workspace and the other write roots (the run's workspace/ and deliverables/ included). */
  writeRoots: readonly string[];
  /** Read-only roots. */
  readRoots: readonly string[];
  /** Paths tools never write (runs folder, config, permissions, instructions, skill folders…). */
  protectedPaths: readonly string[];
  /** Folders inside a protected path that stay writable (the run's workspace/ and deliverables/). */
  writableExceptions: readonly string[];
  /** Folders of the allowlisted programs outside the system folders, read-only. */
  programFolders: readonly string[];
  /** Skill folders, read-only. */
  skillDirs: readonly string[];
  /** The children's HOME and TMPDIR (run-private), read-write. */
  home: string;
  tmpDir: string;
  /** Tells whether a path matches a sensitive pattern (the path guard's `sensitiveMatch`). */
  sensitiveMatch: (path: string) => string | null;
  /** Sensitive paths this call was approved for: not masked. */
  unmasked: readonly string[];
  /** `tools.git_write`: `.git` writable except {@linkcode GIT_READ_ONLY_ENTRIES}. */
  gitWrite: boolean;
  /** `sandbox.command_network`. */
  network: boolean;
  processLimit: { prlimitPath: string; max: number } | null;
  /** Folders a scan never enters (the runs folder, bound read-only as a whole). */
  scanExclusions: readonly string[];
  /**
   * A call the policy treats as read-only (a `readonly` declarative tool, a known-safe command):
   * every root, HOME and TMPDIR are bound read-only; only the sandbox's own `/tmp` is writable.
   * @default false
   */
  readOnly?: boolean;
}

/** The profile, or why none could be built. */
export type ProfileResult =
  | { ok: true; plan: BwrapPlan; watched: string[]; masked: number }
  | { ok: false; reason: string };

/**
 * Builds the bubblewrap plan of one command: scans the writable and readable roots (without
 * following links, at most {@linkcode MAX_PROFILE_SCAN_ENTRIES} entries) for `.git` entries and
 * sensitive files, and lists the protected paths that are missing (to watch).
 *
 * @returns the plan, the watched paths and how many files were masked; or `ok: false` when the
 *   roots hold more entries than the scan may look at (fail closed: the command does not run).
 * @example
 * ```ts
 * import { commandProfile } from "./command_profile.ts";
 * const root = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${root}/.env`, "TOKEN=x");
 * const result = commandProfile({
 *   bwrapPath: "/usr/bin/bwrap", system: [], writeRoots: [root], readRoots: [],
 *   protectedPaths: [], writableExceptions: [], programFolders: [], skillDirs: [],
 *   home: `${root}/home`, tmpDir: `${root}/tmp`,
 *   sensitiveMatch: (path) => path.endsWith("/.env") ? ".env" : null, unmasked: [],
 *   gitWrite: false, network: false, processLimit: null, scanExclusions: [],
 * });
 * console.assert(result.ok && result.masked === 1 && result.watched.includes(`${root}/.git`));
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function commandProfile(inputs: ProfileInputs): ProfileResult {
  const readable = new Set<string>([
    ...inputs.readRoots,
    ...inputs.programFolders,
    ...inputs.skillDirs,
  ]);
  const known = new Set<string>(readable);
  const masked: { path: string; type: "file" | "directory" }[] = [];
  const watched = new Set<string>();
  const writeRoots = outermost(inputs.writeRoots);
  const inWritable = (path: string) => writeRoots.some((root) => isWithin(path, root));

  for (const path of inputs.protectedPaths) {
    if (!inWritable(path)) continue;
    if (exists(path)) readable.add(path);
    else watched.add(path);
  }
  // The run's own folders inside the protected runs folder are writable again: deeper binds win.
  const writable = new Set<string>([...inputs.writeRoots, inputs.home, inputs.tmpDir]);
  if (inputs.readOnly) {
    for (const path of writable) {
      known.add(path);
      readable.add(path);
    }
  }

  let budget = MAX_PROFILE_SCAN_ENTRIES;
  const unmasked = new Set(inputs.unmasked);
  const exclusions = inputs.scanExclusions;
  for (const root of outermost([...inputs.writeRoots, ...inputs.readRoots])) {
    // A repository planted at the top of the workspace or a write root would be the one the
    // user's next `git status` there reads (the run's own scratch folders excepted).
    if (writeRoots.includes(root) && !inputs.writableExceptions.includes(root)) {
      const gitPath = nodePath.join(root, ".git");
      if (!exists(gitPath)) watched.add(gitPath);
    }
    const pending = [root];
    while (pending.length > 0) {
      const folder = pending.pop() as string;
      let entries: Deno.DirEntry[];
      try {
        entries = [...Deno.readDirSync(folder)];
      } catch {
        continue; // Not readable here: then not readable inside either.
      }
      budget -= entries.length;
      if (budget < 0) {
        return {
          ok: false,
          reason: `the roots hold more than ${MAX_PROFILE_SCAN_ENTRIES} entries to check for ` +
            `.git folders and sensitive files; narrow the workspace or add read roots instead`,
        };
      }
      for (const entry of entries) {
        const path = nodePath.join(folder, entry.name);
        if (entry.isSymlink) continue; // Links are never followed; their targets are not mounted.
        if (entry.name === ".git") {
          protectGit(path, entry.isDirectory, inputs.gitWrite, readable, watched, inWritable);
          continue;
        }
        const sensitive = inputs.sensitiveMatch(path);
        if (sensitive !== null && !unmasked.has(path)) {
          if (entry.isFile) masked.push({ path, type: "file" });
          else if (entry.isDirectory) masked.push({ path, type: "directory" });
          continue;
        }
        if (entry.isDirectory && !exclusions.some((excluded) => isWithin(path, excluded))) {
          pending.push(path);
        }
      }
    }
  }
  const plan: BwrapPlan = {
    mode: "bwrap",
    bwrapPath: inputs.bwrapPath,
    system: inputs.system,
    writablePaths: inputs.readOnly ? [] : [...writable].filter((path) => !readable.has(path)),
    // Read roots, programs' and skill folders were found on the main thread (the Worker may not
    // look at program folders); the rest came from the scan and must still exist.
    readablePaths: [...readable].filter((path) => known.has(path) || exists(path)),
    maskedPaths: masked,
    network: inputs.network,
  };
  if (inputs.processLimit !== null) plan.processLimit = inputs.processLimit;
  return { ok: true, plan, watched: [...watched].sort(), masked: masked.length };
}

/**
 * Protects one `.git` entry: read-only as a whole; with `gitWrite`, writable except
 * {@linkcode GIT_READ_ONLY_ENTRIES} (missing ones watched). A `.git` file (`gitdir: <path>`, a
 * worktree or submodule) is read-only, and so is the folder it names when that lies in a writable
 * root.
 */
function protectGit(
  path: string,
  isDirectory: boolean,
  gitWrite: boolean,
  readable: Set<string>,
  watched: Set<string>,
  inWritable: (path: string) => boolean,
): void {
  if (!isDirectory) {
    readable.add(path);
    const target = gitdirOf(path);
    if (target !== null && inWritable(target) && exists(target)) {
      protectGit(target, true, gitWrite, readable, watched, inWritable);
    }
    return;
  }
  if (!gitWrite) {
    readable.add(path);
    return;
  }
  for (const entry of GIT_READ_ONLY_ENTRIES) {
    const inside = nodePath.join(path, entry);
    if (exists(inside)) readable.add(inside);
    else watched.add(inside);
  }
}

/** The folder a `.git` file names (`gitdir: ../.git/worktrees/x`), or null. */
function gitdirOf(path: string): string | null {
  try {
    const text = Deno.readTextFileSync(path).slice(0, 4096);
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(text);
    if (match?.[1] === undefined) return null;
    return nodePath.resolve(nodePath.dirname(path), match[1]);
  } catch {
    return null;
  }
}

/** What {@linkcode quarantineCreated} moved. */
export interface QuarantinedPath {
  /** Where the command created it. */
  path: string;
  /** Where it is now (inside the run folder), or null when it had to be removed. */
  moved_to: string | null;
}

/**
 * After a command: every watched path that now exists was created by the command where a
 * protected path belongs (`.git`, `.git/commondir`…). Each is moved into `quarantineDir` (or
 * removed when it cannot be moved, e.g. across file systems), so no later `git` on the host reads
 * it.
 *
 * @param watched From {@linkcode commandProfile}.
 * @param quarantineDir A folder of the run (created when needed).
 * @returns What was found and where it went; empty when nothing was created.
 */
export function quarantineCreated(
  watched: readonly string[],
  quarantineDir: string,
): QuarantinedPath[] {
  const found: QuarantinedPath[] = [];
  for (const path of watched) {
    if (!exists(path)) continue;
    let movedTo: string | null = null;
    try {
      Deno.mkdirSync(quarantineDir, { recursive: true });
      const target = nodePath.join(
        quarantineDir,
        `${Date.now()}-${found.length}-${nodePath.basename(path)}`,
      );
      Deno.renameSync(path, target);
      movedTo = target;
    } catch {
      try {
        Deno.removeSync(path, { recursive: true });
      } catch {
        // Reported below as still present by the caller's check.
      }
    }
    found.push({ path, moved_to: movedTo });
  }
  return found;
}

/** The paths of `paths` that no other path of `paths` contains. */
function outermost(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter((path) => !unique.some((other) => other !== path && isWithin(path, other)));
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
