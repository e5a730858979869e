/**
 * `skills`: the folders skills are found in.
 *
 * @module
 */

import { resolve } from "node:path";
import { DEFAULT_SKILL_DIRS, DEFAULT_WORKSPACE_SKILL_DIR } from "./defaults.ts";
import type { LoadedConfig } from "./loaded_config.ts";
import { resolveConfigPath, type ResolveContext } from "./_resolve_context.ts";

/**
 * Resolves `skills`. Default: `skills/` beside the config file and `.agents/skills/` in the
 * workspace.
 */
export function resolveSkills(context: ResolveContext): LoadedConfig["skills"] {
  const written = context.file.skills?.dirs;
  const dirs = written !== undefined
    ? written.map((dir, index) => resolveConfigPath(context, dir, `skills.dirs[${index}]`))
    : [
      ...DEFAULT_SKILL_DIRS.map((dir) => resolveConfigPath(context, dir, "skills.dirs")),
      resolve(context.workspace, DEFAULT_WORKSPACE_SKILL_DIR),
    ];
  return { dirs };
}
