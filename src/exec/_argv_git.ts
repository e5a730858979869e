/**
 * The git analyzer: global options before the subcommand (git(1), git.c handle_options), then the
 * subcommand and its options (each subcommand's manual page; rules in `_argv_git_tables.ts`).
 *
 * Not visible in argv, and therefore the runtime's job: configuration files (`.git/config`,
 * `~/.gitconfig`: core.pager, core.fsmonitor, core.sshCommand, aliases, hooks) and the
 * environment (GIT_CONFIG_*, GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_PAGER, GIT_EDITOR,
 * GIT_ASKPASS, GIT_PROXY_COMMAND, GIT_EXEC_PATH). A repository the agent wrote (a nested
 * `.git/config` or `.git/hooks`) runs its code on plain `git status` in that directory.
 *
 * @module
 */

import type { ArgumentFinding } from "./argv_analysis.ts";
import {
  attachedValue,
  finding,
  longOptionName,
  selectsLongOption,
  shortCluster,
} from "./_argv_options.ts";
import {
  BUILTIN_HELPERS,
  BUILTIN_STRATEGIES,
  GIT_LONG_RULES,
  GIT_OTHER_OPTIONS,
  GIT_SHORT_RULES,
  type GitLongRule,
  KNOWN_SUBCOMMANDS,
  REPOSITORY_SERVERS,
  RUNS_CODE,
  RUNS_CODE_WITH,
  SHORT_STRATEGY_SUBCOMMANDS,
  STRATEGY_SUBCOMMANDS,
  URL_SUBCOMMANDS,
  WRITES_FILES,
} from "./_argv_git_tables.ts";
import { analyzeGitConfig } from "./_argv_git_config.ts";

/** git(1) global options that change nothing the analyzer relies on. */
const SAFE_GLOBALS: ReadonlySet<string> = new Set([
  "--no-pager",
  "-P",
  "--no-replace-objects",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-optional-locks",
  "--no-lazy-fetch",
  "--no-advice",
  "--html-path",
  "--man-path",
  "--info-path",
  // Without a value it prints the exec path and exits (git.c handle_options).
  "--exec-path",
]);

/** git(1) global options that move the repository or work tree; those in the map take a value. */
const LOCATION_GLOBALS: ReadonlyMap<string, boolean> = new Map([
  ["-C", true],
  ["--git-dir", true],
  ["--work-tree", true],
  ["--namespace", true],
  ["--super-prefix", true],
  ["--shallow-file", true],
  ["--attr-source", true],
  ["--bare", false],
]);

const OTHER_OPTIONS = new Set(GIT_OTHER_OPTIONS);

/**
 * Analyzes `argv` (argv[0] is git) and returns its findings.
 */
export function analyzeGit(argv: readonly string[]): ArgumentFinding[] {
  const findings: ArgumentFinding[] = [];
  let index = 1;
  let subcommand: string | null = null;
  while (index < argv.length) {
    const argument = argv[index] ?? "";
    if (!argument.startsWith("-")) {
      subcommand = argument;
      break;
    }
    // git.c: --help and --version become the help and version commands; -h and -v likewise.
    if (argument === "--help" || argument === "-h") {
      subcommand = "help";
      break;
    }
    if (argument === "--version" || argument === "-v") {
      subcommand = "version";
      break;
    }
    index += globalOption(argv, index, findings);
  }
  if (subcommand === null) return findings;
  analyzeGitSubcommand(argv, index, subcommand, findings);
  return findings;
}

