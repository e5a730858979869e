/**
 * The rule tables of the git analyzer: dangerous options and subcommands, each with the manual
 * page (git 2.39 to 2.50) or source file the rule comes from.
 *
 * @module
 */

import type { FindingKind } from "./argv_analysis.ts";
import type { ShortValues } from "./_argv_options.ts";

/**
 * git's short values for path checks: which letter takes a value depends on the subcommand, so
 * the first letter is taken to own the rest (`-F/tmp/msg`, `-C/elsewhere`, `-o../a.zip`), except
 * the letters whose value is text: `-e` (grep pattern), `-S` and `-G` (pickaxe), `-m` (message),
 * `-L` (log line ranges such as `-L/regex/,+3:file`).
 */
export const GIT_SHORT_VALUES: ShortValues = { letters: null, text: "eSGmL" };

/** A dangerous long option of a git subcommand. */
export interface GitLongRule {
  /** Long name without dashes. */
  name: string;
  id: string;
  kind: FindingKind;
  reason: string;
  /** Subcommands where it counts; every subcommand when absent. */
  only?: readonly string[];
}

/**
 * Long options, code_execution first. parse-options accepts unique prefixes (parse-options.c
 * parse_long_opt), so any prefix counts except the full names in {@linkcode GIT_OTHER_OPTIONS}.
 *
 * Not listed: options that only choose WHERE git writes (`apply --unsafe-paths`,
 * `checkout-index --prefix`, `init`/`clone --separate-git-dir`). The mount profile bounds where
 * any program writes, and the path check of `resolve_command.ts` reports a value outside the roots.
 */
export const GIT_LONG_RULES: readonly GitLongRule[] = [
  {
    name: "upload-pack",
    id: "argv:git:upload-pack",
    kind: "code_execution",
    reason:
      "it names the program git runs to serve the fetch, on this host for a local repository (git-clone(1), git-fetch(1), git-ls-remote(1): --upload-pack)",
  },
  {
    name: "receive-pack",
    id: "argv:git:receive-pack",
    kind: "code_execution",
    reason:
      "it names the program git runs to receive the push (git-push(1), git-send-pack(1): --receive-pack)",
  },
  {
    name: "exec",
    id: "argv:git:exec",
    kind: "code_execution",
    reason:
      "it names a program or shell command git runs (git-push(1) --exec = --receive-pack; git-archive(1) --exec; git-rebase(1) --exec runs a command after each commit)",
  },
  {
    name: "ext-diff",
    id: "argv:git:ext-diff",
    kind: "code_execution",
    reason: "it runs the external diff program of diff.external or GIT_EXTERNAL_DIFF (git-diff(1))",
  },
  {
    name: "textconv",
    id: "argv:git:textconv",
    kind: "code_execution",
    reason:
      "it runs the diff.<driver>.textconv filters that .gitattributes select (git-diff(1), gitattributes(5))",
  },
  {
    name: "open-files-in-pager",
    id: "argv:git:pager",
    kind: "code_execution",
    reason:
      "it runs the given pager on the matching files (git-grep(1): -O, --open-files-in-pager)",
    only: ["grep"],
  },
  {
    name: "config",
    id: "argv:git:config-option",
    kind: "code_execution",
    reason:
      "it sets configuration of the new repository, which can name programs git runs: core.fsmonitor, core.sshCommand, core.hooksPath (git-clone(1): -c, --config)",
    only: ["clone"],
  },
  {
    name: "template",
    id: "argv:git:template",
    kind: "code_execution",
    reason:
      "it copies hooks from the template directory into the new repository (git-init(1): --template)",
    only: ["clone", "init", "init-db"],
  },
  {
    name: "web",
    id: "argv:git:help-browser",
    kind: "code_execution",
    reason: "it runs a web browser, web.browser or BROWSER (git-help(1): -w, --web)",
    only: ["help"],
  },
  {
    name: "output",
    id: "argv:git:output",
    kind: "file_write",
    reason:
      "it writes the output to the given file (git-diff(1) and git-log(1): --output; git-archive(1): -o, --output)",
  },
  {
    name: "output-directory",
    id: "argv:git:output",
    kind: "file_write",
    reason:
      "it writes files into the given directory (git-format-patch(1): -o, --output-directory)",
    only: ["format-patch", "bugreport", "diagnose"],
  },
  {
    name: "export-marks",
    id: "argv:git:marks-file",
    kind: "file_write",
    reason: "it writes the marks to the given file (git-fast-export(1), git-fast-import(1))",
    only: ["fast-export", "fast-import"],
  },
  {
    name: "export-pack-edges",
    id: "argv:git:marks-file",
    kind: "file_write",
    reason: "it writes the pack edges to the given file (git-fast-import(1))",
    only: ["fast-import"],
  },
];

