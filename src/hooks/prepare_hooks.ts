/**
 * Start-up of the config's command hooks: each argv[0] resolved once to an absolute real path
 * outside the workspace and every write root (the agent must not be able to rewrite its own
 * judge), `setsid` and `kill` found, the hooks' environment fixed. Anything wrong stops the run
 * before it starts (ConfigError, exit 2).
 *
 * @module
 */

import { ConfigError } from "../config/mod.ts";
import type { LoadedConfig, LoadedHook } from "../config/mod.ts";
import { AllowlistError, type ProcessEnvironmentReader, resolveAllowlist } from "../exec/mod.ts";
import {
  type CommandHookEnvironment,
  commandPostToolUseHook,
  commandPreToolUseHook,
} from "./command_hook.ts";
import type { PostToolUseHook, PreToolUseHook } from "./hook_types.ts";

/** What {@linkcode prepareHooks} needs besides the config. */
export interface PrepareHooksOptions {
  /** Absolute roots no hook program may live in: the workspace and every write root. */
  forbiddenRoots: readonly string[];
  /** Absolute real path hooks run in (the workspace). */
  cwd: string;
  /** Reads an environment variable of the runtime (PATH, HOME, TMPDIR, LANG). */
  env: (name: string) => string | undefined;
  /**
   * The hooks' confinement domain (`runs/<id>/domains/hooks/`, created here): their HOME and
   * TMPDIR, which no other domain sees. @default the runtime's HOME and TMPDIR (no run)
   */
  domain?: { home: string; tmpDir: string } | null;
  /**
   * `setsid`, `kill` (and `ps`, under isolation none) already found by the command set-up, when
   * commands are enabled; what is missing is looked up on PATH.
   */
  processTools?: {
    setsidPath: string;
    killPath: string;
    psPath?: string | null;
    environmentReader?: ProcessEnvironmentReader | null;
  } | null;
}

/** The config's hooks, ready to run. */
export interface PreparedHooks {
  preToolUse: PreToolUseHook[];
  postToolUse: PostToolUseHook[];
}

const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * Resolves the config's command hooks.
 *
 * The hooks get a cleared environment holding only PATH, HOME, TMPDIR and LANG (PATH and LANG the
 * runtime's, defaulting to `/usr/local/bin:/usr/bin:/bin` and `C.UTF-8`; HOME and TMPDIR their
 * domain's folders with a run, else the runtime's, TMPDIR defaulting to `/tmp`), no isolation
 * beyond their own process group: they are the user's programs, not the agent's; but nothing the
 * agent's commands or an MCP server planted in their home folders reaches them.
 *
 * @returns Empty lists when the config has no hooks (nothing is resolved then).
 * @throws {ConfigError} `config_invalid` naming `hooks.pre_tool_use[0].command` when a program
 *   cannot be found, is not executable, or lies inside the workspace or a write root; naming
 *   `hooks` when `setsid`, `kill` or `ps` is missing (hooks run through the first two; the third
 *   finds what a hook left running outside its process group).
 */
export async function prepareHooks(
  config: LoadedConfig,
  options: PrepareHooksOptions,
): Promise<PreparedHooks> {
  const { pre_tool_use: pre, post_tool_use: post } = config.hooks;
  if (pre.length === 0 && post.length === 0) return { preToolUse: [], postToolUse: [] };
  const fail = (key: string, reason: string) =>
    new ConfigError({
      code: "config_invalid",
      file: config.configPath,
      key,
      message: `Cannot load config "${config.configPath}": key "${key}" ${reason}`,
      issues: [`key "${key}" ${reason}`],
    });
  const searchPath = options.env("PATH") ?? DEFAULT_PATH;
  const resolveProgram = async (hook: LoadedHook, key: string): Promise<string> => {
    try {
      const [found] = await resolveAllowlist([hook.command[0] ?? ""], {
        searchPath,
        forbiddenRoots: options.forbiddenRoots,
      });
      if (found !== undefined) return found.path;
      throw fail(key, "names no program");
    } catch (error) {
      if (!(error instanceof AllowlistError)) throw error;
      const reason = error.code === "inside_write_root"
        ? `must name a program outside the workspace and every write root: ${error.reason}`
        : `cannot be run: ${error.message}`;
      throw fail(key, reason);
    }
  };
  const find = (name: string) => findProcessTool(name, searchPath, options, fail);
  const given = options.processTools ?? null;
  const domain = options.domain ?? null;
  if (domain !== null) {
    await Deno.mkdir(domain.home, { recursive: true, mode: 0o700 });
    await Deno.mkdir(domain.tmpDir, { recursive: true, mode: 0o700 });
  }
  const environment: CommandHookEnvironment = {
    setsidPath: given?.setsidPath ?? await find("setsid"),
    killPath: given?.killPath ?? await find("kill"),
    psPath: given?.psPath ?? await find("ps"),
    environmentReader: given?.environmentReader ?? await environmentReaderOn(searchPath, options),
    cwd: options.cwd,
    env: {
      PATH: searchPath,
      HOME: domain?.home ?? options.env("HOME") ?? "/nonexistent",
      TMPDIR: domain?.tmpDir ?? options.env("TMPDIR") ?? "/tmp",
      LANG: options.env("LANG") ?? "C.UTF-8",
    },
  };
  const specs = async (hooks: LoadedHook[], which: string) => {
    const ready = [];
    for (const [index, hook] of hooks.entries()) {
      const program = await resolveProgram(hook, `hooks.${which}[${index}].command`);
      ready.push({
        command: hook.command,
        program,
        tools: hook.tools,
        timeoutMs: hook.timeout_ms,
      });
    }
    return ready;
  };
  return {
    preToolUse: (await specs(pre, "pre_tool_use")).map((spec) =>
      commandPreToolUseHook(spec, environment)
    ),
    postToolUse: (await specs(post, "post_tool_use")).map((spec) =>
      commandPostToolUseHook(spec, environment)
    ),
  };
}

/** `sh` and `grep` for the leftovers' search, or null when either is missing (then `ps` alone). */
async function environmentReaderOn(
  searchPath: string,
  options: PrepareHooksOptions,
): Promise<ProcessEnvironmentReader | null> {
  try {
    const [sh, grep] = await resolveAllowlist(["sh", "grep"], {
      searchPath: `${searchPath}:/usr/bin:/bin`,
      forbiddenRoots: options.forbiddenRoots,
    });
    return sh === undefined || grep === undefined ? null : { shPath: sh.path, grepPath: grep.path };
  } catch (error) {
    if (error instanceof AllowlistError) return null;
    throw error;
  }
}

async function findProcessTool(
  name: string,
  searchPath: string,
  options: PrepareHooksOptions,
  fail: (key: string, reason: string) => ConfigError,
): Promise<string> {
  try {
    const [found] = await resolveAllowlist([name], {
      searchPath: `${searchPath}:/usr/bin:/bin`,
      forbiddenRoots: options.forbiddenRoots,
    });
    if (found !== undefined) return found.path;
  } catch (error) {
    if (!(error instanceof AllowlistError)) throw error;
  }
  const why = name === "ps"
    ? "it finds what a hook leaves running outside its process group; install procps"
    : "hooks run through it";
  throw fail("hooks", `cannot be run: "${name}" was not found in PATH (${why})`);
}
