/**
 * Shared pieces of the argv analyzers: building findings, reading option spellings, and scanning
 * an argument list against a table of dangerous options.
 *
 * Scanning rule used by every table here: each argument is judged on its own spelling. No argument
 * is skipped as "the value of the previous option" and `--` does not end the scan, because a wrong
 * guess about an option's arity would hide a real option (`-g -e --pre`: `-g` takes `-e` as its
 * value, so `--pre` IS an option). The price is a finding on a value that happens to spell a
 * dangerous option (`rg -e --pre`), which the policy then stops.
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
    const cluster = shortCluster(argument);
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