/**
 * Full names of safe git options that are prefixes of a dangerous name: an exact name wins
 * (`--text` is diff's -a, `--temp` is checkout-index's), found with `git <cmd>
 * --git-completion-helper-all` over every builtin of git 2.39.
 */
export const GIT_OTHER_OPTIONS: readonly string[] = ["text", "temp"];

/** A dangerous short option: letter → rule, per subcommand. */
export const GIT_SHORT_RULES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // git-clone(1): -u <upload-pack>, -c <key>=<value>.
  clone: { u: "upload-pack", c: "config" },
  // git-ls-remote(1) (older manuals): -u <exec> = --upload-pack.
  "ls-remote": { u: "upload-pack" },
  // git-archive(1): -o <file>.
  archive: { o: "output" },
  // git-format-patch(1), git-bugreport(1), git-diagnose(1): -o <dir>.
  "format-patch": { o: "output-directory" },
  bugreport: { o: "output-directory" },
  diagnose: { o: "output-directory" },
  // git-rebase(1): -x <cmd> = --exec.
  rebase: { x: "exec" },
  // git-grep(1): -O[<pager>].
  grep: { O: "open-files-in-pager" },
  // git-help(1): -w = --web.
  help: { w: "web" },
};

/** Subcommands whose -s/--strategy picks a merge strategy (git-merge(1): MERGE STRATEGIES). */
export const STRATEGY_SUBCOMMANDS: ReadonlySet<string> = new Set([
  "merge",
  "pull",
  "rebase",
  "cherry-pick",
  "revert",
]);
/** Subcommands where `-s` is --strategy (in cherry-pick and revert it is --signoff). */
export const SHORT_STRATEGY_SUBCOMMANDS: ReadonlySet<string> = new Set(["merge", "pull", "rebase"]);
/** Strategies built into git; any other runs `git-merge-<name>` from the exec path or PATH. */
export const BUILTIN_STRATEGIES: ReadonlySet<string> = new Set([
  "ort",
  "recursive",
  "resolve",
  "octopus",
  "ours",
  "subtree",
]);

/** Subcommands that run programs or commands whatever their arguments. */
export const RUNS_CODE: Readonly<Record<string, string>> = {
  "filter-branch": "every filter is a shell command (git-filter-branch(1))",
  difftool: "it runs a diff tool or the command of --extcmd (git-difftool(1))",
  "difftool--helper": "it runs a diff tool (git-difftool(1))",
  mergetool: "it runs a merge tool (git-mergetool(1))",
  daemon: "it starts a server that serves and runs hooks of repositories (git-daemon(1))",
  instaweb: "it starts a web server and a browser (git-instaweb(1))",
  "web--browse": "it runs a web browser (git-web--browse(1))",
  hook: "it runs a hook (git-hook(1): git hook run)",
  "remote-ext": "it runs the command given as its second argument (git-remote-ext(1))",
  shell: "it runs the commands given with -c (git-shell(1))",
  "send-email": "it runs sendmail, --smtp-server, --to-cmd or --cc-cmd (git-send-email(1))",
  "fsmonitor--daemon": "it starts a background daemon (git-fsmonitor--daemon(1))",
  "for-each-repo":
    "it runs a git command in every repository a config key lists (git-for-each-repo(1))",
  "merge-index": "it runs the merge program given as its argument (git-merge-index(1))",
  "bisect--helper": "it can run a command for every bisection step (git-bisect(1): run)",
};

