/**
 * The program allowlist of `exec.run_command`: configured names resolved once, at start-up, to
 * absolute real paths outside every write root; requests then name a program only by one of those
 * exact strings.
 *
 * Why each rule:
 * - A name is searched only in absolute PATH entries: an empty or relative entry means the
 *   current directory (execvp(3)), where the agent writes.
 * - The real path must be outside every write root: the agent could rewrite a program it may
 *   later run. Roots are compared by path components, so `/w/project2/bin/x` is not inside
 *   `/w/project` (MCP filesystem CVE-2025-53110).
 * - A relative path with a slash (`./x`, `bin/x`) is refused: it would depend on the directory
 *   the runtime starts in.
 * - The runtime must execute {@linkcode AllowedProgram.path}, never look the name up again, and
 *   should analyze arguments by that path's basename as well as by the name: a name linked to
 *   busybox or a shell runs as one.
 *
 * @module
 */

import * as nodePath from "node:path";

/** One allowlisted program. */
export interface AllowedProgram {
  /** The name as configured: `git` or `/usr/bin/git`. */
  name: string;
  /** Absolute real path (symlinks resolved) of the file that runs. */
  path: string;
}

/** Options of {@linkcode resolveAllowlist}. */
export interface AllowlistOptions {
  /** A PATH value, `:`-separated; only its absolute entries are searched. */
  searchPath: string;
  /** Absolute real paths of the write roots; no allowlisted program may live inside one. */
  forbiddenRoots: readonly string[];
}

/**
 * Why a configured program was refused:
 *
 * - `invalid_name`: empty, NUL, spaces around it, `.`/`..`, or an absolute path that is not
 *   normalised (`/usr/bin/../bin/git`, `//bin/git`, a trailing slash).
 * - `relative_path`: a relative path with a slash (`./x`, `bin/x`).
 * - `not_found`: the absolute path does not exist, or the name is on no absolute PATH entry.
 * - `not_regular_file`: it is a directory, device or FIFO.
 * - `not_executable`: no execute permission bit is set.
 * - `inside_write_root`: its real path is inside a write root.
 */
export type AllowlistErrorCode =
  | "invalid_name"
  | "relative_path"
  | "not_found"
  | "not_regular_file"
  | "not_executable"
  | "inside_write_root";

/**
 * A configured program cannot be allowlisted. The message reads
 * `Cannot allow program "x": it is not executable`.
 *
 * @example
 * ```ts
 * import { AllowlistError } from "./program_allowlist.ts";
 * const error = new AllowlistError("not_executable", "x", "it is not executable");
 * error.message; // 'Cannot allow program "x": it is not executable'
 * ```
 */
export class AllowlistError extends Error {
  override readonly name = "AllowlistError";
  /** What went wrong. */
  readonly code: AllowlistErrorCode;
  /** The program exactly as configured. */
  readonly program: string;
  /** The reason part of the message, after the colon. */
  readonly reason: string;

  /** Builds the error; `message` is derived from `program` and `reason`. */
  constructor(code: AllowlistErrorCode, program: string, reason: string) {
    super(`Cannot allow program "${program}": ${reason}`);
    this.code = code;
    this.program = program;
    this.reason = reason;
  }
}

/**
 * Resolves configured program names to absolute real paths.
 *
 * A name without `/` is looked up in the absolute entries of `searchPath`, in order: the first
 * entry holding it as an executable regular file (symlinks followed) wins. An absolute path is
 * used as given and must be an executable regular file. Duplicate names collapse to the first.
 *
 * @param names Program names or absolute paths, as configured.
 * @param options The PATH to search and the write roots to stay out of.
 * @returns One entry per distinct name, in configuration order.
 * @throws {AllowlistError} for the first name that cannot be allowed (see
 * {@linkcode AllowlistErrorCode}).
 * @throws {TypeError} when a forbidden root is not an absolute path.
 *
 * @example
 * ```ts
 * import { resolveAllowlist } from "./program_allowlist.ts";
 * const programs = await resolveAllowlist(["sh"], {
 *   searchPath: "/usr/bin:/bin",
 *   forbiddenRoots: ["/tmp/workspace"],
 * });
 * programs[0]?.path; // e.g. "/usr/bin/dash"
 * ```
 */
export async function resolveAllowlist(
  names: readonly string[],
  options: AllowlistOptions,
): Promise<AllowedProgram[]> {
  const roots = await expandRoots(options.forbiddenRoots);
  const resolved: AllowedProgram[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) continue;
    seen.add(name);
    checkName(name);
    const path = name.startsWith("/")
      ? await resolveAbsolute(name)
      : await searchPath(name, options.searchPath);
    const root = roots.find((candidate) => isInsideRoot(path, candidate));
    if (root !== undefined) {
      throw new AllowlistError(
        "inside_write_root",
        name,
        `its real path "${path}" is inside the write root "${root}", where the agent could rewrite it`,
      );
    }
    resolved.push({ name, path });
  }
  return resolved;
}

