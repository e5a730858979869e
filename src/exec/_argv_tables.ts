/**
 * Table-driven analyzers: programs whose dangerous options are a short list (rg, find, sort,
 * split, man). Each rule names the manual page it comes from.
 *
 * @module
 */

import { NO_SHORT_VALUES, type OptionTable } from "./_argv_options.ts";

/**
 * ripgrep 13/14 (rg(1)). Long options must be spelled in full (rg has no abbreviations). Not in
 * argv: a config file named by RIPGREP_CONFIG_PATH can add any of these options; the runtime must
 * not pass that variable (or must pass --no-config).
 */
export const RG_OPTIONS: OptionTable = {
  abbreviations: false,
  // rg(1) 14: -A -B -C -d -E -e -f -g -j -M -m -r -T -t take a value; only -f's names a file.
  shortValues: { letters: "ABCdEefgjMmrTt", text: "ABCdEegjMmrTt" },
  rules: [
    {
      id: "argv:rg:pre",
      kind: "code_execution",
      long: ["pre", "pre-glob"],
      reason:
        "it makes rg run a command on every searched file and search its output (rg(1): --pre COMMAND, --pre-glob)",
    },
    {
      id: "argv:rg:search-zip",
      kind: "code_execution",
      long: ["search-zip"],
      short: "z",
      reason:
        "it makes rg run decompression programs (gzip, xz, bzip2, lz4, zstd, brotli) found on PATH (rg(1): -z, --search-zip)",
    },
    {
      id: "argv:rg:hostname-bin",
      kind: "code_execution",
      long: ["hostname-bin"],
      reason:
        "it names a program rg runs to get the host name for hyperlinks (rg(1) 14: --hostname-bin)",
    },
  ],
};

/** GNU and BSD find(1): actions are whole single-dash words, never abbreviated. */
export const FIND_OPTIONS: OptionTable = {
  abbreviations: false,
  shortValues: NO_SHORT_VALUES,
  rules: [
    {
      id: "argv:find:exec",
      kind: "code_execution",
      words: ["-exec", "-execdir", "-ok", "-okdir"],
      reason: "it runs a command for every file found (find(1): -exec, -execdir, -ok, -okdir)",
    },
    {
      id: "argv:find:delete",
      kind: "file_write",
      words: ["-delete"],
      reason: "it deletes every file found (find(1): -delete)",
    },
    {
      id: "argv:find:fprint",
      kind: "file_write",
      words: ["-fprint", "-fprint0", "-fprintf", "-fls"],
      reason: "it writes its output to the named file (find(1): -fprint, -fprint0, -fprintf, -fls)",
    },
  ],
};

/** GNU sort (sort(1)); getopt_long accepts unique prefixes. */
export const SORT_OPTIONS: OptionTable = {
  abbreviations: true,
  // sort.c short_options "-bcCdfghik:mMno:rRsS:t:T:uVy:z": -o and -T name files, -k -S -t -y not.
  shortValues: { letters: "koSTty", text: "kSty" },
  rules: [
    {
      id: "argv:sort:compress-program",
      kind: "code_execution",
      long: ["compress-program"],
      reason: "it names a program sort runs on its temporary files (sort(1): --compress-program)",
    },
    {
      id: "argv:sort:output",
      kind: "file_write",
      long: ["output"],
      short: "o",
      reason: "it writes the result to the named file (sort(1): -o, --output)",
    },
  ],
};

/** GNU split (split(1)); getopt_long accepts unique prefixes. */
export const SPLIT_OPTIONS: OptionTable = {
  abbreviations: true,
  // split.c short options "0123456789C:a:b:del:n:t:ux": sizes, counts and a separator.
  shortValues: { letters: "Cablnt", text: "Cablnt" },
  rules: [
    {
      id: "argv:split:filter",
      kind: "code_execution",
      long: ["filter"],
      reason: "it pipes every piece into a shell command (split(1): --filter=COMMAND)",
    },
  ],
};

/** man-db (man(1)); argp accepts unique prefixes. Not in argv: MANPAGER, PAGER, BROWSER. */
export const MAN_OPTIONS: OptionTable = {
  abbreviations: true,
  rules: [
    {
      id: "argv:man:pager",
      kind: "code_execution",
      long: ["pager", "html", "gxditview"],
      short: "PHX",
      reason:
        "it names a program man runs to show the page (man(1): -P/--pager, -H/--html[=BROWSER], -X/--gxditview)",
    },
    {
      id: "argv:man:config-file",
      kind: "unchecked",
      long: ["config-file"],
      short: "C",
      reason:
        "it reads another man configuration, which can name the programs man runs (man(1): -C, --config-file)",
    },
  ],
};
