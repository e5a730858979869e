/**
 * Static analysis of an `exec.run_command` argv before it runs: does it let the allowlisted
 * program run other code, or write files the allowlist owner did not mean it to write?
 *
 * The analysis is by program basename (`/usr/bin/git` and `git` are both git):
 *
 * - Shells, interpreters, exec wrappers, privilege and namespace wrappers, tracers, build tools,
 *   editors and pagers with shell escapes, remote shells and container tools give one
 *   `unrestricted_execution` finding at index 0, whatever the arguments (`_argv_unrestricted.ts`
 *   lists them by group, each with its rule).
 * - git, rg, find, tar, sed, sort, split and man have a specific analyzer
 *   ({@linkcode KNOWN_ANALYZERS}); a `git-<name>` program (`git-upload-pack`) is git's `<name>`
 *   subcommand.
 * - Any other program gives no finding: the allowlist owner chose it.
 *
 * The analyzers are conservative: an argument that spells a dangerous option is reported even
 * where it is the value of another option (`git commit -m --exec`, `rg -e --pre`), and `--` does
 * not end the scan (sed excepted, whose options are modelled completely), because a wrong guess
 * about an option's arity would hide a real option. A false finding stops a harmless call (the
 * policy asks or denies); a missed one runs.
 *
 * Outside argv, and left to the runtime: the environment (GIT_*, RIPGREP_CONFIG_PATH, PAGER,
 * LESSOPEN, ...), configuration files, and which file the program really is (see
 * `program_allowlist.ts`: analyze the resolved path's basename too, so that a name linked to
 * busybox or a shell is caught).
 *
 * @module
 */

import { analyzeGit, analyzeGitSubcommand } from "./_argv_git.ts";
import { finding, type OptionTable, scanOptions } from "./_argv_options.ts";
import { analyzeSed } from "./_argv_sed.ts";
import {
  FIND_OPTIONS,
  MAN_OPTIONS,
  RG_OPTIONS,
  SORT_OPTIONS,
  SPLIT_OPTIONS,
} from "./_argv_tables.ts";
import { analyzeTar } from "./_argv_tar.ts";
import { unrestrictedGroup } from "./_argv_unrestricted.ts";

/**
 * What a finding means:
 *
 * - `unrestricted_execution`: the program is a shell, interpreter or exec wrapper: it runs
 *   whatever it is told.
 * - `code_execution`: an option makes an otherwise bounded program run code
 *   (`git -c core.pager=…`, `rg --pre`, `find -exec`).
 * - `file_write`: an option writes a file the user did not name as output
 *   (`git diff --output`, `sed -i`, `find -fprint`).
 * - `unchecked`: the analyzer cannot fully check the arguments (an unknown global git option,
 *   `sed -f script`, `git -C elsewhere`).
 */
export type FindingKind =
  | "unrestricted_execution"
  | "code_execution"
  | "file_write"
  | "unchecked";

/** One reason the argv is not plainly bounded. */
export interface ArgumentFinding {
  /** Stable rule id, `argv:<group>` or `argv:<program>:<rule>` (`argv:git:upload-pack`). */
  id: string;
  kind: FindingKind;
  /** Index in argv of the argument at fault; 0 is the program. */
  index: number;
  /** That argument, as given. */
  argument: string;
  /** Why, in words, ending with the manual page or source of the rule in parentheses. */
  reason: string;
}

type Analyzer = (argv: readonly string[]) => ArgumentFinding[];

const table = (options: OptionTable): Analyzer => (argv) => scanOptions(argv, 1, options);

/** Specific analyzers by lower-case basename; g-prefixed and bsd names are GNU/BSD builds. */
const ANALYZERS: ReadonlyMap<string, Analyzer> = new Map([
  ["git", analyzeGit],
  ["rg", table(RG_OPTIONS)],
  ["find", table(FIND_OPTIONS)],
  ["gfind", table(FIND_OPTIONS)],
  ["tar", analyzeTar],
  ["gtar", analyzeTar],
  ["bsdtar", analyzeTar],
  ["sed", analyzeSed],
  ["gsed", analyzeSed],
  ["sort", table(SORT_OPTIONS)],
  ["gsort", table(SORT_OPTIONS)],
  ["split", table(SPLIT_OPTIONS)],
  ["gsplit", table(SPLIT_OPTIONS)],
  ["man", table(MAN_OPTIONS)],
]);

/**
 * Program basenames (lower case) with a specific analyzer. `git-<name>` programs are analyzed as
 * git subcommands as well.
 */
export const KNOWN_ANALYZERS: readonly string[] = [...ANALYZERS.keys()];

/**
 * The key a program is analyzed by: the basename of `argv0` (after the last `/` or `\`), in lower
 * case, without a Windows executable extension.
 *
 * @example
 * ```ts
 * import { programKey } from "./argv_analysis.ts";
 * programKey("/usr/bin/Python3.EXE"); // "python3"
 * ```
 */
export function programKey(argv0: string): string {
  const basename = argv0.slice(Math.max(argv0.lastIndexOf("/"), argv0.lastIndexOf("\\")) + 1);
  return basename.toLowerCase().replace(/\.(?:exe|com|cmd|bat|ps1)$/, "");
}

/**
 * Analyzes one argv, as `exec.run_command` would run it (each element one argument, no shell).
 *
 * @param argv The program (a name or a path) and its arguments.
 * @returns Every finding, in argument order per rule; empty when nothing is wrong. An empty argv
 * or a program without a basename gives one `unchecked` finding (`argv:no-program`).
 *
 * @example
 * ```ts
 * import { analyzeArgv } from "./argv_analysis.ts";
 * analyzeArgv(["git", "diff", "--output=/home/u/.bashrc"])[0]?.kind; // "file_write"
 * analyzeArgv(["git", "status"]); // []
 * ```
 */
export function analyzeArgv(argv: readonly string[]): ArgumentFinding[] {
  const program = argv[0];
  const key = program === undefined ? "" : programKey(program);
  if (program === undefined || key === "") {
    return [finding(
      "argv:no-program",
      "unchecked",
      0,
      program ?? "",
      "argv names no program: it is empty or its first element ends with a slash (execve(2): argv[0])",
    )];
  }
  const group = unrestrictedGroup(key);
  if (group !== null) {
    return [finding(group.id, "unrestricted_execution", 0, program, group.reason)];
  }
  const analyzer = ANALYZERS.get(key);
  if (analyzer !== undefined) return analyzer(argv);
  if (key.startsWith("git-") && key.length > 4) {
    return analyzeGitSubcommand(argv, 0, key.slice(4));
  }
  return [];
}