/** Reads the global option at `index`, records its finding, returns how many arguments it used. */
function globalOption(argv: readonly string[], index: number, findings: ArgumentFinding[]): number {
  const argument = argv[index] ?? "";
  const value = argv[index + 1];
  if (SAFE_GLOBALS.has(argument)) return 1;
  if (argument === "-c" || (argument.startsWith("-c") && !argument.startsWith("--"))) {
    const setting = argument === "-c" ? value ?? "" : argument.slice(2);
    findings.push(finding(
      "argv:git:config-option",
      "code_execution",
      index,
      argument,
      `it sets configuration "${setting}", and configuration names programs git runs: core.pager, core.sshCommand, core.fsmonitor, diff.external, protocol.ext.allow (git(1): -c <name>=<value>)`,
    ));
    return argument === "-c" ? 2 : 1;
  }
  if (argument === "--config-env" || argument.startsWith("--config-env=")) {
    findings.push(finding(
      "argv:git:config-option",
      "code_execution",
      index,
      argument,
      "it sets configuration from an environment variable, and configuration names programs git runs (git(1): --config-env=<name>=<envvar>)",
    ));
    return argument === "--config-env" ? 2 : 1;
  }
  if (argument.startsWith("--exec-path=")) {
    findings.push(finding(
      "argv:git:exec-path",
      "code_execution",
      index,
      argument,
      "it makes git run its helper programs and non-builtin subcommands from the given directory (git(1): --exec-path=<path>)",
    ));
    return 1;
  }
  if (argument === "-p" || argument === "--paginate") {
    findings.push(finding(
      "argv:git:pager",
      "code_execution",
      index,
      argument,
      "it pipes the output into the pager of core.pager, GIT_PAGER or PAGER, run by the shell (git(1): -p, --paginate)",
    ));
    return 1;
  }
  const name = argument.includes("=") ? argument.slice(0, argument.indexOf("=")) : argument;
  const takesValue = LOCATION_GLOBALS.get(name);
  if (takesValue !== undefined) {
    findings.push(finding(
      "argv:git:repository-location",
      "unchecked",
      index,
      argument,
      "it points git at another repository or work tree, whose config and hooks this analyzer cannot see (git(1): -C, --git-dir, --work-tree, --bare)",
    ));
    return takesValue && name === argument ? 2 : 1;
  }
  findings.push(finding(
    "argv:git:global-option",
    "unchecked",
    index,
    argument,
    "it is a global option this analyzer does not know (git(1): OPTIONS)",
  ));
  return 1;
}

/**
 * Analyzes the subcommand at `subcommandIndex` (0 for a `git-<name>` program) and its arguments.
 */
export function analyzeGitSubcommand(
  argv: readonly string[],
  subcommandIndex: number,
  subcommand: string,
  findings: ArgumentFinding[] = [],
): ArgumentFinding[] {
  const first = subcommandIndex + 1;
  const spelled = argv[subcommandIndex] ?? subcommand;
  const rest = argv.slice(first);
  const positionals = rest.filter((argument) => !argument.startsWith("-"));
  const subFinding = (
    id: string,
    kind: ArgumentFinding["kind"],
    reason: string,
  ) => findings.push(finding(id, kind, subcommandIndex, spelled, reason));

  const withWords = RUNS_CODE_WITH[subcommand];
  if (RUNS_CODE[subcommand] !== undefined) {
    subFinding("argv:git:runs-commands", "code_execution", RUNS_CODE[subcommand]);
  } else if (subcommand.startsWith("credential")) {
    subFinding(
      "argv:git:runs-commands",
      "code_execution",
      "it runs or is a credential helper, which stores and hands out secrets (gitcredentials(7))",
    );
  } else if (withWords !== undefined) {
    if (positionals.some((word) => withWords.words.includes(word))) {
      subFinding("argv:git:runs-commands", "code_execution", withWords.reason);
    }
  } else if (subcommand === "config") {
    findings.push(...analyzeGitConfig(argv, subcommandIndex));
  } else if (subcommand === "format-patch" && !rest.includes("--stdout")) {
    subFinding(
      "argv:git:writes-files",
      "file_write",
      "it writes one patch file per commit into the current or -o directory unless --stdout is given (git-format-patch(1))",
    );
  } else if (subcommand === "bundle" && positionals[0] === "create") {
    subFinding("argv:git:writes-files", "file_write", "it writes the bundle file (git-bundle(1))");
  } else if (WRITES_FILES[subcommand] !== undefined) {
    subFinding("argv:git:writes-files", "file_write", WRITES_FILES[subcommand]);
  } else if (REPOSITORY_SERVERS.has(subcommand)) {
    subFinding(
      "argv:git:repository-server",
      "unchecked",
      "it serves or works on the repository its argument names, running that repository's hooks and config, which this analyzer cannot see (git-receive-pack(1), git-upload-pack(1))",
    );
  } else if (!KNOWN_SUBCOMMANDS.has(subcommand)) {
    subFinding(
      "argv:git:unknown-subcommand",
      "unchecked",
      `git runs it as the program "git-${subcommand}" from its exec path or PATH, or as an alias from config (git(1): GIT COMMANDS)`,
    );
  }

  for (let index = first; index < argv.length; index++) {
    const argument = argv[index] ?? "";
    optionFindings(argv, index, subcommand, findings);
    transportFindings(argument, index, URL_SUBCOMMANDS.has(subcommand), findings);
  }
  return findings;
}

