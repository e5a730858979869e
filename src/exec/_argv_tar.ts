/**
 * The tar analyzer: GNU tar 1.34 (tar(1), `tar --help`), which also covers the options bsdtar
 * shares (`--use-compress-program`, `-C`).
 *
 * Decisions:
 * - `-C DIR`/`--directory` is `unchecked`: tar then reads from or extracts into DIR, which the
 *   cwd check of run_command does not cover, and the analyzer does not know the roots.
 * - `-P`/`--absolute-names` is `file_write`: extraction keeps leading `/` and `..`, writing
 *   anywhere.
 * - The compression flags (`-z`, `-j`, `-J`, `--zstd`, and the automatic detection on
 *   extraction) run gzip, bzip2, xz or zstd from PATH. They are not reported: the program is
 *   fixed and the runtime controls PATH; `-I`/`--use-compress-program`, where the argument names
 *   the program, is.
 * - Arguments are not skipped as values (see `_argv_options.ts`); only the values of `-f` and
 *   `--file` are read, for remote archives.
 *
 * @module
 */

import type { ArgumentFinding } from "./argv_analysis.ts";
import { finding, type OptionTable, scanOptions, shortCluster } from "./_argv_options.ts";

/** Dangerous tar options, code_execution first. tar (argp) accepts unique prefixes. */
const TAR_OPTIONS: OptionTable = {
  abbreviations: true,
  // tar(1): --checkpoint[=N] is an option of its own, a prefix of --checkpoint-action.
  otherOptions: ["checkpoint"],
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
      id: "argv:tar:absolute-names",
      kind: "file_write",
      long: ["absolute-names"],
      short: "P",
      reason:
        "it keeps leading / and .. in member names, so extraction writes anywhere (tar(1): -P, --absolute-names)",
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
    {
      id: "argv:tar:directory",
      kind: "unchecked",
      long: ["directory"],
      short: "C",
      reason:
        "tar reads from or extracts into the given directory, which the cwd check does not cover (tar(1): -C, --directory)",
    },
  ],
};

/** tar(1) short options that take a value, for old-style clusters (`tar cfC a.tar dir`). */
const VALUE_LETTERS = "bCfFgHIKLNTVX";

/**
 * Analyzes `argv` (argv[0] is tar) and returns its findings.
 */
export function analyzeTar(argv: readonly string[]): ArgumentFinding[] {
  const first = argv[1];
  const oldStyle = first !== undefined && first !== "" && !first.startsWith("-");
  // tar(1) "old options": a first argument without a dash is a cluster of letters whose values
  // follow it in order (`tar xfC a.tar dir`).
  const scanned = oldStyle ? ["-" + first, ...argv.slice(2)] : argv.slice(1);
  const findings = scanOptions(["tar", ...scanned], 1, TAR_OPTIONS);
  for (const found of findings) found.argument = argv[found.index] ?? found.argument;
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
      if (!VALUE_LETTERS.includes(letter)) continue;
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
    const cluster = shortCluster(argument);
    if (cluster === null) continue;
    for (let at = 0; at < cluster.length; at++) {
      if (!VALUE_LETTERS.includes(cluster[at] ?? "")) continue;
      const attached = cluster.slice(at + 1);
      const value = attached === "" ? argv[index + 1] : attached;
      if (cluster[at] === "f" && value !== undefined) names.push([index, value]);
      break;
    }
  }
  return names;
}
