/**
 * The sed analyzer: GNU sed 4.9 options (sed(1), sed.c longopts and short options
 * "bsnrzuEe:f:l:i::"), then the script (`_argv_sed_script.ts`).
 *
 * sed's options are modelled completely, so unlike the other analyzers this one knows which
 * argument is a value and where `--` ends the options. What it cannot read (an unknown option, an
 * ambiguous abbreviation, a `-f` script file) is reported `unchecked`.
 *
 * @module
 */

import type { ArgumentFinding } from "./argv_analysis.ts";
import { finding, type ShortValues } from "./_argv_options.ts";
import { scanSedScript } from "./_argv_sed_script.ts";

type SedOption =
  | "in-place"
  | "expression"
  | "file"
  | "line-length"
  | "sandbox"
  | "flag";

/** GNU sed long options (sed.c longopts) and what they are to the analyzer. */
const LONG_OPTIONS: ReadonlyMap<string, SedOption> = new Map([
  ["binary", "flag"],
  ["debug", "flag"],
  ["expression", "expression"],
  ["file", "file"],
  ["follow-symlinks", "flag"],
  ["help", "flag"],
  ["in-place", "in-place"],
  ["line-length", "line-length"],
  ["null-data", "flag"],
  ["zero-terminated", "flag"],
  ["posix", "flag"],
  ["quiet", "flag"],
  ["silent", "flag"],
  ["regexp-extended", "flag"],
  ["sandbox", "sandbox"],
  ["separate", "flag"],
  ["unbuffered", "flag"],
  ["version", "flag"],
]);

/** GNU sed short options: flags, and those that take a value. */
const SHORT_FLAGS = "bsnrzuE";
const SHORT_VALUES: Readonly<Record<string, SedOption>> = {
  e: "expression",
  f: "file",
  l: "line-length",
};

/** sed's short values for path checks: only `-f`'s names a file (`-i` takes a suffix). */
export const SED_SHORT_VALUES: ShortValues = { letters: "efilI", text: "eilI" };

const IN_PLACE_REASON =
  "it edits the input files in place, writing them (sed(1): -i[SUFFIX], --in-place[=SUFFIX]; BSD sed: -i extension, -I)";

/**
 * Analyzes `argv` (argv[0] is sed) and returns its findings.
 */
export function analyzeSed(argv: readonly string[]): ArgumentFinding[] {
  const findings: ArgumentFinding[] = [];
  const scripts: { text: string; index: number }[] = [];
  const operands: number[] = [];
  let sandbox = false;
  let scriptFile = false;
  const unchecked = (index: number, reason: string) =>
    findings.push(finding("argv:sed:unchecked", "unchecked", index, argv[index] ?? "", reason));
  /** `index` holds the option, `valueIndex` its value (the same argument when attached). */
  const take = (
    option: SedOption,
    value: string | undefined,
    index: number,
    valueIndex: number,
  ) => {
    if (option === "expression") scripts.push({ text: value ?? "", index: valueIndex });
    if (option === "file") {
      scriptFile = true;
      findings.push(finding(
        "argv:sed:script-file",
        "unchecked",
        index,
        argv[index] ?? "",
        "the script comes from a file this analyzer does not read (sed(1): -f, --file)",
      ));
    }
    if (option === "line-length" && !/^\d+$/.test(value ?? "")) {
      unchecked(
        index,
        "the line length is not a number, and BSD sed's -l takes none, making it the script (sed(1): -l N)",
      );
    }
  };

  for (let index = 1; index < argv.length; index++) {
    const argument = argv[index] ?? "";
    if (argument === "--") {
      for (let rest = index + 1; rest < argv.length; rest++) operands.push(rest);
      break;
    }
    if (argument.startsWith("--")) {
      const equals = argument.indexOf("=");
      const given = equals === -1 ? argument.slice(2) : argument.slice(2, equals);
      const option = resolveLong(given);
      if (option === null) {
        unchecked(index, "it is not a sed option this analyzer knows, or it is ambiguous (sed(1))");
        continue;
      }
      if (option === "in-place") {
        findings.push(finding("argv:sed:in-place", "file_write", index, argument, IN_PLACE_REASON));
      } else if (option === "sandbox") {
        sandbox = true;
      } else if (option !== "flag") {
        const separate = equals === -1;
        const value = separate ? argv[index + 1] : argument.slice(equals + 1);
        take(option, value, index, separate ? index + 1 : index);
        if (separate) index++;
      }
      continue;
    }
    if (!argument.startsWith("-") || argument === "-") {
      operands.push(index);
      continue;
    }
    for (let at = 1; at < argument.length; at++) {
      const letter = argument[at] ?? "";
      if (letter === "i" || letter === "I") {
        // -i takes the rest of the cluster as its suffix (getopt "i::"): -ni and -in both edit.
        findings.push(finding("argv:sed:in-place", "file_write", index, argument, IN_PLACE_REASON));
        break;
      }
      const option = SHORT_VALUES[letter];
      if (option !== undefined) {
        const attached = argument.slice(at + 1);
        const separate = attached === "";
        take(option, separate ? argv[index + 1] : attached, index, separate ? index + 1 : index);
        if (separate) index++;
        break;
      }
      if (!SHORT_FLAGS.includes(letter)) {
        unchecked(index, `"-${letter}" is not a sed option this analyzer knows (sed(1))`);
        break;
      }
    }
  }

  // sed(1): without -e or -f, the first non-option argument is the script.
  if (scripts.length === 0 && !scriptFile && operands[0] !== undefined) {
    scripts.push({ text: argv[operands[0]] ?? "", index: operands[0] });
  }
  if (sandbox || scripts.length === 0) return findings;
  // sed.c: every -e adds its text and a newline, so the pieces form one script.
  const joined = scripts.map((script) => script.text).join("\n");
  const ends: number[] = [];
  let offset = 0;
  for (const script of scripts) {
    offset += script.text.length + 1;
    ends.push(offset);
  }
  for (const issue of scanSedScript(joined)) {
    const owner = scripts[ends.findIndex((end) => issue.offset < end)] ?? scripts.at(-1);
    const index = owner?.index ?? 0;
    findings.push(finding(issue.id, issue.kind, index, argv[index] ?? "", issue.reason));
  }
  return findings;
}

/**
 * getopt_long(3): an exact name, else a prefix. Several candidates of one kind are harmless
 * either way (sed takes them or refuses them); candidates of different kinds give null.
 */
function resolveLong(given: string): SedOption | null {
  const exact = LONG_OPTIONS.get(given);
  if (exact !== undefined) return exact;
  if (given === "") return null;
  const kinds = new Set(
    [...LONG_OPTIONS].filter(([name]) => name.startsWith(given)).map(([, option]) => option),
  );
  const [only] = kinds;
  return kinds.size === 1 && only !== undefined ? only : null;
}
