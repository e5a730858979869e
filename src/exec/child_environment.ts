/**
 * The environment of a command's child process: only allowlisted variables, never the ones that
 * make a program run other code, with `HOME` and `TMPDIR` pointing at run-private folders.
 *
 * @module
 */

/** Variables passed by default (config `exec.env_allowlist` replaces this list). */
export const DEFAULT_ENV_ALLOWLIST: readonly string[] = [
  "PATH",
  "HOME",
  "TMPDIR",
  "LANG",
  "LC_ALL",
  "TERM",
];

/** A variable, or a family of variables, that a glob never passes. */
export interface NeverPassedRule {
  /** An exact name, or a prefix followed by `*`. */
  pattern: string;
  /** What the variable does: why passing it lets a value run code or act as the user. */
  reason: string;
}

/**
 * Variables that make a program load or run other code (or act with the user's credentials).
 * A glob of the allowlist (`GIT_*`, `*`) never matches them; only an entry naming one exactly
 * passes it, which the config author then does on purpose.
 */
export const NEVER_PASSED: readonly NeverPassedRule[] = [
  {
    pattern: "LD_*",
    reason: "the dynamic loader loads LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH code",
  },
  { pattern: "DYLD_*", reason: "the macOS loader loads DYLD_INSERT_LIBRARIES code" },
  { pattern: "GCONV_PATH", reason: "glibc loads iconv modules (shared libraries) from it" },
  { pattern: "BASH_FUNC_*", reason: "bash imports exported functions that shadow commands" },
  { pattern: "BASH_ENV", reason: "bash sources the file before a non-interactive script" },
  { pattern: "ENV", reason: "sh, dash and ksh source the file when they start" },
  { pattern: "ZDOTDIR", reason: "zsh runs .zshenv from this folder on every start" },
  { pattern: "PROMPT_COMMAND", reason: "bash runs it before each prompt" },
  { pattern: "PS4", reason: "bash expands it, command substitutions included, under set -x" },
  { pattern: "SHELLOPTS", reason: "bash imports options from it (xtrace, which expands PS4)" },
  { pattern: "BASHOPTS", reason: "bash imports shopt options from it" },
  { pattern: "IFS", reason: "changes word splitting in shell scripts, turning data into words" },
  { pattern: "NODE_OPTIONS", reason: "node loads --require and --import modules first" },
  { pattern: "NODE_PATH", reason: "node resolves modules from these folders" },
  { pattern: "PYTHONSTARTUP", reason: "python runs the file (interactive mode)" },
  { pattern: "PYTHONPATH", reason: "python imports from these folders first (sitecustomize)" },
  { pattern: "PYTHONHOME", reason: "python loads its standard library and site.py from here" },
  { pattern: "PYTHONWARNINGS", reason: "a filter naming a warning category imports its module" },
  { pattern: "PYTHONBREAKPOINT", reason: "breakpoint() imports and calls the named function" },
  { pattern: "PERL5OPT", reason: "perl adds the switches, -M loads a module, to every run" },
  { pattern: "PERL5LIB", reason: "perl loads modules from these folders first" },
  { pattern: "PERLLIB", reason: "perl loads modules from these folders first" },
  { pattern: "PERL5DB", reason: "perl runs it as the debugger under -d" },
  { pattern: "RUBYOPT", reason: "ruby adds the options, -r requires a file, to every run" },
  { pattern: "RUBYLIB", reason: "ruby loads libraries from these folders first" },
  { pattern: "LUA_INIT*", reason: "lua runs the code, or the file, before the script" },
  { pattern: "PHPRC", reason: "php reads php.ini from here (auto_prepend_file runs code)" },
  { pattern: "PHP_INI_SCAN_DIR", reason: "php reads extra ini files from here" },
  { pattern: "JAVA_TOOL_OPTIONS", reason: "the JVM adds the options (-javaagent runs code)" },
  { pattern: "_JAVA_OPTIONS", reason: "the JVM adds the options (-javaagent runs code)" },
  { pattern: "JDK_JAVA_OPTIONS", reason: "the java launcher adds the options" },
  { pattern: "GIT_CONFIG", reason: "git reads this config file (core.pager, core.sshCommand)" },
  {
    pattern: "GIT_CONFIG_*",
    reason: "git takes config from GIT_CONFIG_COUNT/KEY_n/VALUE_n, _PARAMETERS, _GLOBAL, _SYSTEM",
  },
  { pattern: "GIT_DIR", reason: "points git at another repository, whose config and hooks run" },
  { pattern: "GIT_SSH", reason: "git runs this program instead of ssh" },
  { pattern: "GIT_SSH_COMMAND", reason: "git runs this command instead of ssh" },
  { pattern: "GIT_EXEC_PATH", reason: "git runs its sub-commands from this folder" },
  { pattern: "GIT_ASKPASS", reason: "git runs it to ask for a password" },
  { pattern: "SSH_ASKPASS", reason: "ssh runs it to ask for a password" },
  { pattern: "GIT_EDITOR", reason: "git runs it to edit messages" },
  { pattern: "GIT_SEQUENCE_EDITOR", reason: "git rebase runs it to edit the todo list" },
  { pattern: "EDITOR", reason: "git, crontab and others run it to edit" },
  { pattern: "VISUAL", reason: "git, crontab and others run it to edit" },
  { pattern: "GIT_PAGER", reason: "git runs it to page output" },
  { pattern: "PAGER", reason: "git, man and others run it to page output" },
  { pattern: "MANPAGER", reason: "man runs it to page output" },
  { pattern: "GIT_EXTERNAL_DIFF", reason: "git runs it to show diffs" },
  { pattern: "GIT_PROXY_COMMAND", reason: "git runs it to connect with the git protocol" },
  { pattern: "GIT_TEMPLATE_DIR", reason: "git copies hooks from here into new repositories" },
  { pattern: "LESSOPEN", reason: "less runs it as an input preprocessor" },
  { pattern: "LESSCLOSE", reason: "less runs it after a preprocessed file" },
  { pattern: "BROWSER", reason: "python webbrowser, xdg-open and git run it" },
  { pattern: "NPM_CONFIG_*", reason: "npm settings (script-shell, node-options) run code" },
  { pattern: "npm_config_*", reason: "npm settings (script-shell, node-options) run code" },
  { pattern: "RUSTC_WRAPPER", reason: "cargo runs it around every rustc call" },
  { pattern: "RUSTC_WORKSPACE_WRAPPER", reason: "cargo runs it around rustc for the workspace" },
  {
    pattern: "DENO_*",
    reason: "Deno's settings: DENO_AUTH_TOKENS holds credentials, DENO_DIR swaps the code cache",
  },
  { pattern: "SSH_AUTH_SOCK", reason: "lets the child sign with the user's SSH keys" },
];