function optionFindings(
  argv: readonly string[],
  index: number,
  subcommand: string,
  findings: ArgumentFinding[],
): void {
  const argument = argv[index] ?? "";
  const name = longOptionName(argument);
  const cluster = shortCluster(argument);
  const applies = (rule: GitLongRule) => rule.only === undefined || rule.only.includes(subcommand);
  if (name !== null) {
    const rule = GIT_LONG_RULES.find((candidate) =>
      applies(candidate) && selectsLongOption(name, candidate.name, true, OTHER_OPTIONS)
    );
    if (rule !== undefined) {
      findings.push(finding(rule.id, rule.kind, index, argument, rule.reason));
    } else if (
      STRATEGY_SUBCOMMANDS.has(subcommand) &&
      selectsLongOption(name, "strategy", true, OTHER_OPTIONS)
    ) {
      strategyFinding(argument, index, attachedValue(argument) ?? argv[index + 1], findings);
    }
    return;
  }
  if (cluster === null) return;
  const letters = GIT_SHORT_RULES[subcommand] ?? {};
  const seen = new Set<string>();
  for (const [letter, long] of Object.entries(letters)) {
    const rule = GIT_LONG_RULES.find((candidate) => candidate.name === long);
    if (!cluster.includes(letter) || rule === undefined || seen.has(rule.id)) continue;
    seen.add(rule.id);
    findings.push(finding(rule.id, rule.kind, index, argument, rule.reason));
  }
  const strategyAt = cluster.indexOf("s");
  if (SHORT_STRATEGY_SUBCOMMANDS.has(subcommand) && strategyAt !== -1) {
    const attached = cluster.slice(strategyAt + 1);
    strategyFinding(argument, index, attached === "" ? argv[index + 1] : attached, findings);
  }
}

function strategyFinding(
  argument: string,
  index: number,
  strategy: string | undefined,
  findings: ArgumentFinding[],
): void {
  if (strategy === undefined || BUILTIN_STRATEGIES.has(strategy)) return;
  findings.push(finding(
    "argv:git:merge-strategy",
    "unchecked",
    index,
    argument,
    `strategy "${strategy}" is not built in, so git runs the program "git-merge-${strategy}" from its exec path or PATH (git-merge(1): -s <strategy>)`,
  ));
}

/**
 * Transport addresses (gitremote-helpers(7), git-remote-ext(1), git-remote-fd(1)), found in any
 * argument or in the value of an `--option=value`: `ext::` runs a command, `fd::` talks to file
 * descriptors, any other `<helper>::` runs the program `git-remote-<helper>`, and an ssh host that
 * starts with `-` is an ssh option (CVE-2017-1000117).
 */
function transportFindings(
  argument: string,
  index: number,
  takesUrls: boolean,
  findings: ArgumentFinding[],
): void {
  const value = argument.startsWith("-") ? attachedValue(argument) ?? "" : argument;
  const lower = value.toLowerCase();
  if (lower.startsWith("ext::")) {
    findings.push(finding(
      "argv:git:ext-transport",
      "code_execution",
      index,
      argument,
      "an ext:: address runs the command that follows it (git-remote-ext(1))",
    ));
    return;
  }
  if (lower.startsWith("fd::")) {
    findings.push(finding(
      "argv:git:fd-transport",
      "unchecked",
      index,
      argument,
      "an fd:: address talks to inherited file descriptors, which this analyzer cannot check (git-remote-fd(1))",
    ));
    return;
  }
  if (!takesUrls) return;
  const helper = /^([A-Za-z0-9][A-Za-z0-9+.-]*)::/.exec(value)?.[1];
  if (helper !== undefined && !BUILTIN_HELPERS.has(helper.toLowerCase())) {
    findings.push(finding(
      "argv:git:remote-helper",
      "unchecked",
      index,
      argument,
      `a ${helper}:: address runs the program "git-remote-${helper}" from the exec path or PATH (gitremote-helpers(7))`,
    ));
  }
  if (/^(?:ssh|git\+ssh|ssh\+git):\/\/(?:[^@/]*@)?-/i.test(value)) {
    findings.push(finding(
      "argv:git:ssh-option-host",
      "code_execution",
      index,
      argument,
      "an ssh host that starts with - is read by ssh as an option such as -oProxyCommand (CVE-2017-1000117)",
    ));
  }
}
