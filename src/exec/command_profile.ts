/**
 * The mount profile of one confined command: what exists inside the bubblewrap sandbox, and what
 * of it is writable. Only the system folders, the programs' own folders, the roots and the run's
 * folders exist; inside writable roots the protected paths stay read-only (the whole `.git`, the
 * config, permissions, instructions, skill folders, the runs folder, the folder a repository's
 * `core.hooksPath` names), sensitive files git does not track (`.env`, keys) and their hard links
 * are masked unless the call was approved for them, and a `.git/config` holding credentials is
 * replaced by a scrubbed copy.
 *
 * A protected path that does not exist yet (a `.git` at the top of a writable root, or
 * `.git/commondir`) cannot be bound without creating it on the host; it is watched instead: when a
 * command creates one, {@linkcode quarantineCreated} moves it out of the root and the call fails
 * (new `.git` at any depth are found by the run's `ProtectedPathWatch`).
 *
 * Built in the tool Worker before each command, from plain data and what the run's watch knows of
 * the tree (`TreeFacts`), or from a scan made now when no watch is given.
 *
 * @module
 */

import { createHash } from "node:crypto";
import * as nodePath from "node:path";
import { isWithin, scrubGitConfig } from "../sandbox/mod.ts";
import type { BwrapPlan } from "./bubblewrap.ts";
import type { SystemMount } from "./system_mounts.ts";
import {
  gitdirOf,
  MAX_PROFILE_SCAN_ENTRIES,
  outermost,
  scanTree,
  type TreeFacts,
} from "./protected_tree.ts";

export { MAX_PROFILE_SCAN_ENTRIES };

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
   * What is known of the roots' trees (kept current by the run's `ProtectedPathWatch`); without
   * it the roots are scanned now (at most {@linkcode MAX_PROFILE_SCAN_ENTRIES} entries).
   */
  tree?: TreeFacts | undefined;
  /**
   * A folder of the run no command can write, for the scrubbed copies of repositories' configs
   * bound over `.git/config`; without it a config holding credentials is masked instead.
   */
  mountFolder?: string | undefined;
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
 * Builds the bubblewrap plan of one command from the tree's facts (`inputs.tree`; without them,
 * scans the writable and readable roots now, without following links, at most
 * {@linkcode MAX_PROFILE_SCAN_ENTRIES} entries), and lists the protected paths that are missing
 * (to watch).
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

  for (const root of writeRoots) {
    // A repository planted at the top of the workspace or a write root would be the one the
    // user's next `git status` there reads (the run's own scratch folders excepted).
    if (!inputs.writableExceptions.includes(root)) {
      const gitPath = nodePath.join(root, ".git");
      if (!exists(gitPath)) watched.add(gitPath);
    }
  }
  let tree = inputs.tree;
  if (tree === undefined) {
    const scan = scanTree({
      writeRoots: inputs.writeRoots,
      readRoots: inputs.readRoots,
      exclusions: inputs.scanExclusions,
      sensitiveMatch: inputs.sensitiveMatch,
    });
    if (!scan.ok) return scan;
    tree = scan.facts;
  }
  const replaced: { path: string; source: string }[] = [];
  for (const [path, isDirectory] of tree.repositories) {
    protectGit(path, isDirectory, inputs.gitWrite, readable, watched, inWritable);
    if (!isDirectory) continue;
    const configPath = nodePath.join(path, "config");
    let config: string;
    try {
      config = Deno.readTextFileSync(configPath);
    } catch {
      continue; // Unreadable here: git cannot read it inside either.
    }
    const view = scrubbedConfig(configPath, config, inputs.mountFolder);
    if (view === "mask") masked.push({ path: configPath, type: "file" });
    else if (view !== null) replaced.push(view);
    // Hooks kept in the work tree (`core.hooksPath = .husky`) run on the user's next commit.
    const hooks = hooksFolderOf(config, nodePath.dirname(path));
    if (hooks !== null && inWritable(hooks)) {
      if (exists(hooks)) readable.add(hooks);
      else watched.add(hooks);
    }
  }
  const unmasked = new Set(inputs.unmasked);
  for (const [path, type] of tree.masked) {
    // A scan's facts may be older than the tree: a file removed since cannot be bound over.
    if (!unmasked.has(path) && exists(path)) masked.push({ path, type });
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
    replacedFiles: replaced,
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

/**
 * A repository config with credentials in it (`scrubGitConfig`): its scrubbed copy, written into
 * `mountFolder` (named by the config's path), to bind over it; "mask" when there is no folder for
 * it; null when the config holds none.
 */
function scrubbedConfig(
  configPath: string,
  text: string,
  mountFolder: string | undefined,
): { path: string; source: string } | "mask" | null {
  const view = scrubGitConfig(text);
  if (view.removed === 0) return null;
  if (mountFolder === undefined) return "mask";
  const name = `git-config-${createHash("sha256").update(configPath).digest("hex")}`;
  const source = nodePath.join(mountFolder, name);
  try {
    Deno.mkdirSync(mountFolder, { recursive: true });
    // Written aside, then renamed: a sandbox being built at the same time (commands in parallel,
    // an MCP server) binds the old copy or the new one, never a half-written file.
    const partial = `${source}.${crypto.randomUUID()}.partial`;
    Deno.writeTextFileSync(partial, view.text);
    Deno.renameSync(partial, source);
  } catch {
    return "mask";
  }
  return { path: configPath, source };
}

/**
 * The folder a repository's own config names as `core.hooksPath` (the last one, `~` not
 * expanded: a home folder is outside the roots), resolved against the work tree; or null.
 */
export function hooksFolderOf(config: string, workTree: string): string | null {
  let section = "";
  let found: string | null = null;
  for (const line of config.split("\n")) {
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)/.exec(line);
    if (header !== null) section = (header[1] ?? "").toLowerCase();
    const entry = /^\s*(?:\[[^\]]*\]\s*)?hookspath\s*=\s*("?)(.*?)\1\s*$/i.exec(line);
    if (section === "core" && entry?.[2] !== undefined && entry[2] !== "") found = entry[2];
  }
  if (found === null || found.startsWith("~")) return null;
  return nodePath.resolve(workTree, found);
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

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