/**
 * Tells whether `name` matches a {@linkcode NEVER_PASSED} rule (case-sensitive, like Linux).
 *
 * @example
 * ```ts
 * import { isNeverPassed } from "./child_environment.ts";
 * console.assert(isNeverPassed("LD_PRELOAD") && !isNeverPassed("CI"));
 * ```
 */
export function isNeverPassed(name: string): boolean {
  return NEVER_PASSED.some(({ pattern }) =>
    pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern
  );
}

/**
 * Turns the config's allowlist into the exact names to pass. An entry without `*` passes the
 * variable of that exact name (even one of {@linkcode NEVER_PASSED}); an entry with `*` (any run
 * of characters, e.g. `GITHUB_*`) passes every name of `names` it matches, except those of
 * {@linkcode NEVER_PASSED}.
 *
 * @param patterns The allowlist, e.g. `["PATH", "CI", "GITHUB_*"]`.
 * @param names The parent's variable names, e.g. `Object.keys(Deno.env.toObject())`.
 * @returns The names of `names` to pass, sorted, without duplicates.
 * @throws {TypeError} When an entry is empty or contains `=` or a NUL character.
 * @example
 * ```ts
 * import { expandAllowlist } from "./child_environment.ts";
 * const names = expandAllowlist(["PATH", "GIT_*"], ["PATH", "GIT_AUTHOR_NAME", "GIT_SSH_COMMAND"]);
 * console.assert(names.join() === "GIT_AUTHOR_NAME,PATH");
 * ```
 */
