/**
 * Static analysis of an `exec.run_command` argv before it runs: does it let the allowlisted
 * program run other code, or write files although the program otherwise only reads?
 *
 * The analysis gives POLICY MEANING the kernel cannot see; it is not a security boundary. Where a
 * command may read and write is the mount profile's job (only the roots exist inside, `.git` and
 * protected paths read-only): a rule that only kept paths inside the roots has no place here
 * (see the decisions in `_argv_tar.ts` and `_argv_git_tables.ts`). The values arguments carry
 * ({@linkcode argumentValues}) feed the path check of `resolve_command.ts`, which names paths
 * outside the roots, protected and sensitive ones for the policy and the audit.
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
import { GIT_SHORT_VALUES } from "./_argv_git_tables.ts";
import {
  type ArgumentValue,
  argumentValues as valuesOf,
  finding,
  type OptionTable,
  scanOptions,
  type ShortValues,
  UNMODELLED,
} from "./_argv_options.ts";
import { analyzeSed, SED_SHORT_VALUES } from "./_argv_sed.ts";
import {
  FIND_OPTIONS,
  MAN_OPTIONS,
  RG_OPTIONS,
  SORT_OPTIONS,
  SPLIT_OPTIONS,
} from "./_argv_tables.ts";
import { analyzeTar, TAR_SHORT_VALUES } from "./_argv_tar.ts";
import { unrestrictedGroup } from "./_argv_unrestricted.ts";
import type { FindingKind } from "../policy/mod.ts";

/** What a finding means: the closed set the policy decides on ({@linkcode FindingKind}). */
export type { FindingKind };

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
  /**
   * For `sensitive` findings: the absolute path named (resolved as text from the working folder).
   * A command approved for it sees that file; every other sensitive file stays masked.
   */
  path?: string;
}

type Analyzer = (argv: readonly string[]) => ArgumentFinding[];

/** A program's analyzer and how its short options take values. */
interface Grammar {
  analyze: Analyzer;
  shortValues: ShortValues;
}

const table = (options: OptionTable): Grammar => ({
  analyze: (argv) => scanOptions(argv, 1, options),
  shortValues: options.shortValues ?? UNMODELLED,
});
const GIT: Grammar = { analyze: analyzeGit, shortValues: GIT_SHORT_VALUES };
const TAR: Grammar = { analyze: analyzeTar, shortValues: TAR_SHORT_VALUES };
const SED: Grammar = { analyze: analyzeSed, shortValues: SED_SHORT_VALUES };

/** Specific analyzers by lower-case basename; g-prefixed and bsd names are GNU/BSD builds. */
const ANALYZERS: ReadonlyMap<string, Grammar> = new Map([
  ["git", GIT],
  ["rg", table(RG_OPTIONS)],
  ["find", table(FIND_OPTIONS)],
  ["gfind", table(FIND_OPTIONS)],
  ["tar", TAR],
  ["gtar", TAR],
  ["bsdtar", TAR],
  ["sed", SED],
  ["gsed", SED],
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
  const grammar = ANALYZERS.get(key);
  if (grammar !== undefined) return grammar.analyze(argv);
  if (key.startsWith("git-") && key.length > 4) {
    return analyzeGitSubcommand(argv, 0, key.slice(4));
  }
  return [];
}

export type { ArgumentValue };

/**
 * Lists the values the arguments of `argv` carry, for the path check of `resolve_command.ts`:
 * each operand, the value of `--option=value`, the value attached to a short option in its
 * cluster as the program's grammar reads it (`tar -cf/x` → `/x`; `sort -t/` is text, not listed;
 * a program without a grammar gives the rest after the first letter: `-T/x` → `/x`), and the value
 * of a `key=value` spelling in any of them (dd(1) `if=/x` → `/x`). Values as spelled: no URL or
 * `~` is interpreted here.
 *
 * @param argv The program (a name or a path) and its arguments.
 * @returns Values in argument order, each with the index of the argument holding it; an argument
 * may give two (`if=/x` gives `if=/x` and `/x`).
 *
 * @example
 * ```ts
 * import { argumentValues } from "./argv_analysis.ts";
 * argumentValues(["tar", "-czfgood.tgz", "src"]).map((found) => found.value);
 * // ["good.tgz", "src"]
 * argumentValues(["dd", "if=/etc/passwd"]).map((found) => found.value);
 * // ["if=/etc/passwd", "/etc/passwd"]
 * ```
 */
export function argumentValues(argv: readonly string[]): ArgumentValue[] {
  const key = programKey(argv[0] ?? "");
  const grammar = ANALYZERS.get(key) ?? (key.startsWith("git-") ? GIT : undefined);
  return valuesOf(argv, grammar?.shortValues ?? UNMODELLED);
}