/** Subcommands that run commands when one of the words follows (the first positional). */
export const RUNS_CODE_WITH: Readonly<
  Record<string, { words: readonly string[]; reason: string }>
> = {
  bisect: { words: ["run"], reason: "it runs the given command at every step (git-bisect(1))" },
  submodule: {
    words: ["foreach"],
    reason: "it runs the given shell command in every submodule (git-submodule(1))",
  },
  maintenance: {
    words: ["start", "stop", "register", "unregister"],
    reason:
      "it changes the user's scheduler (crontab, systemd timers, launchd) and global config (git-maintenance(1))",
  },
};

/** Subcommands that write files outside the repository by default. */
export const WRITES_FILES: Readonly<Record<string, string>> = {
  bugreport: "it writes a report file into the current or -o directory (git-bugreport(1))",
  diagnose: "it writes a zip archive into the current or -o directory (git-diagnose(1))",
};

/** Subcommands that operate on a repository named by their argument, hooks included. */
export const REPOSITORY_SERVERS: ReadonlySet<string> = new Set([
  "upload-pack",
  "receive-pack",
  "upload-archive",
  "upload-archive--writer",
  "http-backend",
  "remote-fd",
  "submodule--helper",
  "checkout--worker",
]);

/** Subcommands that take repository URLs, where any `<helper>::` address runs a remote helper. */
export const URL_SUBCOMMANDS: ReadonlySet<string> = new Set([
  "clone",
  "fetch",
  "pull",
  "push",
  "ls-remote",
  "remote",
  "submodule",
  "archive",
  "fetch-pack",
  "send-pack",
]);

/** Remote helpers that ship with git (gitremote-helpers(7)). */
export const BUILTIN_HELPERS: ReadonlySet<string> = new Set(["http", "https", "ftp", "ftps"]);

/**
 * Subcommands git knows itself (`git --list-cmds=main` of 2.39, plus later builtins). Any other
 * name runs `git-<name>` from the exec path or PATH, or an alias from config.
 */
export const KNOWN_SUBCOMMANDS: ReadonlySet<string> = new Set(
  (
    "add am annotate apply archive backfill bisect blame branch bugreport bundle cat-file " +
    "check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry " +
    "cherry-pick clean clone column commit commit-graph commit-tree config count-objects " +
    "describe diagnose diff diff-files diff-index diff-tree fast-export fast-import fetch " +
    "fetch-pack fmt-merge-msg for-each-ref format-patch fsck fsck-objects gc " +
    "get-tar-commit-id grep hash-object help http-fetch http-push imap-send index-pack init " +
    "init-db interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance " +
    "merge merge-base merge-file merge-octopus merge-one-file merge-ours merge-recursive " +
    "merge-recursive-ours merge-recursive-theirs merge-resolve merge-subtree merge-tree mktag " +
    "mktree multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs patch-id " +
    "pickaxe prune prune-packed pull push quiltimport range-diff read-tree rebase reflog refs " +
    "remote remote-ftp remote-ftps remote-http remote-https repack replace replay request-pull " +
    "rerere reset restore rev-list rev-parse revert rm send-pack sh-i18n--envsubst shortlog " +
    "show show-branch show-index show-ref sparse-checkout stage stash status stripspace " +
    "submodule subtree switch symbolic-ref tag unpack-file unpack-objects update-index " +
    "update-ref update-server-info var verify-commit verify-pack verify-tag version " +
    "whatchanged worktree write-tree env--helper add--interactive"
  ).split(" "),
);
