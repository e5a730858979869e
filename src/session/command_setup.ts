/**
 * Start-up of command tools, on the main thread: resolves the program allowlist and the script
 * interpreters to absolute real paths outside every write root, finds `setsid`, `kill` and
 * bubblewrap, decides the isolation mode, expands the environment allowlist, and loads declarative
 * tools. Anything wrong stops the run before it starts (exit 2), never half-enables commands.
 *
 * @module
 */

import { ConfigError, type LoadedConfig } from "../config/mod.ts";
import type { PathGuard } from "../sandbox/mod.ts";
import { loadDeclarativeTools } from "../toolsets/declarative/mod.ts";
import type { DeclarativeToolFile } from "../toolsets/declarative/mod.ts";
import {
  type BubblewrapProbe,
  probeBubblewrap,
  type ProcessEnvironmentReader,
} from "../exec/mod.ts";
import { hostSystemMounts, SYSTEM_FOLDERS, type SystemMount } from "../exec/mod.ts";
import { commandSearchPath, DEFAULT_ENV_ALLOWLIST, expandAllowlist } from "../exec/mod.ts";
import {
  type AllowedProgram,
  AllowlistError,
  matchProgram,
  resolveAllowlist,
} from "../exec/mod.ts";

/** What command tools run with, decided once per run. */
export interface CommandSetup {
  /** `commands`: what exec.run_command may run. */
  programs: AllowedProgram[];
  /** `tools.interpreters` that resolved (a missing one only fails the scripts that need it). */
  interpreters: AllowedProgram[];
  interpreterMap: Record<string, string>;
  setsidPath: string;
  killPath: string;
  bwrapPath: string | null;
  /** `prlimit` (util-linux), which sets the process limit inside bubblewrap; null when missing. */
  prlimitPath: string | null;
  /**
   * `ps` (procps): under isolation none the main thread lists processes with it to kill what a
   * command left behind, after each call and at the run's end; under bubblewrap only at the run's
   * end, as a backstop. Null when missing (then isolation none refuses to start).
   */
  psPath: string | null;
  /**
   * `sh` and `grep`, which read the processes' environments for that sweep about three times
   * faster than `ps` (see `exec/process_sweep.ts`); null when either is missing (then `ps` does).
   */
  environmentReader: ProcessEnvironmentReader | null;
  /**
   * `perl`, which runs the run's long-lived environment scanner (`exec/environment_scanner.ts`):
   * no process start per sweep round. Null when missing or when there is no sweep.
   */
  perlPath: string | null;
  /**
   * How commands are confined: `bwrap` (the mount profile), `none` (chosen explicitly: every
   * command asks), or `off` (`auto` without a working bubblewrap: command tools are turned off,
   * `reason` says why and how to fix it).
   */
  isolation: {
    configured: "auto" | "bwrap" | "none";
    effective: "bwrap" | "none" | "off";
    reason: string;
  };
  /** The host's system mounts for the profile (empty unless the isolation is `bwrap`). */
  systemMounts: SystemMount[];
  /**
   * Folders of the programs and interpreters outside the system folders (a `bin/` folder counts
   * as its parent, the program's prefix), bound read-only inside bubblewrap.
   */
  programFolders: string[];
  /** The children's `PATH`: the programs' folders, then the system folders; none writable. */
  searchPath: string;
  /** Exact environment names children may get. */
  environmentNames: string[];
  declarativeTools: DeclarativeToolFile[];
}

/** How {@linkcode prepareCommands} reads the environment (tests pass fakes). */
export interface EnvironmentReader {
  names: () => string[];
  get: (name: string) => string | undefined;
}

/**
 * Prepares command tools, or returns null when none is enabled (`commands` empty and no
 * declarative tool file).
 *
 * @param probeWith Tells whether bubblewrap works (tests pass a failing one). @default probeBubblewrap
 * @throws {ConfigError} `commands_invalid` (a program missing, not executable, or inside a write
 * root; setsid or kill missing; `command_isolation: "bwrap"` without a working bubblewrap; a
 * declarative tool whose program is not allowlisted), `tool_invalid` (a bad declarative file).
 */
