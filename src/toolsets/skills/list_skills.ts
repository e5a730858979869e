/**
 * `skills.list_skills()`: the skills the run can load, by name and description (metadata only; the
 * instructions come with `skills.load_skill`).
 *
 * @module
 */

import * as nodePath from "node:path";
import { z } from "zod";
import { discoverSkills, type Skill } from "../../skills/mod.ts";
import { isWithin } from "../../sandbox/mod.ts";
import { defineTool, type ToolDefinition } from "../../tools/mod.ts";
import { success, type ToolOutcome } from "../../result/mod.ts";

/** One entry of `skills.list_skills`. */
export interface ListedSkill {
  name: string;
  description: string;
  /** The skill folder for display: relative to the workspace when inside it, else `<dir>/<name>`. */
  path: string;
}

/** Structured result of `skills.list_skills`. */
export interface ListSkillsData {
  skills: ListedSkill[];
  /** Skill folders found but not loaded (their reasons are in the run's log, not shown here). */
  invalid_count: number;
}

/**
 * A skill folder as shown to the model: relative to the workspace when inside it, else the skills
 * folder's name and the skill's (`skills/survey-repository`), so that home paths are not shown.
 */
export function displaySkillPath(skill: Pick<Skill, "name" | "path">, workspace: string): string {
  if (isWithin(skill.path, workspace)) return nodePath.relative(workspace, skill.path) || ".";
  return `${nodePath.basename(nodePath.dirname(skill.path))}/${skill.name}`;
}

/**
 * Builds `skills.list_skills` over `skillDirs`. The catalogue is read again on each call, in the
 * thread that runs the handler: construct the tool with the same folders in the main thread and
 * in the tool Worker.
 *
 * @param skillDirs Skill folders in priority order (absolute real paths, as in `ExecContext`).
 * @returns the tool definition; its handler never fails for an invalid skill (it is left out).
 * @example
 * ```ts
 * import { listSkillsTool } from "./list_skills.ts";
 * const tool = listSkillsTool(["/srv/skills"]);
 * console.log(tool.name); // "skills.list_skills"
 * ```
 */
export function listSkillsTool(
  skillDirs: readonly string[],
): ToolDefinition {
  const dirs = [...skillDirs];
  return defineTool({
    name: "skills.list_skills",
    description: "Lists the available skills (packaged instructions for a kind of task) by name " +
      "and description. Load one with skills.load_skill to read its instructions.",
    parameters: z.strictObject({}),
    permission: "readonly",
    tags: ["skills", "read"],
    annotations: { category: "skills" },
    handler: async (_args, context): Promise<ToolOutcome> => {
      const catalogue = await discoverSkills(dirs);
      const skills = catalogue.skills.map((skill) => ({
        name: skill.name,
        description: skill.description,
        path: displaySkillPath(skill, context.workspace),
      }));
      const data: ListSkillsData = { skills, invalid_count: catalogue.invalid.length };
      const skipped = catalogue.invalid.length > 0
        ? ` (${catalogue.invalid.length} invalid skipped)`
        : "";
      if (skills.length === 0) return success(`Found no skills${skipped}`, "No skills.", data);
      const output = skills.map((skill) => `- ${skill.name}: ${skill.description}`).join("\n");
      const count = skills.length === 1 ? "1 skill" : `${skills.length} skills`;
      return success(`Found ${count}${skipped}`, output, data);
    },
  });
}
