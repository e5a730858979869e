/**
 * Shared pieces of the argv analyzers: building findings, reading option spellings, scanning an
 * argument list against a table of dangerous options, and listing the values arguments carry.
 *
 * Scanning rule used by every table here: each argument is judged on its own spelling. No argument
 * is skipped as "the value of the previous option" and `--` does not end the scan, because a wrong
 * guess about an option's arity would hide a real option (`-g -e --pre`: `-g` takes `-e` as its
 * value, so `--pre` IS an option). The price is a finding on a value that happens to spell a
 * dangerous option (`rg -e --pre`), which the policy then stops.
 *
 * Inside one short-option cluster there is no guess: getopt(3) gives the rest of the cluster to
 * the first letter that takes a value (`-czfgood.tgz` is `-c -z -f good.tgz`), so where a table
 * lists those letters ({@linkcode ShortValues}) the letters after it are not options.
 *
 * @module
 */

import type { ArgumentFinding, FindingKind } from "./argv_analysis.ts";

/** Builds one finding. */
export function finding(
  id: string,
  kind: FindingKind,
  index: number,
  argument: string,
  reason: string,
): ArgumentFinding {
  return { id, kind, index, argument, reason };
}

/**
 * The name of a long option: `--pre=x` → `pre`, `--pre` → `pre`; `--`, `-x` and `x` → null.
 */
export function longOptionName(argument: string): string | null {
  if (!argument.startsWith("--") || argument.length === 2) return null;
  const equals = argument.indexOf("=");
  return equals === -1 ? argument.slice(2) : argument.slice(2, equals);
}

/** The value attached to a long option (`--pre=x` → `x`), or null when there is none. */
export function attachedValue(argument: string): string | null {
  const equals = argument.indexOf("=");
  return argument.startsWith("--") && equals !== -1 ? argument.slice(equals + 1) : null;
}

/** The letters of a short-option cluster: `-xzf` → `xzf`; `-`, `--x` and `x` → null. */
export function shortCluster(argument: string): string | null {
  if (!argument.startsWith("-") || argument.startsWith("--") || argument.length < 2) return null;
  return argument.slice(1);
}

/**
 * How a program's short options take values (getopt(3) `x:` and `x::`: the rest of the cluster
 * after such a letter is its value, `-T/tmp` and `-cf/tmp/a.tar` alike).
 */
export interface ShortValues {
  /**
   * The letters that take a value, or null for a program not modelled: then the first letter of a
   * cluster is taken to own the rest (`-T/tmp`, `-o../x`), and a one-character rest is taken for a
   * separator, not a path (`cut -d/`).
   */
  letters: string | null;
  /** Letters whose value is text, never a file name (`sort -t/`, `git log -S/api`). */
  text: string;
}

/** {@linkcode ShortValues} of a program not modelled. */
export const UNMODELLED: ShortValues = { letters: null, text: "" };

/** {@linkcode ShortValues} where no letter takes a value (find(1) words, tar's old-style cluster). */
export const NO_SHORT_VALUES: ShortValues = { letters: "", text: "" };

/**
 * Splits a short-option cluster into its option letters and the value attached to the last of
 * them: `-czfgood.tgz` with tar's letters → `{letters: "czf", value: "good.tgz", owner: "f"}`.
 * Without a value letter every letter is an option and `value` is null. Not a cluster → null.
 *
 * @example
 * ```ts
 * import { splitCluster } from "./_argv_options.ts";
 * splitCluster("-czfgood.tgz", { letters: "Cf", text: "" })?.value; // "good.tgz"
 * splitCluster("-T/tmp", { letters: null, text: "" })?.value; // "/tmp"
 * ```
 */
export function splitCluster(
  argument: string,
  values: ShortValues,
): { letters: string; value: string | null; owner: string | null } | null {
  const cluster = shortCluster(argument);
  if (cluster === null) return null;
  const at = values.letters === null
    ? 0
    : [...cluster].findIndex((letter) => values.letters?.includes(letter));
  if (at === -1) return { letters: cluster, value: null, owner: null };
  const value = cluster.slice(at + 1);
  return {
    letters: cluster.slice(0, at + 1),
    value: value === "" ? null : value,
    owner: cluster[at] ?? null,
  };
}

/** One value an argument carries (`if=/x` → `/x`), for checks on the paths it names. */
export interface ArgumentValue {
  /** Index in argv of the argument that holds the value. */
  index: number;
  value: string;
}

/** `key=value` operands (dd(1) `if=`, `of=`; make variables; `-c name=value`). */
const KEY_VALUE = /^[A-Za-z_][A-Za-z0-9_.-]*=(.+)$/s;

