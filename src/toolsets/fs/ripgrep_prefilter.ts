/**
 * The ripgrep fast path of `fs.grep_files`, on the main thread: ripgrep names the files of a
 * folder that may hold a matching line, and the tool Worker then reads only those. ripgrep is a
 * candidate filter, never a source: the Worker walks and checks every file as it always does, and
 * a file ripgrep did not name is counted as searched without being opened. A wrong, corrupted or
 * hostile answer (names outside the folder, through links, invented) can only hide a match, never
 * show a file the built-in searcher would not.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { PathGuard } from "../../sandbox/mod.ts";
import type { SearchCandidates } from "../../tools/mod.ts";
import { type IsolationPlan, runConfined } from "../../exec/mod.ts";
import { MAX_FILE_BYTES } from "./_limits.ts";
import { compileLinePattern } from "./_line_pattern.ts";
import { ripgrepPattern } from "./_ripgrep_pattern.ts";

/** How ripgrep is started: found once per run, outside every write root. */
export interface RipgrepLaunch {
  /** Absolute real path of `rg`. */
  ripgrepPath: string;
  /** Absolute path of `setsid` (its own process group). */
  setsidPath: string;
  /** Absolute path of `kill` (the group is killed at the end, the deadline or an abort). */
  killPath: string;
  /**
   * The confinement of one search of `root`: bubblewrap with `root` bound read-only and no
   * network, or none (its own process group, a cleared environment).
   */
  isolation: (root: string) => IsolationPlan;
}

/** Most bytes of file names ripgrep may print (NUL-separated); more falls back to the built-in. */
export const MAX_CANDIDATE_BYTES = 8 * 1024 * 1024;

/** After TERM at the deadline or an abort, how long ripgrep may take before KILL, in ms. */
const KILL_GRACE_MS = 500;

/** One planned ripgrep search: the pattern in ripgrep's dialect and the real searched folder. */
export interface RipgrepSearch {
  pattern: string;
  caseSensitive: boolean;
  root: string;
}

/** The arguments of one `fs.grep_files` call, as the main thread sees them (unchecked JSON). */
export interface GrepArguments {
  pattern?: unknown;
  path?: unknown;
  case_sensitive?: unknown;
}

/**
 * The ripgrep command line for a folder search: names only (`--files-with-matches --null`: no
 * line or content ever leaves ripgrep, so `--json` is not needed), every file (`--no-ignore
 * --hidden`), links never followed, binary files searched as text (the Worker decides what is
 * binary), files over `MAX_FILE_BYTES` (10 MiB) left out as the Worker leaves them out, `--crlf`,
 * the bytes as they are (`--encoding none`: no transcoding), no configuration file and no
 * preprocessor.
 *
 * @example
 * ```ts
 * import { ripgrepArguments } from "./ripgrep_prefilter.ts";
 * const args = ripgrepArguments("a.b", false, "/work/src");
 * console.assert(args.includes("--ignore-case") && args.at(-1) === "/work/src");
 * ```
 */
export function ripgrepArguments(pattern: string, caseSensitive: boolean, root: string): string[] {
  return [
    "--no-config",
    "--files-with-matches",
    "--null",
    "--no-ignore",
    "--hidden",
    "--no-follow",
    "--text",
    "--no-messages",
    "--crlf",
    "--encoding",
    "none",
    "--max-filesize",
    String(MAX_FILE_BYTES),
    ...(caseSensitive ? [] : ["--ignore-case"]),
    "--regexp",
    pattern,
    "--",
    root,
  ];
}

/**
 * Runs ripgrep for `fs.grep_files` calls on the main thread (see the module documentation).
 */
export class RipgrepPrefilter {
  readonly #launch: () => Promise<RipgrepLaunch | null>;
  #found: Promise<RipgrepLaunch | null> | null = null;
  readonly #timeBudgetMs: number;

  /**
   * @param launch Finds ripgrep and decides its confinement; called once, on the first folder
   *   search (null: no ripgrep here, every search is the built-in's).
   * @param timeBudgetMs The search time budget, in ms (`limits.search_time_budget_ms`): ripgrep
   *   may take half of it; then it is killed and the built-in searcher runs alone.
   */
  constructor(launch: () => Promise<RipgrepLaunch | null>, timeBudgetMs: number) {
    this.#launch = launch;
    this.#timeBudgetMs = timeBudgetMs;
  }

