/**
 * The path guard (ARCHITECTURE §6): the one place that turns a path from a tool call into a real
 * path and the facts the policy decides on. Every tool uses it, walks included.
 *
 * Rules, in order:
 * 1. A path is a non-empty string under 4,096 bytes without NUL; `~` and `~/` mean the home folder,
 *    `~user` is refused; a relative path is relative to the workspace.
 * 2. Resolution is physical, one component at a time: `..` goes to the parent of the real path so
 *    far (never a lexical collapse), symlinks are followed by reading them (dangling ones too), at
 *    most 40 links (the Linux `MAXSYMLINKS`). Components after a missing one are appended as text.
 * 3. Anything that passes through `/proc`, `/sys` or `/dev` is outside.
 * 4. Containment compares path components against the roots (realpath'd once at start): reads and
 *    lists need a read root or a write root, writes and deletes need a write root.
 * 5. The facts the policy needs are reported, not decided: `protected` (writes into the runs folder,
 *    config, permissions, skill scripts or any `.git` folder) and `sensitive` (patterns such as
 *    `~/.ssh/**`, `*.pem`, `.env`), the latter checked on the requested and on the real path.
 *
 * The guard reads metadata only (lstat, readlink, realpath); it never opens files. Its facts are
 * a snapshot: a concurrent process may swap a folder on the way right after. Handlers open through
 * `safe_file.ts` and walk through `walk.ts`, which prove at the time of the operation that the path
 * still goes through the folders the guard resolved (see `_folder_chain.ts`).
 *
 * @module
 */

import * as nodePath from "node:path";
import {
  canonicalOptions,
  isWithin,
  lstatOrNull,
  MAX_SYMLINK_HOPS,
  printable,
  resolvePhysically,
  SPECIAL_FILESYSTEMS,
  splitComponents,
} from "./_physical_resolution.ts";
import type { ToolError } from "../result/mod.ts";
import type { PathAccess, PathCheck, PathGuardOptions, ResolvedPath } from "./resolved_path.ts";
import { DEFAULT_SENSITIVE_PATTERNS, sensitiveMatcher } from "./sensitive_patterns.ts";

/** Longest path accepted, in bytes (Linux `PATH_MAX`). */
export const MAX_PATH_BYTES = 4096;

export { DEFAULT_SENSITIVE_PATTERNS, isWithin, MAX_SYMLINK_HOPS, printable };
export type { PathAccess, PathCheck, PathGuardOptions, ResolvedPath };

const ENCODER = new TextEncoder();

/** A resolution saw a component change under it (see {@linkcode PathGuard.check}). */
const CHANGED = Symbol("changed");

/**
 * Resolves and checks paths against canonical roots. Create once per run with
 * {@linkcode PathGuard.create}; the same options give the same guard in the main thread and in the
 * tool Worker.
 *
 * @example
 * ```ts
 * import { PathGuard } from "./path_guard.ts";
 * const guard = await PathGuard.create({ workspace: Deno.cwd(), home: null });
 * const check = await guard.check("/etc/passwd", "read");
 * console.assert(!check.ok && check.error.type === "path_outside_sandbox");
 * ```
 */
export class PathGuard {
  readonly workspace: string;
  readonly readRoots: readonly string[];
  readonly writeRoots: readonly string[];
  readonly protectedPaths: readonly string[];
  readonly writableExceptions: readonly string[];
  readonly sensitivePatterns: readonly string[];
  readonly home: string | null;
  readonly walkExclusions: readonly string[];
  readonly #matchers: { pattern: string; test: (path: string, name?: string) => boolean }[];
  /** Every root, split into components, longest first (see `resolvePhysically`). */
  readonly #rootsByLength: string[][];
  readonly #allReadRoots: readonly string[];
  readonly #allWriteRoots: readonly string[];
  /** `workspace/`: the prefix {@linkcode PathGuard.display} strips. */
  readonly #workspacePrefix: string;

