/**
 * The tar analyzer: GNU tar 1.34 (tar(1), `tar --help`), which also covers the options bsdtar
 * shares (`--use-compress-program`, `-f`, `-T`).
 *
 * Decisions:
 * - Reported: options that make tar run a program (`-I`, `--to-command`, `--checkpoint-action`,
 *   `-F`, rsh and rmt commands, an archive name with `host:`), and options that make it write or
 *   delete files besides the archive or the extracted members (`--index-file`, `-g`,
 *   `--remove-files`).
 * - Not reported, because they only decide WHERE tar reads or writes, which the mount profile
 *   bounds (only the roots exist, `.git` and protected paths read-only) and the path check of
 *   `resolve_command.ts` reports by name: `-C`/`--directory` and `-P`/`--absolute-names`.
 * - The compression flags (`-z`, `-j`, `-J`, `--zstd`, and the automatic detection on
 *   extraction) run gzip, bzip2, xz or zstd from PATH. They are not reported: the program is
 *   fixed and the runtime controls PATH; `-I`/`--use-compress-program`, where the argument names
 *   the program, is.
 * - Separate arguments are not skipped as values (see `_argv_options.ts`); inside a cluster the
 *   rest after a letter that takes a value is that value (`-czfgood.tgz`: `g` is not `-g`).
 *
 * @module
 */

import type { ArgumentFinding } from "./argv_analysis.ts";
import {
  finding,
  NO_SHORT_VALUES,
  type OptionTable,
  scanOptions,
  type ShortValues,
  splitCluster,
} from "./_argv_options.ts";

/**
 * tar short options that take a value, in GNU tar and bsdtar alike or in GNU tar only (bsdtar
 * refuses `-F`, `-g`, `-K`, `-N`, `-V`). Left out: `-H` and `-L`, values in GNU tar but flags in
 * bsdtar, and bsdtar's `-s` and `-W`, flags in GNU tar; their clusters are read letter by letter,
 * which can only add findings. The values of `-b`, `-K` (a member name) and `-V` are text.
 */
export const TAR_SHORT_VALUES: ShortValues = { letters: "bCfFgIKNTVX", text: "bKV" };

/** Dangerous tar options, code_execution first. tar (argp) accepts unique prefixes. */
const TAR_OPTIONS: OptionTable = {
  abbreviations: true,
  // tar(1): --checkpoint[=N] is an option of its own, a prefix of --checkpoint-action.
  otherOptions: ["checkpoint"],
  shortValues: TAR_SHORT_VALUES,
  rules: [
    {
      id: "argv:tar:runs-command",
      kind: "code_execution",
      long: [
        "checkpoint-action",
        "to-command",
        "use-compress-program",
        "info-script",
        "new-volume-script",
        "rmt-command",
        "rsh-command",
      ],
      short: "IF",
      reason:
        "it names a program or shell command tar runs (tar(1): --checkpoint-action=exec=, --to-command, -I/--use-compress-program, -F/--info-script, --rmt-command, --rsh-command)",
    },
    {
      id: "argv:tar:side-file",
      kind: "file_write",
      long: ["index-file", "volno-file", "listed-incremental"],
      short: "g",
      reason:
        "it writes a side file named by its value (tar(1): --index-file, --volno-file, -g/--listed-incremental)",
    },
    {
      id: "argv:tar:remove-files",
      kind: "file_write",
      long: ["remove-files"],
      reason: "it deletes the files after adding them to the archive (tar(1): --remove-files)",
    },
  ],
};

/** GNU tar(1) short options that take a value, for old-style clusters (`tar cfC a.tar dir`). */
const OLD_STYLE_VALUE_LETTERS = "bCfFgHIKLNTVX";

/** Old-style clusters hold options only: their values are the arguments that follow. */
const OLD_STYLE_OPTIONS: OptionTable = { ...TAR_OPTIONS, shortValues: NO_SHORT_VALUES };

/**
 * Analyzes `argv` (argv[0] is tar) and returns its findings.
 */
export function analyzeTar(argv: readonly string[]): ArgumentFinding[] {
  const first = argv[1];
  const oldStyle = first !== undefined && first !== "" && !first.startsWith("-");
  // tar(1) "old options": a first argument without a dash is a cluster of letters whose values
  // follow it in order (`tar xfC a.tar dir`).
  const findings = oldStyle
    ? [
      ...scanOptions(["tar", "-" + first], 1, OLD_STYLE_OPTIONS).map((found) => ({
        ...found,
        argument: first,
      })),
      ...scanOptions(argv, 2, TAR_OPTIONS),
    ]
    : scanOptions(argv, 1, TAR_OPTIONS);
  if (argv.some((argument) => argument === "--force-local")) return findings;
  for (const [index, archive] of archiveNames(argv, oldStyle)) {
    if (!isRemoteArchive(archive)) continue;
    findings.push(finding(
      "argv:tar:remote-archive",
      "code_execution",
      index,
      argv[index] ?? "",
      `the archive "${archive}" has a colon before any slash, so tar reaches it through rsh or ssh (tar(1): --force-local)`,
    ));
  }
  return findings;
}

/** tar(1): an archive name is remote when a colon comes before the first slash. */
function isRemoteArchive(name: string): boolean {
  const colon = name.indexOf(":");
  const slash = name.indexOf("/");
  return colon > 0 && (slash === -1 || colon < slash);
}

/** The values of -f/--file, with the index of the argument that holds or names them. */
function archiveNames(argv: readonly string[], oldStyle: boolean): [number, string][] {
  const names: [number, string][] = [];
  let next = oldStyle ? 2 : 1;
  if (oldStyle) {
    for (const letter of argv[1] ?? "") {
      if (!OLD_STYLE_VALUE_LETTERS.includes(letter)) continue;
      if (letter === "f" && argv[next] !== undefined) names.push([1, argv[next] ?? ""]);
      next++;
    }
  }
  for (let index = next; index < argv.length; index++) {
    const argument = argv[index] ?? "";
    if (argument === "--file" && argv[index + 1] !== undefined) {
      names.push([index, argv[index + 1] ?? ""]);
    } else if (argument.startsWith("--file=")) {
      names.push([index, argument.slice("--file=".length)]);
    }
    const split = splitCluster(argument, TAR_SHORT_VALUES);
    const value = split?.value ?? argv[index + 1];
    if (split?.owner === "f" && value !== undefined) names.push([index, value]);
  }
  return names;
}