export function expandAllowlist(patterns: readonly string[], names: readonly string[]): string[] {
  const present = new Set(names);
  const passed = new Set<string>();
  for (const pattern of patterns) {
    if (pattern === "" || pattern.includes("=") || pattern.includes("\0")) {
      throw new TypeError(
        `Cannot use the environment allowlist entry "${pattern}": a name must be non-empty ` +
          `without "=" or NUL characters`,
      );
    }
    if (!pattern.includes("*")) {
      if (present.has(pattern)) passed.add(pattern);
      continue;
    }
    const glob = new RegExp(
      `^${pattern.split("*").map((part) => RegExp.escape(part)).join(".*")}$`,
    );
    for (const name of names) {
      if (glob.test(name) && !isNeverPassed(name)) passed.add(name);
    }
  }
  return [...passed].sort();
}

/** Options of {@linkcode buildChildEnvironment}. */
export interface ChildEnvironmentOptions {
  /** Exact names to pass, as returned by {@linkcode expandAllowlist}. */
  names: readonly string[];
  /** Reads the parent's value, e.g. `(name) => Deno.env.get(name)`; `undefined` skips the name. */
  read: (name: string) => string | undefined;
  /** Always set, over any inherited value: absolute run-private folders. */
  overrides: { HOME: string; TMPDIR: string };
  /** Fixed values from the config (e.g. `{ GIT_TERMINAL_PROMPT: "0" }`), set over inherited ones. */
  extra?: Record<string, string>;
}

/**
 * Builds the complete environment of a child: the parent's values of `names`, then `extra`, then
 * `overrides` (so `HOME` and `TMPDIR` always point at the run's folders). Nothing else is
 * inherited when it is spawned with `clearEnv: true`.
 *
 * @param options See {@linkcode ChildEnvironmentOptions}.
 * @returns A new record, name to value.
 * @throws {TypeError} When a name is empty or contains `=` or NUL, a value contains NUL, or an
 *   override is not an absolute path.
 * @example
 * ```ts
 * import { buildChildEnvironment } from "./child_environment.ts";
 * const env = buildChildEnvironment({
 *   names: ["PATH"],
 *   read: (name) => name === "PATH" ? "/usr/bin:/bin" : undefined,
 *   overrides: { HOME: "/srv/run/home", TMPDIR: "/srv/run/tmp" },
 * });
 * console.assert(env.PATH === "/usr/bin:/bin" && env.HOME === "/srv/run/home");
 * ```
 */
export function buildChildEnvironment(options: ChildEnvironmentOptions): Record<string, string> {
  const env: Record<string, string> = {};
  const set = (name: string, value: string) => {
    if (name === "" || name.includes("=") || name.includes("\0") || value.includes("\0")) {
      throw new TypeError(
        `Cannot pass the environment variable "${name}": names must be non-empty without "=", ` +
          `and neither may contain NUL characters`,
      );
    }
    Object.defineProperty(env, name, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  };
  for (const name of options.names) {
    const value = options.read(name);
    if (value !== undefined) set(name, value);
  }
  for (const [name, value] of Object.entries(options.extra ?? {})) set(name, value);
  for (const [name, value] of Object.entries(options.overrides)) {
    if (!value.startsWith("/")) {
      throw new TypeError(`Cannot set "${name}" for a child: "${value}" is not an absolute path`);
    }
    set(name, value);
  }
  return env;
}
