/**
 * The path guard's data (`path_guard.ts`): what it is built from ({@linkcode PathGuardOptions}),
 * how a tool uses a path ({@linkcode PathAccess}), the facts of a resolved path
 * ({@linkcode ResolvedPath}) and the guard's answer ({@linkcode PathCheck}). Data only: the policy
 * decides on these facts, the guard never does.
 *
 * @module
 */

import type { ToolError } from "../result/mod.ts";

/** How a tool uses a path: `list` walks a folder, `read` reads a file, `write` creates or changes, `delete` removes. */
export type PathAccess = "read" | "list" | "write" | "delete";

/** What a path resolves to. Everything a policy decision needs. */
export interface ResolvedPath {
  /** As given. */
  requested: string;
  /** The real path: every existing component resolved, missing ones appended. */
  real: string;
  /**
   * The path as spelled: absolute, `.` and `..` collapsed as text, no link followed. Deny and ask
   * rules, protected and sensitive paths are checked on it as well as on `real`.
   */
  spelled: string;
  /** The real path relative to the workspace (`.` for the workspace), or the real path if outside it. */
  display: string;
  access: PathAccess;
  /** What is at `real` (after following links): `other` is a FIFO, socket or device. */
  type: "file" | "directory" | "missing" | "other";
  /** The requested path itself is a symlink (its target is `real`). */
  via_symlink: boolean;
  /** The root that contains `real`. */
  root: string;
  /**
   * The outermost root that contains `real` (a root nested in another root is not trusted as a
   * starting point: its parents can change). `safe_file.ts` and `walk.ts` hold the folders from
   * here down. Always set by the guard; absent only in hand-made values (then `root` is used).
   */
  anchor?: string;
  /** The protected path `real` falls in (writes and deletes only), or null. */
  protected: string | null;
  /** The sensitive pattern matched by the requested or the real path, or null. */
  sensitive: string | null;
  /** Identity of an existing file or folder, to re-verify after open (`null` when missing). */
  identity: { dev: number; ino: number } | null;
  /** Size of an existing file in bytes (0 otherwise). */
  size: number;
  /**
   * Hard links of an existing regular file (lstat `nlink`: 1 for an ordinary file, more when the
   * same content has other names, possibly outside the roots). Absent for folders and missing
   * paths. A policy may treat `links > 1` like a sensitive file.
   */
  links?: number;
}

/** The guard's answer: facts, or why the path is refused before any policy is consulted. */
export type PathCheck =
  | { ok: true; path: ResolvedPath }
  | { ok: false; requested: string; error: ToolError };

/** Options of `PathGuard.create`. Every path is absolute. */
export interface PathGuardOptions {
  /** The sandbox root: readable and writable. */
  workspace: string;
  /** Extra read-only roots. @default [] */
  readRoots?: readonly string[];
  /** Extra writable (and readable) roots, e.g. the run's `workspace/` and `deliverables/`. @default [] */
  writeRoots?: readonly string[];
  /** Files or folders never writable, even inside a write root. @default [] */
  protectedPaths?: readonly string[];
  /** Folders inside a protected path that stay writable (the current run's workspace). @default [] */
  writableExceptions?: readonly string[];
  /**
   * Sensitive patterns: with a `/` they match the whole absolute path (`~/` expands to `home`), a
   * folder pattern also covers everything below it; without a `/` they match the file name.
   * @default DEFAULT_SENSITIVE_PATTERNS (`sensitive_patterns.ts`)
   */
  sensitivePatterns?: readonly string[];
  /** The home folder for `~`; `null` refuses `~` paths. */
  home: string | null;
  /** Folders recursive walks never enter (the runs folder); `.git` folders are always skipped. @default [] */
  walkExclusions?: readonly string[];
}