  private constructor(options: Required<PathGuardOptions>) {
    this.workspace = options.workspace;
    this.readRoots = options.readRoots;
    this.writeRoots = options.writeRoots;
    this.protectedPaths = options.protectedPaths;
    this.writableExceptions = options.writableExceptions;
    this.sensitivePatterns = options.sensitivePatterns;
    this.home = options.home;
    this.walkExclusions = options.walkExclusions;
    this.#matchers = options.sensitivePatterns.map((pattern) =>
      sensitiveMatcher(pattern, options.home)
    );
    this.#rootsByLength = unique([options.workspace, ...options.readRoots, ...options.writeRoots])
      .map(splitComponents)
      .sort((a, b) => b.length - a.length);
    this.#allReadRoots = unique([options.workspace, ...options.readRoots, ...options.writeRoots]);
    this.#allWriteRoots = unique([options.workspace, ...options.writeRoots]);
    this.#workspacePrefix = options.workspace.endsWith("/")
      ? options.workspace
      : `${options.workspace}/`;
  }

  /**
   * Builds a guard from options that are already canonical (from {@linkcode PathGuard.toOptions}),
   * without touching the filesystem: the tool Worker cannot read the roots' parents.
   */
  static fromCanonical(options: PathGuardOptions): PathGuard {
    return new PathGuard({
      workspace: options.workspace,
      readRoots: options.readRoots ?? [],
      writeRoots: options.writeRoots ?? [],
      protectedPaths: options.protectedPaths ?? [],
      writableExceptions: options.writableExceptions ?? [],
      sensitivePatterns: options.sensitivePatterns ?? DEFAULT_SENSITIVE_PATTERNS,
      home: options.home,
      walkExclusions: options.walkExclusions ?? [],
    });
  }

  /**
   * Canonicalises the roots (realpath) and builds the guard.
   *
   * @throws {TypeError} when a root is not absolute, does not exist or is not a directory, or a
   * root lies in /proc, /sys or /dev.
   */
  static async create(options: PathGuardOptions): Promise<PathGuard> {
    return new PathGuard(await canonicalOptions(options));
  }

  /** The options that rebuild this guard (for the tool Worker). */
  toOptions(): PathGuardOptions {
    return {
      workspace: this.workspace,
      readRoots: this.readRoots,
      writeRoots: this.writeRoots,
      protectedPaths: this.protectedPaths,
      writableExceptions: this.writableExceptions,
      sensitivePatterns: this.sensitivePatterns,
      home: this.home,
      walkExclusions: this.walkExclusions,
    };
  }

  /** Tells whether a recursive walk skips the folder `real`: a `.git` folder or a walk exclusion. */
  excludedFromWalks(real: string): boolean {
    return nodePath.basename(real) === ".git" ||
      this.walkExclusions.some((exclusion) => isWithin(real, exclusion));
  }

  /** Every root a read may use: the workspace, read roots and write roots. */
  get allReadRoots(): string[] {
    return [...this.#allReadRoots];
  }

  /** Every root a write may use: the workspace and write roots. */
  get allWriteRoots(): string[] {
    return [...this.#allWriteRoots];
  }

  /**
   * Resolves `requested` and reports the facts, or refuses it.
   *
   * Refusals: `invalid_arguments` (empty, NUL, too long, a file used as a folder, a
   * symlink loop), `path_outside_sandbox` (outside the roots for this access, `~user`, or through /proc,
   * /sys, /dev), `not_a_regular_file` (a FIFO, socket or device for any access),
   * `sandbox_violation` (a component kept changing while it was resolved).
   *
   * @param requested Relative to the workspace, absolute, or `~/…`.
   * @param access What the tool will do with it.
   */
  check(requested: string, access: PathAccess): Promise<PathCheck> {
    try {
      return Promise.resolve(this.checkSync(requested, access));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * {@linkcode PathGuard.check}, synchronously: the same resolution and facts (the guard's system
   * calls are synchronous either way: a few `lstat`s of 2 – 5 µs). For the tool Worker's handlers,
   * where blocking the thread holds up nothing the user waits for.
   *
   * @throws {Error} only for an unexpected file system error while reading a link.
   */
  checkSync(requested: string, access: PathAccess): PathCheck {
    // A concurrent rename seen half-way (a link read just as it became a folder, a folder that is
    // a link by the final lstat) makes the resolution start again, a few times, then refuse.
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const result = this.#checkOnce(requested, access);
      if (result !== CHANGED) return result;
    }
    return {
      ok: false,
      requested,
      error: {
        type: "sandbox_violation",
        message: `Cannot use path "${
          printable(requested)
        }": it kept changing while it was resolved (a concurrent rename?); try again`,
        details: { path: requested, access },
      },
    };
  }

  #checkOnce(requested: string, access: PathAccess): PathCheck | typeof CHANGED {
    const refuse = (
      type: ToolError["type"],
      reason: string,
      details: Record<string, unknown> = {},
    ) =>
      ({
        ok: false,
        requested,
        error: {
          type,
          message: `Cannot use path "${printable(requested)}": ${reason}`,
          details: { path: requested, access, ...details },
        },
      }) as const;

    if (typeof requested !== "string" || requested.length === 0) {
      return refuse("invalid_arguments", "the path is empty");
    }
    if (requested.includes("\0")) {
      return refuse("invalid_arguments", "the path contains a NUL byte");
    }
    if (
      requested.length * 3 > MAX_PATH_BYTES && ENCODER.encode(requested).byteLength > MAX_PATH_BYTES
    ) {
      return refuse("invalid_arguments", `the path is longer than ${MAX_PATH_BYTES} bytes`);
    }

    let start: string;
    let rest: string;
    if (requested === "~" || requested.startsWith("~/")) {
      if (this.home === null) return refuse("path_outside_sandbox", "there is no home folder");
      start = "/";
      rest = this.home + requested.slice(1);
    } else if (requested.startsWith("~")) {
      return refuse("path_outside_sandbox", "home folders of other users are outside the sandbox");
    } else if (nodePath.isAbsolute(requested)) {
      start = "/";
      rest = requested;
    } else {
      start = this.workspace;
      rest = requested;
    }

    const resolution = resolvePhysically(start, rest, this.#rootsByLength);
    if ("error" in resolution && resolution.changed === true) return CHANGED;
    if ("error" in resolution) return refuse(resolution.type, resolution.error);
    const { real, viaSpecial, leafWasSymlink } = resolution;

    if (viaSpecial || SPECIAL_FILESYSTEMS.some((special) => isWithin(real, special))) {
      return refuse("path_outside_sandbox", "/proc, /sys and /dev are outside the sandbox", {
        real,
      });
    }
    const writing = access === "write" || access === "delete";
    const roots = writing ? this.#allWriteRoots : this.#allReadRoots;
    const root = roots.find((candidate) => isWithin(real, candidate));
    if (root === undefined) {
      const where = writing && this.#allReadRoots.some((candidate) => isWithin(real, candidate))
        ? "it resolves to a read-only root"
        : "it resolves outside the workspace and every root";
      return refuse("path_outside_sandbox", `${where} ("${printable(real)}")`, { real });
    }

    let stat: Deno.FileInfo | null;
    try {
      stat = lstatOrNull(real);
    } catch (error) {
      return refuse("io_error", `it cannot be inspected (${String(error)})`, { real });
    }
    // The resolution read no link here: one appeared since (a swap).
    if (stat?.isSymlink) return CHANGED;
    let type: ResolvedPath["type"] = "missing";
    if (stat !== null) type = stat.isFile ? "file" : stat.isDirectory ? "directory" : "other";
    if (type === "file" && /\/\.?$/.test(requested)) {
      return refuse("invalid_arguments", 'it ends with "/" but is a file, not a folder', { real });
    }
    if (type === "other") {
      return refuse(
        "not_a_regular_file",
        "it is not a regular file or folder (FIFO, socket or device)",
        { real },
      );
    }

    const spelled = nodePath.resolve(start, rest);
    return {
      ok: true,
      path: {
        requested,
        real,
        spelled,
        display: this.display(real),
        access,
        type,
        via_symlink: leafWasSymlink,
        root,
        // A `.git` reached through a symlink (`.git -> store`) is still where git runs hooks from.
        protected: writing ? this.protectedMatch(real) ?? this.protectedMatch(spelled) : null,
        sensitive: this.sensitiveMatch(spelled) ?? this.sensitiveMatch(real),
        identity: stat === null || stat.ino === null ? null : { dev: stat.dev, ino: stat.ino },
        size: stat !== null && stat.isFile ? stat.size : 0,
        // A platform without link counts gets 2: treated as having other names (fail closed).
        ...(stat !== null && stat.isFile ? { links: stat.nlink ?? 2 } : {}),
        anchor: this.anchorOf(real) ?? root,
      },
    };
  }

  /**
   * The facts of a regular file found by a walk, without touching the disk again: the walk lists
   * only real folders below a checked one and lstat'ed the entry itself, so its path is real. The
   * identity lets the open verify that nothing was swapped since. Returns null for anything but a
   * regular file inside a read root (symlinks go through {@linkcode PathGuard.check}).
   */
  fromWalkEntry(
    entry: {
      path: string;
      type: string;
      size: number;
      identity: { dev: number; ino: number } | null;
      links?: number;
    },
  ): ResolvedPath | null {
    if (entry.type !== "file" || entry.identity === null) return null;
    const root = this.#allReadRoots.find((candidate) => isWithin(entry.path, candidate));
    if (
      root === undefined || SPECIAL_FILESYSTEMS.some((special) => isWithin(entry.path, special))
    ) return null;
    return {
      requested: entry.path,
      real: entry.path,
      spelled: entry.path,
      display: this.display(entry.path),
      access: "read",
      type: "file",
      via_symlink: false,
      root,
      protected: null,
      sensitive: this.sensitiveMatch(entry.path),
      identity: entry.identity,
      size: entry.size,
      ...(entry.links === undefined ? {} : { links: entry.links }),
      anchor: this.anchorOf(entry.path) ?? root,
    };
  }

  /**
   * The outermost root (of any kind) that contains `real`, or null: where `safe_file.ts` and
   * `walk.ts` start holding folders, since nothing a sandboxed process can change lies above it.
   */
  anchorOf(real: string): string | null {
    let outermost: string | null = null;
    for (const root of this.#allReadRoots) {
      if (isWithin(real, root) && (outermost === null || root.length < outermost.length)) {
        outermost = root;
      }
    }
    return outermost;
  }

  /** The protected path `real` falls in, unless a writable exception covers it. `.git` folders are protected wherever they are. */
  protectedMatch(real: string): string | null {
    if (this.writableExceptions.some((exception) => isWithin(real, exception))) return null;
    const match = this.protectedPaths.find((path) => isWithin(real, path));
    if (match !== undefined) return match;
    const components = real.split("/");
    const gitIndex = components.indexOf(".git");
    return gitIndex === -1 ? null : components.slice(0, gitIndex + 1).join("/");
  }

  /** The first sensitive pattern matching an absolute path, or null. */
  sensitiveMatch(absolute: string): string | null {
    // The file name once for every pattern (a listing tests each of its entries).
    const name = nodePath.basename(absolute);
    for (const matcher of this.#matchers) if (matcher.test(absolute, name)) return matcher.pattern;
    return null;
  }

  /** `real` relative to the workspace when inside it, else `real`. */
  display(real: string): string {
    // A walk's paths are normalised (no empty, `.` or `..` components): strip the prefix.
    if (real.startsWith(this.#workspacePrefix)) {
      const rest = real.slice(this.#workspacePrefix.length);
      if (!/(^|\/)(\.\.?)?(\/|$)/.test(rest)) return rest;
    }
    if (!isWithin(real, this.workspace)) return real;
    return nodePath.relative(this.workspace, real) || ".";
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