/**
 * Lists the values `argv` (argv[0] is the program) carries: each operand itself, the value of
 * `--option=value`, the value attached in a short cluster unless its letter takes text, and the
 * value of a `key=value` spelling in any of them. After `--` every argument is an operand. A value
 * given as the next argument is an operand already.
 *
 * @example
 * ```ts
 * import { argumentValues, UNMODELLED } from "./_argv_options.ts";
 * argumentValues(["dd", "if=/x", "-T/y"], UNMODELLED).map((found) => found.value);
 * // ["if=/x", "/x", "/y"]
 * ```
 */
export function argumentValues(argv: readonly string[], values: ShortValues): ArgumentValue[] {
  const found: ArgumentValue[] = [];
  const add = (index: number, value: string) => {
    found.push({ index, value });
    const keyed = KEY_VALUE.exec(value)?.[1];
    if (keyed !== undefined) found.push({ index, value: keyed });
  };
  let operands = false;
  for (let index = 1; index < argv.length; index++) {
    const argument = argv[index] ?? "";
    if (operands || !argument.startsWith("-")) {
      add(index, argument);
      continue;
    }
    if (argument === "--") operands = true;
    if (argument.startsWith("--")) {
      const value = attachedValue(argument);
      if (value !== null && value !== "") add(index, value);
      continue;
    }
    const split = splitCluster(argument, values);
    const value = split?.value ?? "";
    // A value has an owner; a one-character value of an unmodelled program is a separator.
    const text = values.text.includes(split?.owner ?? "") ||
      (values.letters === null && value.length === 1);
    if (value !== "" && !text) add(index, value);
  }
  return found;
}

/**
 * Tells whether the long option spelled `given` selects `option`.
 *
 * getopt_long(3) and git's parse-options accept any unambiguous prefix of a long option
 * (`--upload-p` is `--upload-pack`), and an exact name always wins over a longer option it is a
 * prefix of (`--text` is `--text`, not an abbreviation of `--textconv`). With `abbreviations`, any
 * non-empty prefix of `option` counts unless it is the full name of another option listed in
 * `otherOptions`. Ambiguous prefixes are refused by the program, so counting them is conservative.
 */
export function selectsLongOption(
  given: string,
  option: string,
  abbreviations: boolean,
  otherOptions: ReadonlySet<string>,
): boolean {
  if (given === option) return true;
  if (!abbreviations || given.length === 0 || otherOptions.has(given)) return false;
  return option.startsWith(given);
}

/** A dangerous option of one program. */
export interface OptionRule {
  /** Finding id, `argv:<program>:<rule>`. */
  id: string;
  kind: FindingKind;
  /** Why it is dangerous, with the manual page or source it comes from. */
  reason: string;
  /** Long names without dashes (`pre`, `to-command`). */
  long?: readonly string[];
  /** Short letters (`z`), found anywhere in a cluster (`-iz`). */
  short?: string;
  /** Whole single-dash words, find(1) style (`-exec`). */
  words?: readonly string[];
}

/** How one program spells options, for {@linkcode scanOptions}. */
export interface OptionTable {
  rules: readonly OptionRule[];
  /** Whether the program accepts unambiguous prefixes of long options (getopt_long, argp). */
  abbreviations: boolean;
  /** Full names of other options that are prefixes of a dangerous name (tar `checkpoint`). */
  otherOptions?: readonly string[];
  /** Short letters that take a value; without it every letter of a cluster is an option. */
  shortValues?: ShortValues;
}

/**
 * Reports every argument from `start` on that spells a dangerous option of `table`; at most one
 * finding per rule and argument, the first matching rule in table order (tables list
 * code_execution rules first).
 */
export function scanOptions(
  argv: readonly string[],
  start: number,
  table: OptionTable,
): ArgumentFinding[] {
  const others = new Set(table.otherOptions ?? []);
  const findings: ArgumentFinding[] = [];
  for (let index = start; index < argv.length; index++) {
    const argument = argv[index] ?? "";
    const name = longOptionName(argument);
    const cluster = table.shortValues === undefined
      ? shortCluster(argument)
      : splitCluster(argument, table.shortValues)?.letters ?? null;
    const seen = new Set<string>();
    for (const rule of table.rules) {
      if (seen.has(rule.id)) continue;
      const matched = (name !== null &&
        (rule.long ?? []).some((option) =>
          selectsLongOption(name, option, table.abbreviations, others)
        )) ||
        (rule.words ?? []).includes(argument) ||
        (cluster !== null && rule.short !== undefined &&
          [...rule.short].some((letter) => cluster.includes(letter)));
      if (!matched) continue;
      seen.add(rule.id);
      findings.push(finding(rule.id, rule.kind, index, argument, rule.reason));
      if (name !== null) break;
    }
  }
  return findings;
}
