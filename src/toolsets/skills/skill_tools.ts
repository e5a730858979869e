/**
 * The skill tools bound to the run's skill folders.
 *
 * @module
 */

import { listSkillsTool } from "./list_skills.ts";
import { loadSkillTool } from "./load_skill.ts";
import type { ToolDefinition } from "../../tools/mod.ts";

/**
 * `skills.list_skills` and `skills.load_skill` over `skillDirs`. Both read the folders on each
 * call, in the thread that runs the handler: build them with the same folders in the main thread
 * (registry, policy) and in the tool Worker (handlers).
 *
 * @param skillDirs Skill folders in priority order (absolute real paths).
 * @example
 * ```ts
 * import { createSkillTools } from "./skill_tools.ts";
 * const names = createSkillTools(["/srv/skills"]).map((tool) => tool.name);
 * console.log(names); // ["skills.list_skills", "skills.load_skill"]
 * ```
 */
export function createSkillTools(skillDirs: readonly string[]): ToolDefinition[] {
  return [listSkillsTool(skillDirs), loadSkillTool(skillDirs)];
}
