/**
 * The known-safe commands: argv that only read and print, which the policy treats as read-only and
 * bubblewrap runs with every root mounted read-only. Everything else "may write or execute": under
 * kernel confinement it runs when an allow rule names its program, else it asks.
 *
 * The list is short on purpose (after Codex's `is_safe_command.rs`): a program is on it only when
 * none of its options can run another program or write a file, or when the few that can are
 * refused here by an allowlist of options (git) or a denylist that covers every spelling (rg,
 * find, base64). A program missing from the list costs an ask, never a hole; a wrong entry would
 * still run read-only, without network, with sensitive files masked.
 *
 * @module
 */

/** Programs whose every option only reads and prints (coreutils, grep, the usual inspectors). */
const ALWAYS_SAFE: ReadonlySet<string> = new Set(
  (
    "cat cut echo expr false grep egrep fgrep head id ls nl paste pwd rev seq stat tail tr true " +
    "uname wc which whoami basename dirname realpath readlink du df cmp diff tac printf test"
  ).split(" "),
);

/** Options of rg(1) that run programs: `--pre`, `--pre-glob`, `--hostname-bin`, `-z`/`--search-zip`. */
const RG_UNSAFE_LONG = ["--pre", "--pre-glob", "--hostname-bin", "--search-zip"];

/** find(1) actions that run programs or write files. */
const FIND_UNSAFE = new Set([
  "-exec",
  "-execdir",
  "-ok",
  "-okdir",
  "-delete",
  "-fls",
  "-fprint",
  "-fprint0",
  "-fprintf",
]);

/** git subcommands that only read, each run with the options below. */
const GIT_READ_SUBCOMMANDS = new Set(["status", "log", "diff", "show", "ls-files"]);

/**
 * git options (after the subcommand) that only choose what is shown. Long options are matched in
 * full, before any `=` (git accepts abbreviations, so `--out` is `--output`: an abbreviation is
 * not on this list and makes the command not known-safe). `-<n>` (`-3`) and `-n<n>`/`-U<n>` too.
 */
const GIT_SAFE_OPTIONS = new Set(
  (
    "--short -s --porcelain --branch -b --long --untracked-files -u --ignored --oneline --stat " +
    "--shortstat --numstat --name-only --name-status --summary -p --patch --no-patch -q --quiet " +
    "--cached --staged --graph --decorate --no-decorate --format --pretty --abbrev-commit " +
    "--no-color --color --all --reverse --max-count -n --since --until --after --before " +
    "--author --committer --grep --follow --first-parent --merges --no-merges --word-diff " +
    "--unified -U --no-ext-diff --no-textconv --ignore-all-space -w --ignore-space-change " +
    "--diff-filter --relative --no-renames --find-renames -M --abbrev --date --raw -z " +
    "--modified --others --deleted --exclude-standard --directory"
  ).split(" "),
);

/**
 * Tells whether `argv` (argv[0] a program name or path) is a known-safe, read-only command.
 *
 * @param argv The program and its arguments, as `exec.run_command` runs them (no shell).
 * @returns true for `ls -la`, `git status --short`, `rg TODO src`, `find . -name "*.ts"`; false for
 *   any other program, `git push`, `git diff --output=x`, `rg --pre x`, `find -delete`,
 *   `zip -T -TT cmd`, an empty argv.
 *
 * @example
 * ```ts
 * import { isKnownSafeCommand } from "./known_safe_command.ts";
 * console.assert(isKnownSafeCommand(["git", "diff", "--stat"]));
 * console.assert(!isKnownSafeCommand(["git", "diff", "--output=/tmp/x"]));
 * console.assert(!isKnownSafeCommand(["zip", "-T", "-TT", "sh -c id", "a.zip"]));
 * ```
 */
export function isKnownSafeCommand(argv: readonly string[]): boolean {
  const program = argv[0];
  if (program === undefined) return false;
  const name = safeKey(program);
  const args = argv.slice(1);
  if (ALWAYS_SAFE.has(name)) return true;
  switch (name) {
    case "rg":
      return args.every((argument) =>
        !RG_UNSAFE_LONG.some((option) =>
          argument === option || argument.startsWith(`${option}=`)
        ) && !(/^-[^-]/.test(argument) && argument.includes("z"))
      );
    case "find":
      return args.every((argument) => !FIND_UNSAFE.has(argument));
    case "base64":
      return args.every((argument) => !/^-(?:-output|o)/.test(argument));
    case "sed":
      // Only `sed -n <line>p` or `<line>,<line>p`, then files.
      return args[0] === "-n" && /^\d+(,\d+)?p$/.test(args[1] ?? "") &&
        args.slice(2).every((argument) => !argument.startsWith("-"));
    case "git":
      return isSafeGit(args);
    default:
      return false;
  }
}

/** `git <read subcommand> [safe options] [revisions, paths, --]`: no global options. */
function isSafeGit(args: readonly string[]): boolean {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || !GIT_READ_SUBCOMMANDS.has(subcommand)) return false;
  let operands = false;
  for (const argument of rest) {
    if (operands || !argument.startsWith("-")) continue;
    if (argument === "--") {
      operands = true;
      continue;
    }
    if (/^-\d+$/.test(argument) || /^-[nU]\d+$/.test(argument)) continue;
    const name = argument.includes("=") ? argument.slice(0, argument.indexOf("=")) : argument;
    if (!GIT_SAFE_OPTIONS.has(name)) return false;
  }
  return true;
}

/**
 * The name a program is judged by: its basename in lower case, without a Debian alternative's
 * suffix (`which.debianutils` → `which`).
 */
function safeKey(program: string): string {
  const basename = program.slice(program.lastIndexOf("/") + 1).toLowerCase();
  return basename.split(".")[0] ?? basename;
}