export async function prepareCommands(
  config: LoadedConfig,
  guard: PathGuard,
  environment: EnvironmentReader,
  probeWith: (bwrapPath: string) => Promise<BubblewrapProbe> = probeBubblewrap,
): Promise<CommandSetup | null> {
  const declarativeTools = await loadDeclarativeTools(config.tools.dirs);
  if (config.commands.length === 0 && declarativeTools.length === 0) return null;
  const fail = (key: string, reason: string) =>
    new ConfigError({
      code: "commands_invalid",
      file: config.configPath,
      key,
      message: `Cannot enable command tools from config "${config.configPath}": key "${key}": ` +
        reason,
    });
  const searchPath = environment.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin";
  const forbiddenRoots = guard.allWriteRoots;
  let programs: AllowedProgram[];
  try {
    programs = await resolveAllowlist(config.commands, { searchPath, forbiddenRoots });
  } catch (error) {
    if (error instanceof AllowlistError) {
      const index = config.commands.indexOf(error.program);
      throw fail(`commands[${Math.max(index, 0)}]`, error.message);
    }
    throw error;
  }
  const interpreters: AllowedProgram[] = [];
  for (const name of new Set(Object.values(config.tools.interpreters))) {
    try {
      interpreters.push(...await resolveAllowlist([name], { searchPath, forbiddenRoots }));
    } catch (error) {
      if (!(error instanceof AllowlistError)) throw error;
    }
  }
  const infrastructure = async (name: string, hint: string): Promise<string> => {
    try {
      const [found] = await resolveAllowlist([name], {
        searchPath: `${searchPath}:/usr/bin:/bin`,
        forbiddenRoots,
      });
      if (found !== undefined) return found.path;
    } catch (error) {
      if (!(error instanceof AllowlistError)) throw error;
    }
    throw fail("commands", `"${name}" was not found in PATH; ${hint}`);
  };
  const setsidPath = await infrastructure(
    "setsid",
    "commands run in their own process group through it (Debian: util-linux)",
  );
  const killPath = await infrastructure("kill", "it stops command process groups (Debian: procps)");

  const configured = config.sandbox.command_isolation;
  let bwrapPath: string | null = null;
  let isolation: CommandSetup["isolation"] = {
    configured,
    effective: "none",
    reason: 'sandbox.command_isolation is "none"',
  };
  if (configured !== "none") {
    const probe = await findBubblewrap(searchPath, forbiddenRoots, probeWith);
    if (probe.usable) {
      bwrapPath = probe.path;
      isolation = { configured, effective: "bwrap", reason: `bubblewrap works (${bwrapPath})` };
    } else if (configured === "bwrap") {
      throw fail(
        "sandbox.command_isolation",
        `"bwrap" was asked for but bubblewrap cannot run here: ${probe.reason}`,
      );
    } else {
      isolation = {
        configured,
        effective: "off",
        reason:
          `command tools are off: bubblewrap cannot confine commands here (${probe.reason}); ` +
          `install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and allow unprivileged ` +
          `user namespaces, or set "sandbox.command_isolation": "none" to run every command ` +
          `unconfined after an approval`,
      };
    }
  }
  const optional = async (name: string): Promise<string | null> => {
    try {
      return (await resolveAllowlist([name], {
        searchPath: `${searchPath}:/usr/bin:/bin`,
        forbiddenRoots,
      }))[0]?.path ?? null;
    } catch (error) {
      if (!(error instanceof AllowlistError)) throw error;
      return null;
    }
  };
  const prlimitPath = await optional("prlimit");
  // Under bubblewrap `ps` is only the run's backstop at its end (a PID namespace whose parent was
  // lost in an abort is still found by its marker): best effort, as under none it is required.
  const psPath = isolation.effective === "none"
    ? await infrastructure(
      "ps",
      "under isolation none it finds the processes a command left behind (Debian: procps)",
    )
    : await optional("ps");
  const shPath = psPath === null ? null : await optional("sh");
  const grepPath = shPath === null ? null : await optional("grep");
  const perlPath = psPath === null ? null : await optional("perl");

  for (const tool of declarativeTools) {
    const program = tool.command_type === "shell" ? "sh" : tool.command;
    if (matchProgram(program, programs) === null) {
      throw new ConfigError({
        code: "commands_invalid",
        file: tool.source,
        key: "command",
        message:
          `Cannot load tool "${tool.source}": its program "${program}" is not in the config's "commands"`,
      });
    }
  }

  // A secret (audit.secret_env) passes only when tools.env names it exactly, never through a glob.
  const secrets = new Set(config.audit.secret_env);
  const environmentNames = expandAllowlist(
    [...DEFAULT_ENV_ALLOWLIST, ...config.tools.env],
    environment.names(),
  ).filter((name) => !secrets.has(name) || config.tools.env.includes(name));
  const loaderIndex = config.tools.env.findIndex((name) => /^(LD|DYLD)_[A-Za-z0-9_]*$/.test(name));
  if (loaderIndex !== -1) {
    throw fail(
      `tools.env[${loaderIndex}]`,
      `"${config.tools.env[loaderIndex]}" cannot be passed to commands: Deno refuses to start a ` +
        `child with LD_* or DYLD_* variables unless every program may run (--allow-run without a list)`,
    );
  }
  let childSearchPath: string;
  try {
    childSearchPath = commandSearchPath(
      [...programs, ...interpreters].map((program) => program.path),
      forbiddenRoots,
    );
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw fail("sandbox.write_roots", `commands would have no PATH: ${error.message}`);
  }
  return {
    programs,
    interpreters,
    interpreterMap: config.tools.interpreters,
    setsidPath,
    killPath,
    bwrapPath,
    prlimitPath,
    psPath,
    environmentReader: shPath === null || grepPath === null ? null : { shPath, grepPath },
    perlPath,
    isolation,
    systemMounts: isolation.effective === "bwrap" ? hostSystemMounts() : [],
    programFolders: programFolders(
      [...programs, ...interpreters].map((program) => program.path),
      environment.get("HOME") ?? null,
    ),
    searchPath: childSearchPath,
    environmentNames,
    declarativeTools,
  };
}