/**
 * Finds the allowlisted program a request names: `argv0` must equal a configured name or a
 * resolved path exactly. Nothing else matches: not `./git`, not `/usr/bin/../bin/git`, not
 * `git ` with a space, not another path to the same file through a symlink (`/bin/git` when
 * `/usr/bin/git` was resolved). The request never chooses which file runs; the configuration did,
 * at start-up.
 *
 * @returns The entry, a name match before a path match, or null.
 *
 * @example
 * ```ts
 * import { matchProgram } from "./program_allowlist.ts";
 * const allowed = [{ name: "git", path: "/usr/bin/git" }];
 * matchProgram("/usr/bin/git", allowed)?.name; // "git"
 * matchProgram("./git", allowed); // null
 * ```
 */
export function matchProgram(
  argv0: string,
  allowed: readonly AllowedProgram[],
): AllowedProgram | null {
  if (argv0 === "") return null;
  return allowed.find((program) => program.name === argv0) ??
    allowed.find((program) => program.path === argv0) ?? null;
}

function checkName(name: string): void {
  const invalid = (reason: string) => new AllowlistError("invalid_name", name, reason);
  if (name === "") throw invalid("the name is empty");
  if (name.includes("\0")) throw invalid("the name contains a NUL byte");
  if (name.trim() !== name) throw invalid("the name has spaces around it");
  if (name === "." || name === "..") throw invalid("it names a directory, not a program");
  if (name.startsWith("/")) {
    if (nodePath.posix.normalize(name) !== name || name.endsWith("/")) {
      throw invalid('the path is not normalised: write it without ".", ".." or repeated slashes');
    }
    return;
  }
  if (name.includes("/")) {
    throw new AllowlistError(
      "relative_path",
      name,
      "it is a relative path: name a program on the search path or give an absolute path",
    );
  }
}

type Candidate = { ok: true; path: string } | {
  ok: false;
  code: "not_found" | "not_regular_file" | "not_executable";
  reason: string;
};

/** stat (following symlinks), regular file, an execute bit, then realpath. */
async function inspect(path: string): Promise<Candidate> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (
      error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory ||
      error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.FilesystemLoop
    ) {
      return { ok: false, code: "not_found", reason: "it does not exist" };
    }
    throw error;
  }
  if (!info.isFile) {
    return { ok: false, code: "not_regular_file", reason: "it is not a regular file" };
  }
  // Windows has no execute bit (mode is null there): any regular file counts.
  if (info.mode !== null && (info.mode & 0o111) === 0) {
    return { ok: false, code: "not_executable", reason: "it is not executable" };
  }
  return { ok: true, path: await Deno.realPath(path) };
}

async function resolveAbsolute(name: string): Promise<string> {
  const found = await inspect(name);
  if (found.ok) return found.path;
  throw new AllowlistError(found.code, name, found.reason);
}

async function searchPath(name: string, path: string): Promise<string> {
  let rejected: { code: "not_regular_file" | "not_executable"; where: string } | null = null;
  for (const folder of path.split(":")) {
    if (!nodePath.isAbsolute(folder)) continue;
    const candidate = nodePath.join(folder, name);
    const found = await inspect(candidate);
    if (found.ok) return found.path;
    if (found.code !== "not_found") rejected ??= { code: found.code, where: candidate };
  }
  if (rejected !== null) {
    const what = rejected.code === "not_executable" ? "executable" : "a regular file";
    throw new AllowlistError(
      rejected.code,
      name,
      `it is not ${what}: found "${rejected.where}" on the search path`,
    );
  }
  throw new AllowlistError(
    "not_found",
    name,
    `it is not on the search path "${path}" (only absolute entries are searched)`,
  );
}

/** Each root as given, trailing slashes removed, plus its real path when that differs. */
async function expandRoots(roots: readonly string[]): Promise<string[]> {
  const expanded: string[] = [];
  for (const root of roots) {
    if (typeof root !== "string" || !nodePath.isAbsolute(root)) {
      throw new TypeError(`forbiddenRoots must hold absolute paths: got "${String(root)}"`);
    }
    const normal = nodePath.resolve(root);
    expanded.push(normal);
    try {
      const real = await Deno.realPath(normal);
      if (real !== normal) expanded.push(real);
    } catch {
      // A root that does not exist yet holds no program; the given spelling is kept.
    }
  }
  return expanded;
}

/** Component-wise containment: `/w/project2/x` is not inside `/w/project`. */
function isInsideRoot(path: string, root: string): boolean {
  const parts = (value: string) => value.split("/").filter((part) => part !== "");
  const rootParts = parts(root);
  const pathParts = parts(path);
  return rootParts.length <= pathParts.length &&
    rootParts.every((part, index) => pathParts[index] === part);
}
