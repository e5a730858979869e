/**
 * Agent Skills: discovery of skill folders, their frontmatter, and the policy requests they make.
 *
 * @module
 */

export {
  discoverSkills,
  type InvalidSkill,
  MAX_RESOURCES,
  MAX_SKILL_FILE_BYTES,
  RESOURCE_FOLDERS,
  type Skill,
  type SkillCatalogue,
} from "./skill_catalogue.ts";
// Types only: the parser (and the YAML library under it) is loaded when a SKILL.md is read.
export type { SkillDocument, SkillFrontmatter } from "./skill_frontmatter.ts";
export { skillRequestFor } from "./skill_requests.ts";
export {
  CLAUDE_TOOL_NAMES,
  COMMAND_TOOL,
  mapAllowedTools,
  type MappedAllowedTools,
  splitAllowedTools,
} from "./allowed_tools.ts";
