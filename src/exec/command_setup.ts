/**
 * Start-up of command tools, on the main thread: resolves the program allowlist and the script
 * interpreters to absolute real paths outside every write root, finds `setsid`, `kill` and
 * bubblewrap, decides the isolation mode, expands the environment allowlist, and loads declarative
 * tools. Anything wrong stops the run before it starts (exit 2), never half-enables commands.
 *
 * @module
 */

import { ConfigError, type LoadedConfig } from "../config/mod.ts";
import type { PathGuard } from "../sandbox/path_guard.ts";
import { loadDeclarativeTools } from "../toolsets/declarative/load_declarative_tools.ts";
import type { DeclarativeToolFile } from "../toolsets/declarative/declarative_tool_file.ts";
import { probeBubblewrap } from "./bubblewrap.ts";
import { DEFAULT_ENV_ALLOWLIST, expandAllowlist } from "./child_environment.ts";
import {
  type AllowedProgram,
  AllowlistError,
  matchProgram,
  resolveAllowlist,
} from "./program_allowlist.ts";

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
  isolation: { configured: "auto" | "bwrap" | "none"; effective: "bwrap" | "none"; reason: string };
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
 * @throws {ConfigError} `commands_invalid` (a program missing, not executable, or inside a write
 * root; setsid or kill missing; `command_isolation: "bwrap"` without a working bubblewrap; a
 * declarative tool whose program is not allowlisted), `tool_invalid` (a bad declarative file).
 */
export async function prepareCommands(
  config: LoadedConfig,
  guard: PathGuard,
  environment: EnvironmentReader,
): Promise<CommandSetup | null> {
  const declarativeTools = await loadDeclarativeTools(config.tools.dirs);
  if (config.commands.length === 0 && declarativeTools.length === 0) return null;
  const fail = (key: string, reason: string) =>
    new ConfigError({
      code: "commands_invalid",
      file: config.configPath,
      key,
      message: `Cannot enable command tools from config "${config.configPath}": ${reason}`,
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
    try {
      bwrapPath = (await resolveAllowlist(["bwrap"], {
        searchPath: `${searchPath}:/usr/bin:/bin`,
        forbiddenRoots,
      }))[0]?.path ?? null;
    } catch (error) {
      if (!(error instanceof AllowlistError)) throw error;
    }
    const probe = bwrapPath === null
      ? { usable: false as const, reason: "bwrap is not installed (Debian: bubblewrap)" }
      : await probeBubblewrap(bwrapPath);
    if (probe.usable) {
      isolation = { configured, effective: "bwrap", reason: `bubblewrap works (${bwrapPath})` };
    } else if (configured === "bwrap") {
      throw fail(
        "sandbox.command_isolation",
        `"bwrap" was asked for but bubblewrap cannot run here: ${probe.reason}`,
      );
    } else {
      bwrapPath = null;
      isolation = {
        configured,
        effective: "none",
        reason: `bubblewrap cannot run here: ${probe.reason}`,
      };
    }
  }

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
  return {
    programs,
    interpreters,
    interpreterMap: config.tools.interpreters,
    setsidPath,
    killPath,
    bwrapPath,
    isolation,
    environmentNames,
    declarativeTools,
  };
}
