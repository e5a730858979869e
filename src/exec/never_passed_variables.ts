/**
 * Environment variables a glob of `tools.env` (`GITHUB_*`, `*`) never passes to a command: those
 * that make a program load or run other code, read another configuration, trust other servers,
 * reach into the user's session, or that hold credentials. Only an entry naming one exactly passes
 * it, which the config author then does on purpose.
 *
 * They come in families, each with a one-line reason. A pattern is an exact name (`EDITOR`), a
 * prefix (`GIT_*`), a suffix (`*_OPTIONS`, `*INIT`) or a fragment (`*CONF*`); names are compared
 * ignoring case, since programs read either spelling (`http_proxy`, `npm_config_*`) and Windows
 * does not distinguish them. Wide suffixes are chosen on purpose: a variable ending in `RC`,
 * `INIT`, `PATH`, `HOME`, `FLAGS` or `_OPTIONS` names, almost always, a file, a folder or options
 * that a program obeys; the cost of an unrelated name caught by one (`SRC`) is writing it exactly.
 *
 * @module
 */

/** A family of variables a glob never passes. */
export interface NeverPassedFamily {
  /** Short name, e.g. `git`. */
  family: string;
  /** Exact names, `PREFIX*`, `*SUFFIX` or `*FRAGMENT*`, compared ignoring case. */
  patterns: readonly string[];
  /** One line: what the variables do that makes passing them unsafe. */
  reason: string;
}

const words = (text: string): readonly string[] => text.split(" ");

/** Every family, each with its reason. */
export const NEVER_PASSED_FAMILIES: readonly NeverPassedFamily[] = [
  {
    family: "loader",
    patterns: words("LD_* DYLD_* GCONV_PATH GLIBC_TUNABLES"),
    reason: "the dynamic loader and libc load code from them (LD_PRELOAD, LD_AUDIT, " +
      "DYLD_INSERT_LIBRARIES, iconv modules from GCONV_PATH)",
  },
  {
    family: "shell start-up",
    patterns: words(
      "BASH_* ENV ZDOTDIR PROMPT_COMMAND PS0 PS1 PS2 PS3 PS4 SHELLOPTS BASHOPTS IFS HISTFILE",
    ),
    reason: "shells source files (BASH_ENV, ENV), import functions (BASH_FUNC_*) and options, " +
      "expand prompts (PS4 under set -x) or re-split words from them",
  },
  {
    family: "search paths",
    patterns: ["*PATH"],
    reason: "a search path: programs load code, modules or data from its folders (PYTHONPATH, " +
      "NODE_PATH, CLASSPATH, GOPATH, CDPATH, FPATH, NLSPATH); the runtime sets PATH itself",
  },
  {
    family: "configuration files",
    patterns: words("*CONF* *RC *INIT *CNF"),
    reason: "names a configuration or run-control file a program obeys (OPENSSL_CONF loads " +
      "engines, KUBECONFIG exec plugins, WGETRC, INPUTRC, PHPRC, EXINIT and LUA_INIT run code)",
  },
  {
    family: "home folders",
    patterns: words("*HOME XDG_*"),
    reason: "a folder a program reads its configuration, plugins or keys from (XDG_CONFIG_HOME, " +
      "GNUPGHOME, CARGO_HOME, CURL_HOME); the runtime sets HOME to the run's own folder",
  },
  {
    family: "options",
    patterns: words(
      "*_OPTIONS *_OPTS *OPT *FLAGS *_ARGS LESS* GREP_* TAR_* RIPGREP_* GZIP BZIP BZIP2 XZ_* " +
        "ZSTD_* UNZIP* ZIPINFO",
    ),
    reason: "options a program adds to every run: TAR_OPTIONS (--to-command), NODE_OPTIONS " +
      "(--require), JAVA_TOOL_OPTIONS (-javaagent), PERL5OPT (-M), MAKEFLAGS, GOFLAGS " +
      "(-toolexec), RIPGREP_CONFIG_PATH, LESSOPEN run or read other things",
  },
  {
    family: "programs by name",
    patterns: words(
      "*EDITOR VISUAL FCEDIT *PAGER BROWSER SHELL TERMINAL *_COMMAND *_CMD *ASKPASS* " +
        "*WRAPPER* *_RUNNER CC CXX CPP LD AR AS NM RANLIB STRIP OBJCOPY OBJDUMP FC F77 YACC LEX M4",
    ),
    reason: "names a program that others run: editors, pagers and browsers (git, man, less), " +
      "the shell, askpass helpers, command wrappers, and the compilers a build runs",
  },
  {
    family: "python",
    patterns: words("PYTHON* PIP_* UV_* VIRTUAL_ENV CONDA*"),
    reason: "python runs PYTHONSTARTUP, imports from PYTHONPATH, PYTHONHOME and warning " +
      "filters; pip and uv install from the indexes these name",
  },
  {
    family: "version managers",
    patterns: words("PYENV_* RBENV_* NODENV_* NVM_* ASDF_* MISE_* VOLTA_* SDKMAN_*"),
    reason: "their shims (python3, node, ruby on PATH) run the interpreter these folders and " +
      "versions name, and the manager's own scripts from its root",
  },
  {
    family: "javascript",
    patterns: words("NODE_* NPM_CONFIG_* YARN_* BUN_* DENO_* COREPACK_* ELECTRON_*"),
    reason: "node loads NODE_OPTIONS modules, npm settings set script-shell, Deno's hold tokens " +
      "(DENO_AUTH_TOKENS) and swap the code cache, ELECTRON_RUN_AS_NODE makes apps a node",
  },
  {
    family: "perl, ruby, php, lua, tcl, r",
    patterns: words("PERL* RUBY* GEM_* BUNDLE_* PHP* LUA_* TCL* R_*"),
    reason: "interpreters add switches (PERL5OPT, RUBYOPT), load libraries from these folders " +
      "and run files they name (BUNDLE_GEMFILE, R_PROFILE)",
  },
  {
    family: "jvm",
    patterns: words("JAVA_* _JAVA_* JDK_* CLASSPATH MAVEN_* GRADLE_* SBT_*"),
    reason: "the JVM adds the options (-javaagent runs code) and loads classes from them; " +
      "GRADLE_USER_HOME init scripts run",
  },
  {
    family: "rust, go, .NET",
    patterns: words("CARGO_* RUSTC* RUSTDOC* RUSTUP_* GO* DOTNET_* CORECLR_* COMPLUS_*"),
    reason: "RUSTC_WRAPPER and cargo runners run programs, GOTOOLCHAIN downloads and runs one, " +
      "DOTNET_STARTUP_HOOKS and CORECLR_PROFILER_PATH load code",
  },
  {
    family: "build tools",
    patterns: words("MAKE* CMAKE_* MESON_* NINJA_*"),
    reason: "MAKEFILES adds makefiles (recipes run), MAKEFLAGS adds options and variables",
  },
  {
    family: "editors and documents",
    patterns: words("VIM* EMACS* TEXMF* *INPUTS"),
    reason: "vim runs VIMINIT and scripts from VIMRUNTIME, emacs loads EMACSLOADPATH, TeX reads " +
      "texmf.cnf (shell_escape)",
  },
  {
    family: "git",
    patterns: ["GIT_*"],
    reason: "git reads repositories, config, hooks and programs from them (GIT_DIR, " +
      "GIT_COMMON_DIR, GIT_ALTERNATE_OBJECT_DIRECTORIES, GIT_CONFIG_*, GIT_SSH_COMMAND) and " +
      "writes GIT_TRACE files",
  },
  {
    family: "tls and network",
    patterns: words(
      "OPENSSL_* *CERT* *CA_BUNDLE SSLKEYLOGFILE CURL_* *_PROXY HOSTALIASES LOCALDOMAIN " +
        "RES_OPTIONS RESOLV_*",
    ),
    reason: "which certificates programs trust, through which hosts they connect and how names " +
      "resolve; SSLKEYLOGFILE writes session keys to a file",
  },
  {
    family: "locale and terminal data",
    patterns: words("NLSPATH LOCPATH TERMINFO* TERMCAP"),
    reason: "libc and ncurses parse message catalogues (format strings), locales and terminal " +
      "descriptions from the files these name",
  },
  {
    family: "credentials",
    patterns: words(
      "*TOKEN* *SECRET* *PASSWORD* *PASSWD* *_PWD *_KEY *_KEYS *API_KEY* *CREDENTIAL* *_AUTH",
    ),
    reason: "credentials: a command that gets one can print it encoded, past the redactor",
  },
  {
    family: "cloud, cluster and container tools",
    patterns: words(
      "AWS_* GOOGLE_* CLOUDSDK_* AZURE_* KUBE* HELM_* DOCKER_* CONTAINERS_* PODMAN_* TF_* " +
        "VAULT_*",
    ),
    reason: "profiles, endpoints and credentials of cloud CLIs (credential_process and exec " +
      "plugins run programs; DOCKER_HOST is root on a daemon)",
  },
  {
    family: "user session",
    patterns: words(
      "SSH_* GPG_* GNUPG* KRB5* SUDO_* *SOCK* DISPLAY WAYLAND_* XAUTHORITY DBUS_* TMUX* STY " +
        "KITTY_* VSCODE_*",
    ),
    reason: "reach into the user's session: agents holding keys, the display, the session bus " +
      "(which starts services), and terminals and editors that run commands",
  },
];

