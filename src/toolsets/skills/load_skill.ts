/**
 * `skills.load_skill(skill_id)`: a skill's instructions (the body of its `SKILL.md`) and the list
 * of its resource files. Skill ids are names, never paths: nothing is joined from the request.
 *
 * @module
 */

import { z } from "zod";
import { skillNameProblem } from "../../exec/mod.ts";
import { printable } from "../../sandbox/mod.ts";
import { discoverSkills } from "../../skills/mod.ts";
import { skillRequestFor } from "../../skills/mod.ts";
import { defineTool, type ToolDefinition } from "../../tools/mod.ts";
import { failure, success, type ToolOutcome } from "../../result/mod.ts";
import { displaySkillPath } from "./list_skills.ts";

const parameters = z.strictObject({
  skill_id: z.string().max(256).describe(
    'Skill name from skills.list_skills, e.g. "survey-repository"',
  ),
});

/** Arguments of `skills.load_skill`. */
export type LoadSkillArgs = z.input<typeof parameters>;

/** Structured result of `skills.load_skill`. */
export interface LoadSkillData {
  name: string;
  description: string;
  /** For display, as in `skills.list_skills`. */
  path: string;
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, string>;
  /** The allowed-tools entries as written (`Read`, `Bash(git:*)`, `fs.*`). */
  allowed_tools: string[];
  /** Warnings about the skill (allowed-tools entries dropped, metadata ignored); `[]` when none. */
  warnings: string[];
  /** Files under `scripts/`, `references/`, `assets/`, relative to the skill folder. */
  resources: string[];
  resources_truncated: boolean;
}

/**
 * Checks a skill id against the Agent Skills name rule.
 *
 * @returns null when valid, else the reason (for `invalid_arguments`).
 */
export function checkSkillId(skillId: string): string | null {
  if (skillId.length === 0) return "a skill id must not be empty";
  const problem = skillNameProblem(skillId);
  if (problem === null) return null;
  return `a skill id is a name, not a path (${problem}): letters and digits in lower-case words ` +
    'joined by hyphens, e.g. "survey-repository" (see skills.list_skills)';
}

/**
 * Builds `skills.load_skill` over `skillDirs` (same folders in both threads, see
 * `listSkillsTool`). A loaded skill's outcome carries its narrowing request (its allowed-tools),
 * which the runtime applies to the rest of the run.
 *
 * Errors: `invalid_arguments` (an id that is not a skill name: `../x`, `/etc`, `""`, `.`),
 * `file_not_found` (no such skill), `skill_invalid` (its `SKILL.md` does not validate: the
 * reason is given).
 *
 * @param skillDirs Skill folders in priority order.
 * @example
 * ```ts
 * import { loadSkillTool } from "./load_skill.ts";
 * const tool = loadSkillTool(["/srv/skills"]);
 * console.log(tool.name); // "skills.load_skill"
 * ```
 */
export function loadSkillTool(skillDirs: readonly string[]): ToolDefinition {
  const dirs = [...skillDirs];
  return defineTool({
    name: "skills.load_skill",
    description: "Loads a skill by name: returns its instructions and the list of its resource " +
      "files (scripts/, references/, assets/). Names come from skills.list_skills.",
    parameters,
    permission: "readonly",
    tags: ["skills", "read"],
    annotations: { category: "skills" },
    handler: async (args, context): Promise<ToolOutcome> => {
      const id = args.skill_id;
      const problem = checkSkillId(id);
      if (problem !== null) {
        return failure("invalid_arguments", `Cannot load skill "${printable(id)}": ${problem}`, {
          skill_id: printable(id),
        });
      }
      const catalogue = await discoverSkills(dirs);
      const skill = catalogue.skills.find((candidate) => candidate.name === id);
      if (skill === undefined) {
        const broken = catalogue.invalid.find((entry) =>
          entry.path.endsWith(`/${id}/SKILL.md`) || entry.path.endsWith(`/${id}/skill.md`)
        );
        if (broken !== undefined) {
          return failure("skill_invalid", broken.reason, { skill_id: id, path: broken.path });
        }
        const names = catalogue.skills.map((candidate) => candidate.name).join(", ") || "none";
        return failure(
          "file_not_found",
          `Cannot load skill "${id}": there is no such skill (available: ${names})`,
          { skill_id: id },
        );
      }
      const data: LoadSkillData = {
        name: skill.name,
        description: skill.description,
        path: displaySkillPath(skill, context.workspace),
        license: skill.license,
        compatibility: skill.compatibility,
        metadata: skill.metadata,
        allowed_tools: skill.allowed_tools,
        warnings: skill.warnings,
        resources: skill.resources,
        resources_truncated: skill.resources_truncated,
      };
      const resources = skill.resources.length === 0
        ? "(none)"
        : skill.resources.map((resource) => `- ${resource}`).join("\n") +
          (skill.resources_truncated ? "\n- … (more not listed)" : "");
      const warnings = skill.warnings.length === 0
        ? ""
        : `\n\n## Warnings about ${skill.name}\n\n` +
          skill.warnings.map((warning) => `- ${warning}`).join("\n");
      // The folder by its real path: the model reads the skill's own files (references, forms)
      // with fs.read_file there, read-only (a skill folder outside the workspace is a read root).
      const output = `${skill.body.trim()}\n\n## Resources of ${skill.name} (${data.path})\n\n` +
        `Read them with fs.read_file at "${skill.path}/<file>" (read-only).\n\n` +
        resources + warnings;
      const count = skill.resources.length === 1
        ? "1 resource"
        : `${skill.resources.length} resources`;
      // The runtime narrows the rest of the run to the skill's allowed-tools (never widens).
      return {
        ...success(`Loaded skill "${skill.name}" with ${count}`, output, data),
        narrowing: skillRequestFor(skill),
      };
    },
  });
}