  /**
   * What ripgrep would search for this call, or null when the built-in searcher must run alone:
   * the call names a file or nothing searchable, or the pattern is outside the gate
   * (`_ripgrep_pattern.ts`). Synchronous and cheap: ripgrep itself runs in {@linkcode run}.
   *
   * @param args The call's arguments (checked against the tool's schema before).
   * @param guard Resolves the searched folder to its real path (a refusal: null).
   */
  plan(args: GrepArguments, guard: PathGuard): RipgrepSearch | null {
    if (typeof args.pattern !== "string") return null;
    const caseSensitive = args.case_sensitive !== false;
    const path = typeof args.path === "string" ? args.path : ".";
    if ("reason" in compileLinePattern(args.pattern, caseSensitive)) return null;
    const pattern = ripgrepPattern(args.pattern);
    if (pattern === null) return null;
    try {
      const check = guard.checkSync(path, "list");
      if (!check.ok || check.path.type !== "directory") return null;
      return { pattern, caseSensitive, root: check.path.real };
    } catch {
      return null;
    }
  }

  /**
   * Runs ripgrep for a planned search: the files below its folder that may hold a matching
   * line, or null when ripgrep is missing, cannot start, fails (any exit but 0 or 1), runs past
   * half the time budget (the built-in searcher then has the other half), is aborted, prints
   * more than {@linkcode MAX_CANDIDATE_BYTES} or a name that is not UTF-8. Never throws;
   * ripgrep's process group is gone when this returns.
   *
   * @param env ripgrep's whole environment (it reads none of it: `--no-config`); the Worker's
   *   host passes the call's marker (`KAGENT_RUN_CALL`), which the run's end sweeps.
   *   @default {}
   */
  /**
   * Whether ripgrep is here to run (found on the first ask, then remembered). The Worker's host
   * asks before it promises an answer: with one promised, the handler's walk skips the lstat of
   * every file (`WalkOptions.statFiles`), which only pays when an answer narrows the reads.
   */
  async available(): Promise<boolean> {
    return (await this.#launchOnce()) !== null;
  }

  #launchOnce(): Promise<RipgrepLaunch | null> {
    return this.#found ??= this.#launch().catch(() => null);
  }

  async run(
    search: RipgrepSearch,
    signal?: AbortSignal,
    env: Record<string, string> = {},
  ): Promise<SearchCandidates | null> {
    const launch = await this.#launchOnce();
    if (launch === null || signal?.aborted) return null;
    try {
      return await this.#run(launch, search, env, signal);
    } catch {
      return null;
    }
  }

  /** {@linkcode plan}, then {@linkcode run}: null when either says so. */
  async candidates(
    args: GrepArguments,
    guard: PathGuard,
    signal?: AbortSignal,
  ): Promise<SearchCandidates | null> {
    const search = this.plan(args, guard);
    return search === null ? null : await this.run(search, signal);
  }

  async #run(
    launch: RipgrepLaunch,
    { pattern, caseSensitive, root }: RipgrepSearch,
    env: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<SearchCandidates | null> {
    const outcome = await runConfined({
      program: launch.ripgrepPath,
      args: ripgrepArguments(pattern, caseSensitive, root),
      cwd: root,
      env,
      timeoutMs: Math.max(1, Math.floor(this.#timeBudgetMs / 2)),
      killGraceMs: KILL_GRACE_MS,
      stdoutLimitBytes: MAX_CANDIDATE_BYTES,
      stderrLimitBytes: 1024,
      artifact: null,
      isolation: launch.isolation(root),
      setsidPath: launch.setsidPath,
      killPath: launch.killPath,
      ...(signal === undefined ? {} : { signal }),
    });
    if (
      outcome.spawn_error !== null || outcome.timed_out || outcome.aborted ||
      outcome.signal !== null || outcome.stdout.truncated
    ) {
      return null;
    }
    if (outcome.exit_code === 1) return { root, files: [] };
    if (outcome.exit_code !== 0) return null;
    return candidatesOf(outcome.stdout.text, root);
  }
}

/**
 * The names ripgrep printed (`<root>/<relative>` each followed by NUL), relative to `root`;
 * names outside it are dropped (they can match no walk entry anyway). Null when a name was not
 * UTF-8 (decoded with U+FFFD): it could not be compared exactly.
 *
 * @example
 * ```ts
 * import { candidatesOf } from "./ripgrep_prefilter.ts";
 * const found = candidatesOf("/w/a.ts\0/w/b/c.md\0/etc/passwd\0", "/w");
 * console.assert(found?.files.join(",") === "a.ts,b/c.md");
 * ```
 */
export function candidatesOf(text: string, root: string): SearchCandidates | null {
  if (text.includes("\ufffd")) return null;
  const prefix = root.endsWith(nodePath.sep) ? root : `${root}${nodePath.sep}`;
  const files: string[] = [];
  for (const name of text.split("\0")) {
    if (name === "" || !name.startsWith(prefix)) continue;
    files.push(name.slice(prefix.length));
  }
  return { root, files };
}
