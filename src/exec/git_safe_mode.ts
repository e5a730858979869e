/**
 * git safe mode (`tools.git_safe_mode`, default on): git runs without anything a repository or a
 * home folder could make it execute.
 *
 * 1. Forced configuration through `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`
 *    (git-config(1), "ENVIRONMENT"; above every config file): no hooks, fsmonitor, pager, signing,
 *    `ext::` transport or credential helper; no global or system config at all.
 * 2. Editors that refuse (`GIT_EDITOR=false`): nothing interactive runs.
 * 3. `--no-ext-diff --no-textconv` after the subcommands that produce diffs: an empty
 *    `diff.external` would make git fail rather than ignore it (measured with git 2.39).
 * 4. A repository whose own config sets a key that names a program (filters, diff and merge
 *    drivers, remote helpers, upload-pack, aliases with `!`, …) is refused before git runs; the
 *    agent cannot write .git (protected), so such keys come from the repository as it was given.
 *
 * @module
 */

/** Configuration forced on every git run in safe mode. */
export const GIT_SAFE_CONFIG: readonly [string, string][] = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["core.pager", "cat"],
  ["core.sshCommand", "ssh -oBatchMode=yes"],
  ["protocol.ext.allow", "never"],
  ["credential.helper", ""],
  ["commit.gpgSign", "false"],
  ["tag.gpgSign", "false"],
  ["push.gpgSign", "false"],
  ["submodule.recurse", "false"],
];

/** The environment added to git's in safe mode. */
export function gitSafeEnvironment(): Record<string, string> {
  const env: Record<string, string> = {
    GIT_CONFIG_COUNT: String(GIT_SAFE_CONFIG.length),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_PAGER: "cat",
    GIT_EDITOR: "false",
    GIT_SEQUENCE_EDITOR: "false",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "false",
  };
  GIT_SAFE_CONFIG.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

/** Subcommands that accept diff options (git-diff(1) "OPTIONS" shared by these). */
const DIFF_FAMILY = new Set([
  "diff",
  "log",
  "show",
  "whatchanged",
  "diff-tree",
  "diff-files",
  "diff-index",
  "format-patch",
  "range-diff",
]);

/**
 * The argv with `--no-ext-diff --no-textconv` inserted after a diff-family subcommand. The
 * subcommand is the first argument not starting with "-" (the argument policy refuses global
 * options that take a value, such as `-C` and `-c`).
 */
export function withSafeDiffOptions(argv: readonly string[]): string[] {
  const index = argv.findIndex((argument, position) => position > 0 && !argument.startsWith("-"));
  if (index === -1 || !DIFF_FAMILY.has(argv[index] as string)) return [...argv];
  return [...argv.slice(0, index + 1), "--no-ext-diff", "--no-textconv", ...argv.slice(index + 1)];
}

/** Keys (lower case; `*` one or more segments) that make git run a program they name. */
const UNSAFE_KEYS: readonly RegExp[] = [
  /^core\.(pager|editor|askpass|sshcommand|gitproxy|hookspath|fsmonitor|alternaterefscommand)$/,
  /^sequence\.editor$/,
  /^pager\..+$/,
  /^diff\.external$/,
  /^diff\..+\.(command|textconv)$/,
  /^merge\..+\.driver$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^remote\..+\.(uploadpack|receivepack|vcs)$/,
  /^credential(\..+)?\.helper$/,
  /^gpg(\..+)?\.program$/,
  /^submodule\..+\.update$/,
  /^uploadpack\.packobjectshook$/,
  /^include(if\..+)?\.path$/,
];

/**
 * The keys of a `git config --local --list -z` listing (entries `key\nvalue\0`) that make git
 * run a program: aliases only when they start with "!" (a shell command).
 */
export function unsafeGitConfigKeys(listing: string): string[] {
  const unsafe = new Set<string>();
  for (const entry of listing.split("\0")) {
    if (entry === "") continue;
    const newline = entry.indexOf("\n");
    const key = (newline === -1 ? entry : entry.slice(0, newline)).toLowerCase();
    const value = newline === -1 ? "" : entry.slice(newline + 1);
    if (UNSAFE_KEYS.some((pattern) => pattern.test(key))) unsafe.add(key);
    else if (key.startsWith("alias.") && value.trimStart().startsWith("!")) unsafe.add(key);
  }
  return [...unsafe].sort();
}
