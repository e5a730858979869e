/**
 * What an `exec.run_command` argv means to the policy, before it runs. The kernel holds the
 * boundary (the mount profile, no network, the PID namespace); this module only names what the
 * policy decides on, with no per-program option grammar:
 *
 * - a shell, interpreter, exec wrapper, build tool… runs whatever it is told: one
 *   `unrestricted_execution` finding at index 0 (`_argv_unrestricted.ts` lists them by group);
 * - whether the argv is known-safe, read-only (`known_safe_command.ts`): every other argv may
 *   write or execute, and under bubblewrap runs unasked only by an allow rule that names its
 *   program;
 * - the values arguments carry ({@linkcode argumentValues}), for the path findings of
 *   `path_argument_findings.ts` (outside the roots, protected, sensitive).
 *
 * The analysis is by program basename (`/usr/bin/git` and `git` are both git); the caller
 * analyzes the resolved path's basename too, so that a name linked to busybox or a shell is seen.
 *
 * @module
 */

import { unrestrictedGroup } from "./_argv_unrestricted.ts";
import type { FindingKind } from "../policy/mod.ts";

/** What a finding means: the closed set the policy decides on ({@linkcode FindingKind}). */
export type { FindingKind };

/** One reason the argv is not plainly bounded. */
export interface ArgumentFinding {
  /** Stable rule id, `argv:<group>` or `argv:<rule>` (`argv:interpreter`, `argv:sensitive-path`). */
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
 * @returns One `unrestricted_execution` finding for a program that runs whatever it is told, one
 * `unchecked` finding (`argv:no-program`) for an empty argv or a program without a basename;
 * else empty (whether the argv is read-only is `isKnownSafeCommand`'s answer).
 *
 * @example
 * ```ts
 * import { analyzeArgv } from "./argv_analysis.ts";
 * analyzeArgv(["python3", "-c", "print(1)"])[0]?.kind; // "unrestricted_execution"
 * analyzeArgv(["git", "status"]); // []
 * ```
 */
export function analyzeArgv(argv: readonly string[]): ArgumentFinding[] {
  const program = argv[0];
  const key = program === undefined ? "" : programKey(program);
  if (program === undefined || key === "") {
    return [{
      id: "argv:no-program",
      kind: "unchecked",
      index: 0,
      argument: program ?? "",
      reason:
        "argv names no program: it is empty or its first element ends with a slash (execve(2): argv[0])",
    }];
  }
  const group = unrestrictedGroup(key);
  if (group === null) return [];
  return [{
    id: group.id,
    kind: "unrestricted_execution",
    index: 0,
    argument: program,
    reason: group.reason,
  }];
}

/** One value an argument carries (`if=/x` → `/x`), for checks on the paths it names. */
export interface ArgumentValue {
  /** Index in argv of the argument that holds the value. */
  index: number;
  value: string;
}

/**
 * Short options whose attached value is a search text or a separator, never a file: git's
 * pickaxe and line ranges (`-S`, `-G`, `-L`), the pattern of rg and grep (`-e`), sort's and cut's
 * separators and fields.
 */
const TEXT_LETTERS: ReadonlyMap<string, string> = new Map([
  ["git", "SGL"],
  ["rg", "e"],
  ["grep", "e"],
  ["sort", "tk"],
  ["cut", "df"],
  ["paste", "d"],
]);

/** `key=value` operands (dd(1) `if=`, `of=`; make variables; `-c name=value`). */
const KEY_VALUE = /^[A-Za-z_][A-Za-z0-9_.-]*=(.+)$/s;

/**
 * Lists the values the arguments of `argv` carry, for the path check of `resolve_command.ts`:
 * each operand, the value of `--option=value`, and in a short-option cluster (no grammar tells
 * which letter takes a value) the rest after the first letter unless it is one character other
 * than `/` and `~` (a separator: `tr`-like `-d,`), plus every later rest after a letter that holds a `/` or starts with
 * `~` (`tar -czf/x` → `zf/x`, `f/x` and `/x`), except after a letter that takes a search text
 * (`git log -S/api`, `rg -e/usr`); then the value of a `key=value` spelling in any of them (dd(1) `if=/x` →
 * `/x`). After `--` every argument is an operand. Values as spelled: no URL or `~` is
 * interpreted here. Reading too many values only adds findings for paths the policy then checks.
 *
 * @param argv The program (a name or a path) and its arguments.
 * @returns Values in argument order, each with the index of the argument holding it.
 *
 * @example
 * ```ts
 * import { argumentValues } from "./argv_analysis.ts";
 * argumentValues(["tar", "-cf/tmp/x.tar", "src"]).map((found) => found.value);
 * // ["f/tmp/x.tar", "/tmp/x.tar", "src"]
 * argumentValues(["dd", "if=/etc/passwd"]).map((found) => found.value);
 * // ["if=/etc/passwd", "/etc/passwd"]
 * ```
 */
export function argumentValues(argv: readonly string[]): ArgumentValue[] {
  const text = TEXT_LETTERS.get(programKey(argv[0] ?? "")) ?? "";
  const found: ArgumentValue[] = [];
  const add = (index: number, value: string) => {
    found.push({ index, value });
    const keyed = KEY_VALUE.exec(value)?.[1];
    if (keyed !== undefined) found.push({ index, value: keyed });
  };
  let operands = false;
  for (let index = 1; index < argv.length; index++) {
    const argument = argv[index] ?? "";
    if (argument === "-" && !operands) continue; // Standard input, not a path.
    if (operands || !argument.startsWith("-")) {
      add(index, argument);
      continue;
    }
    if (argument === "--") {
      operands = true;
      continue;
    }
    if (argument.startsWith("--")) {
      const equals = argument.indexOf("=");
      const value = equals === -1 ? "" : argument.slice(equals + 1);
      if (value !== "") add(index, value);
      continue;
    }
    if (text.includes(argument[1] ?? "")) continue; // A search text, not a file (`-S/api`).
    // Each letter may own the rest of the cluster: the rest after the first letter, and every
    // later rest that holds a `/` or starts with `~`, up to the first character that is no letter.
    for (let at = 2; at < argument.length && /[A-Za-z0-9]/.test(argument[at - 1] ?? ""); at++) {
      const value = argument.slice(at);
      const path = value.includes("/") || value.startsWith("~");
      if ((value.length > 1 || path) && (at === 2 || path)) {
        add(index, value);
      }
    }
  }
  return found;
}
