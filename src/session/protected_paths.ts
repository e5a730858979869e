/**
 * The paths no tool may write, even inside a write root: what would change how later runs behave.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { LoadedConfig } from "../config/mod.ts";

/**
 * Files in the home folder that a shell runs at start (bash, sh, zsh): never writable by tools,
 * even when the home folder is inside a write root (CASES.md "Writes that later execute").
 */
export const SHELL_STARTUP_FILES: readonly string[] = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
];

/**
 * The protected paths of a config: the runs folder, the config and permissions files, the shell
 * start-up files in `home`, the agent's instructions (the next run's system prompt), the skill
 * folders (their scripts run) and the declarative tool folders (their commands run).
 *
 * @param home The home folder (absolute), or null when unknown.
 * @example
 * ```ts ignore
 * const paths = protectedPaths(config, "/home/me"); // [runs_dir, configPath, "/home/me/.bashrc", …]
 * ```
 */
export function protectedPaths(config: LoadedConfig, home: string | null): string[] {
  const paths = [config.runs_dir, config.configPath];
  if (home !== null) paths.push(...SHELL_STARTUP_FILES.map((name) => nodePath.join(home, name)));
  if (config.permissionsPath !== null) paths.push(config.permissionsPath);
  if (config.agent.instructions !== null) paths.push(config.agent.instructions.path);
  paths.push(...config.skills.dirs, ...config.tools.dirs);
  return paths;
}
