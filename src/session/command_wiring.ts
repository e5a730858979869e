/**
 * The command set-up of a session, in the three shapes its readers take: the Worker's handlers
 * ({@linkcode ExecContext}), the runtime's target resolution, and the policy snapshot.
 *
 * @module
 */

import type { LoadedConfig } from "../config/mod.ts";
import { domainFolders } from "../exec/mod.ts";
import type { CommandSetup } from "./command_setup.ts";
import type { CommandResolutionContext } from "../runtime/mod.ts";
import type { ExecContext } from "../tools/mod.ts";
import { scannedSecrets } from "./environment.ts";
import type { SessionRun } from "./session_run.ts";

/**
 * Whether command tools run: set up, and not turned off (`auto` without a working bubblewrap).
 *
 * @example
 * ```ts
 * import { commandsRun } from "./command_wiring.ts";
 * console.assert(commandsRun(null) === false);
 * ```
 */
export function commandsRun(commands: CommandSetup | null): commands is CommandSetup {
  return commands !== null && commands.isolation.effective !== "off";
}

/**
 * The command settings the Worker's handlers get.
 *
 * @param secrets The set values of `audit.secret_env` (the long ones are scanned for).
 * @example
 * ```ts ignore
 * const exec = execContext(commands, skillDirs, config, run, secrets);
 * ```
 */
export function execContext(
  commands: CommandSetup,
  skillDirs: string[],
  config: LoadedConfig,
  run: SessionRun,
  secrets: readonly string[],
): ExecContext {
  return {
    programs: commands.programs,
    script_programs: [...commands.programs, ...commands.interpreters],
    interpreters: commands.interpreterMap,
    skill_dirs: skillDirs,
    setsid_path: commands.setsidPath,
    kill_path: commands.killPath,
    isolation: commands.isolation.effective === "bwrap" ? "bwrap" : "none",
    bwrap_path: commands.bwrapPath,
    system_mounts: commands.systemMounts,
    program_folders: commands.programFolders,
    git_write: config.tools.git_write,
    network: config.sandbox.command_network,
    allow_nested_repositories: config.sandbox.allow_nested_repositories,
    process_limit: commands.prlimitPath === null
      ? null
      : { prlimitPath: commands.prlimitPath, max: config.tools.max_processes },
    search_path: commands.searchPath,
    environment_names: commands.environmentNames,
    // The commands' confinement domain (`runs/<id>/home`, `runs/<id>/tmp`): outside the folders fs
    // tools may write, so no tool call can plant dotfiles a child reads.
    home: domainFolders(run.dir, { kind: "commands" }).home,
    tmp_dir: domainFolders(run.dir, { kind: "commands" }).tmpDir,
    git_safe_mode: config.tools.git_safe_mode,
    default_timeout_ms: config.tools.default_timeout_ms,
    max_timeout_ms: config.tools.max_timeout_ms,
    stdout_limit_bytes: config.tools.stdout_limit_bytes,
    stderr_limit_bytes: config.tools.stderr_limit_bytes,
    artifacts_dir: run.artifacts,
    run_dir: run.dir,
    max_artifact_bytes: config.limits.max_artifact_bytes,
    secrets: scannedSecrets(secrets),
  };
}

/**
 * What the runtime resolves command targets against.
 *
 * @param exec The Worker's command settings, or null when commands do not run.
 * @example
 * ```ts ignore
 * const resolution = commandResolution(commands, exec, run.workspace);
 * ```
 */
export function commandResolution(
  commands: CommandSetup,
  exec: ExecContext | null,
  runWorkspace: string,
): CommandResolutionContext {
  return {
    programs: commands.programs,
    scriptPrograms: [...commands.programs, ...commands.interpreters],
    interpreters: commands.interpreterMap,
    skillDirs: exec?.skill_dirs ?? [],
    runWorkspace,
    commandsWriteFreely: commands.isolation.effective === "none",
  };
}

/**
 * The commands part of the policy snapshot (`policy.json` `sandbox.commands`).
 *
 * @example
 * ```ts ignore
 * const snapshot = commandsSnapshot(commands, config);
 * ```
 */
export function commandsSnapshot(commands: CommandSetup, config: LoadedConfig) {
  return {
    programs: commands.programs,
    interpreters: commands.interpreters,
    isolation: commands.isolation,
    environment_names: commands.environmentNames,
    declarative_tools: commands.declarativeTools.map((tool) => ({
      name: tool.name,
      source: tool.source,
    })),
    git_safe_mode: config.tools.git_safe_mode,
    timeouts_ms: { default: config.tools.default_timeout_ms, max: config.tools.max_timeout_ms },
  };
}
