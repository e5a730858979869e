/**
 * `git config`: reading is harmless, writing is code execution (configuration names programs git
 * runs: core.pager, core.fsmonitor, core.sshCommand, core.hooksPath, diff.external, alias.*).
 *
 * A call counts as a read only when every option is a known read action or read modifier
 * (git-config(1), spelled out in full: an abbreviation such as `--get-r` is not recognised and
 * counts as a write), or when it uses the `get` / `list` subcommands of git 2.46+, or when it
 * names exactly one key and no action (`git config core.pager` prints the value).
 *
 * @module
 */

import type { ArgumentFinding } from "./argv_analysis.ts";
import { finding } from "./_argv_options.ts";

/** git-config(1) actions that only read. */
const READ_ACTIONS: ReadonlySet<string> = new Set([
  "--get",
  "--get-all",
  "--get-regexp",
  "--get-urlmatch",
  "--get-color",
  "--get-colorbool",
  "--list",
  "-l",
]);

/** git-config(1) options that only choose what or how to read, without a value. */
const READ_MODIFIERS: ReadonlySet<string> = new Set([
  "--global",
  "--system",
  "--local",
  "--worktree",
  "--includes",
  "--no-includes",
  "--show-origin",
  "--show-scope",
  "--name-only",
  "-z",
  "--null",
  "--bool",
  "--int",
  "--bool-or-int",
  "--path",
  "--expiry-date",
  "--fixed-value",
]);

/** git-config(1) read modifiers that take a value, separate or after `=`. */
const READ_MODIFIERS_WITH_VALUE: ReadonlySet<string> = new Set([
  "-f",
  "--file",
  "--blob",
  "--type",
  "--default",
]);

/** git 2.46+ subcommands of git config that only read (git-config(1): get, list). */
const READ_SUBCOMMANDS: ReadonlySet<string> = new Set(["get", "list"]);

/**
 * Analyzes `git config` whose `config` word is at `configIndex`: one code_execution finding on
 * that word unless the call only reads.
 */
export function analyzeGitConfig(argv: readonly string[], configIndex: number): ArgumentFinding[] {
  let reads = false;
  let unknown = false;
  const positionals: string[] = [];
  for (let index = configIndex + 1; index < argv.length; index++) {
    const argument = argv[index] ?? "";
    const name = argument.startsWith("--") && argument.includes("=")
      ? argument.slice(0, argument.indexOf("="))
      : argument;
    if (READ_ACTIONS.has(argument)) reads = true;
    else if (READ_MODIFIERS.has(argument)) continue;
    else if (READ_MODIFIERS_WITH_VALUE.has(name)) index += name === argument ? 1 : 0;
    else if (argument.startsWith("-")) unknown = true;
    else positionals.push(argument);
  }
  const readOnly = !unknown &&
    (reads || READ_SUBCOMMANDS.has(positionals[0] ?? "") || positionals.length === 1);
  if (readOnly) return [];
  return [finding(
    "argv:git:config-write",
    "code_execution",
    configIndex,
    argv[configIndex] ?? "config",
    "it writes or edits git configuration, which names programs git runs: core.pager, core.fsmonitor, core.sshCommand, core.hooksPath, alias.* (git-config(1))",
  )];
}
