/**
 * Programs that run whatever they are told: shells, interpreters, exec wrappers and the like.
 * Naming one in an allowlist allows every program; analyzeArgv reports them with one
 * `unrestricted_execution` finding whatever the arguments (`bash --version` included: the request
 * chooses the arguments, not the allowlist owner).
 *
 * Names are compared in lower case (APFS and NTFS run `/bin/BASH` as bash), after a Windows
 * extension (`.exe`, `.cmd`, ...) is dropped, and with a version suffix allowed (`python3.12`,
 * `python3.13t`, `lua5.4`, `perl5.36.0`, `pip-3.11`); a Debian alternative's stem counts too
 * (`vim.basic`, `vim.tiny` → `vim`).
 *
 * @module
 */

/** One group of unrestricted programs, with the rule that puts them there. */
export interface UnrestrictedGroup {
  /** Finding id. */
  id: string;
  /** Lower-case basenames. */
  names: readonly string[];
  /** Why, with the manual page the rule comes from. */
  reason: string;
}

const words = (text: string): readonly string[] => text.split(" ");

/** Every group, in the order they are tried. */
export const UNRESTRICTED_GROUPS: readonly UnrestrictedGroup[] = [
  {
    id: "argv:shell",
    names: words(
      "sh bash rbash dash ash zsh ksh ksh93 mksh pdksh oksh loksh yash posh fish csh tcsh " +
        "rc es elvish nu xonsh cmd command exec eval",
    ),
    reason: "it is a shell: it runs any command line it is given (sh(1): -c command_string)",
  },
  {
    id: "argv:multi-call",
    names: ["busybox", "toybox", "coreutils"],
    reason:
      "it is a multi-call binary: its first argument picks the applet, sh and env included (busybox(1): busybox sh; coreutils --coreutils-prog=env)",
  },
  {
    id: "argv:interpreter",
    names: words(
      "python python2 python3 pypy pypy3 ipython ipython3 node nodejs bun deno perl ruby " +
        "irb php lua luajit tclsh wish expect rscript r julia osascript pwsh powershell guile " +
        "racket sbcl clisp ghci runghc runhaskell scala groovy jshell java jrunscript erl " +
        "escript elixir iex swift dotnet gjs qjs awk gawk mawk nawk goawk m4 dc gnuplot " +
        "sqlite3",
    ),
    reason:
      "it is an interpreter: its arguments are a program (python(1) -c, node(1) -e, deno eval, awk(1) system(), m4(1) syscmd, dc(1) !, sqlite3 .shell)",
  },
  {
    id: "argv:exec-wrapper",
    names: words(
      "env xargs nice nohup timeout stdbuf setsid time watch flock script chrt taskset " +
        "ionice prlimit numactl unbuffer parallel caffeinate systemd-run run-parts " +
        "start-stop-daemon daemonize entr tmux screen xdg-open open nsexec",
    ),
    reason:
      "it runs the command named in its arguments (env(1): env [NAME=VALUE]... COMMAND; xargs(1) builds and runs a command line; timeout(1), nice(1), nohup(1) run COMMAND)",
  },
  {
    id: "argv:privilege-wrapper",
    names: words(
      "sudo doas su pkexec runuser sg newgrp setpriv capsh chroot unshare nsenter firejail " +
        "bwrap proot fakeroot fakechroot chpst cgexec",
    ),
    reason:
      "it runs a command as another user or in another root or namespace (sudo(8), chroot(1), unshare(1), nsenter(1))",
  },
  {
    id: "argv:scheduler",
    names: ["at", "batch", "crontab"],
    reason: "it schedules commands to run later, outside the run (at(1), crontab(1))",
  },
  {
    id: "argv:tracer",
    names: ["strace", "ltrace", "gdb", "lldb", "perf", "valgrind", "catchsegv", "rr"],
    reason:
      "it runs the program named in its arguments and can run more (strace(1) PROG; gdb(1) --args, shell and python commands)",
  },
  {
    id: "argv:build-tool",
    names: words(
      "make gmake bmake cmake ninja meson npx npm pnpm pnpx yarn yarnpkg bunx corepack pip " +
        "pip2 pip3 pipx uv uvx poetry cargo go rake bundle bundler gem gradle gradlew mvn ant " +
        "just tox nox composer pytest py.test vitest jest mocha tape ava phpunit rspec",
    ),
    reason:
      "it runs code the project defines (make(1) recipes; npm-run-script(1) scripts and install hooks; cargo build.rs; pip setup.py; go generate; test runners load the project's tests and config)",
  },
  {
    id: "argv:editor",
    names: words(
      "vi vim nvim view vimdiff gvim ex ed emacs emacsclient nano mg joe kak hx less more " +
        "most pg",
    ),
    reason:
      "it is an editor or pager with a shell escape (ed(1) and vi(1): !command; vim -c; less(1): !command and LESSOPEN)",
  },
  {
    id: "argv:remote-shell",
    names: ["ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet"],
    reason:
      "it runs commands on or through another host or program (ssh(1) command and -o ProxyCommand; scp(1)/sftp(1) -S program; rsync(1) -e; nc -e; socat EXEC:)",
  },
  {
    id: "argv:container",
    names: ["docker", "podman", "nerdctl", "ctr", "crictl", "kubectl", "oc", "lxc", "vagrant"],
    reason:
      "it runs commands in containers or clusters, which can mount the host (docker-run(1), kubectl exec)",
  },
];

const BY_NAME = new Map<string, UnrestrictedGroup>(
  UNRESTRICTED_GROUPS.flatMap((group) => group.names.map((name) => [name, group] as const)),
);

/** `python3.12` → `python3`... : a version suffix, optionally after a dash, optional letter. */
const VERSION_SUFFIX = /^(.*?[a-z])-?\d+(?:\.\d+)*[a-z]?$/;

/**
 * The group of `key` (a lower-case basename without Windows extension), or null.
 *
 * @example
 * ```ts
 * import { unrestrictedGroup } from "./_argv_unrestricted.ts";
 * unrestrictedGroup("python3.12")?.id; // "argv:interpreter"
 * ```
 */
export function unrestrictedGroup(key: string): UnrestrictedGroup | null {
  const candidates = [key];
  const stem = key.split(".")[0] ?? key;
  if (stem !== key) candidates.push(stem);
  for (const candidate of [...candidates]) {
    const match = VERSION_SUFFIX.exec(candidate);
    if (match?.[1] !== undefined) candidates.push(match[1]);
  }
  for (const candidate of candidates) {
    const group = BY_NAME.get(candidate);
    if (group !== undefined) return group;
  }
  return null;
}