/**
 * The folders to bind read-only so that programs outside the system folders run inside bubblewrap:
 * a program in `<prefix>/bin/` gets `<prefix>` (its libraries sit beside: pyenv, nvm, a tool
 * cache), any other its own folder; a program inside a dot-folder of the home (`~/.pyenv/shims`,
 * `~/.cargo/bin`, `~/.nvm/…`) gets that dot-folder, since a shim runs what lies beside it. Programs
 * under {@linkcode SYSTEM_FOLDERS} need nothing. A
 * prefix that is the home folder or holds it (`~/bin/tool`) is never bound: the program's own
 * folder is, so the home's keys stay out of sight.
 *
 * @param programPaths Absolute real paths of the programs.
 * @param home The runtime user's home folder, or null.
 * @returns The folders, without duplicates or folders inside one another.
 * @example
 * ```ts
 * import { programFolders } from "./command_setup.ts";
 * const folders = programFolders(["/usr/bin/git", "/opt/node/bin/node", "/srv/tools/rg"]);
 * console.assert(folders.join() === "/opt/node,/srv/tools");
 * ```
 */
export function programFolders(
  programPaths: readonly string[],
  home: string | null = null,
): string[] {
  const folders = new Set<string>();
  for (const path of programPaths) {
    if (SYSTEM_FOLDERS.some((system) => path.startsWith(`${system}/`))) continue;
    const folder = path.slice(0, path.lastIndexOf("/")) || "/";
    let prefix = folder.endsWith("/bin") ? folder.slice(0, -4) || "/" : folder;
    if (home !== null && (home === prefix || home.startsWith(`${prefix}/`))) prefix = folder;
    // A tool manager's folder in the home (~/.pyenv/shims/python3 runs ~/.pyenv/libexec/pyenv,
    // ~/.nvm/versions/…, ~/.cargo/bin): the whole dot-folder, which holds what the shim runs.
    const insideHome = home === null ? null : relativeInside(path, home);
    const top = insideHome?.split("/")[0] ?? "";
    if (home !== null && top.startsWith(".") && top.length > 1 && insideHome !== top) {
      prefix = `${home}/${top}`;
    }
    const holdsHome = home !== null && (home === prefix || home.startsWith(`${prefix}/`));
    if (prefix !== "/" && !holdsHome) folders.add(prefix);
  }
  const unique = [...folders].sort();
  return unique.filter((folder) =>
    !unique.some((other) => other !== folder && folder.startsWith(`${other}/`))
  );
}

/** `path` relative to `folder` when inside it (never `..`), else null. */
function relativeInside(path: string, folder: string): string | null {
  const base = folder.endsWith("/") ? folder : `${folder}/`;
  return path.startsWith(base) ? path.slice(base.length) : null;
}

/**
 * Finds `bwrap` (on `searchPath`, then `/usr/bin` and `/bin`; never inside a write root) and tells
 * whether it can confine here. Shared by command tools and MCP servers, which are confined alike.
 *
 * @param searchPath The runtime's `PATH`.
 * @param forbiddenRoots The write roots: a `bwrap` inside one is not used.
 * @param probeWith Runs the probe. @default probeBubblewrap
 * @returns `{ usable: true, path }`, or `{ usable: false, reason }` with a house-style sentence.
 */
export async function findBubblewrap(
  searchPath: string,
  forbiddenRoots: readonly string[],
  probeWith: (bwrapPath: string) => Promise<BubblewrapProbe> = probeBubblewrap,
): Promise<{ usable: true; path: string } | { usable: false; reason: string }> {
  let path: string | null = null;
  try {
    path = (await resolveAllowlist(["bwrap"], {
      searchPath: `${searchPath}:/usr/bin:/bin`,
      forbiddenRoots,
    }))[0]?.path ?? null;
  } catch (error) {
    if (!(error instanceof AllowlistError)) throw error;
  }
  if (path === null) {
    return { usable: false, reason: "bwrap is not installed (Debian: bubblewrap)" };
  }
  const probe = await probeWith(path);
  return probe.usable ? { usable: true, path } : probe;
}