/** One pattern of {@linkcode NEVER_PASSED_FAMILIES} with its family's reason (flat list). */
export interface NeverPassedRule {
  /** An exact name, `PREFIX*`, `*SUFFIX` or `*FRAGMENT*`, compared ignoring case. */
  pattern: string;
  /** Why a value of it lets a program run or read other things. */
  reason: string;
}

/** Every pattern of {@linkcode NEVER_PASSED_FAMILIES}, in order. */
export const NEVER_PASSED: readonly NeverPassedRule[] = NEVER_PASSED_FAMILIES.flatMap((family) =>
  family.patterns.map((pattern) => ({ pattern, reason: family.reason }))
);

function matches(pattern: string, name: string): boolean {
  const upper = name.toUpperCase();
  const core = pattern.toUpperCase().replace(/^\*/, "").replace(/\*$/, "");
  const prefix = pattern.endsWith("*");
  const suffix = pattern.startsWith("*");
  if (prefix && suffix) return upper.includes(core);
  if (prefix) return upper.startsWith(core);
  if (suffix) return upper.endsWith(core);
  return upper === core;
}

/**
 * The family `name` belongs to, or null (names compared ignoring case).
 *
 * @example
 * ```ts
 * import { neverPassedFamily } from "./never_passed_variables.ts";
 * console.assert(neverPassedFamily("TAR_OPTIONS")?.family === "options");
 * console.assert(neverPassedFamily("CI") === null);
 * ```
 */
export function neverPassedFamily(name: string): NeverPassedFamily | null {
  return NEVER_PASSED_FAMILIES.find((family) =>
    family.patterns.some((pattern) => matches(pattern, name))
  ) ?? null;
}
