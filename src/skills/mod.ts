/**
 * Agent Skills: discovery of skill folders, their frontmatter, and the policy requests they make.
 *
 * @module
 */

export { discoverSkills, type Skill } from "./skill_catalogue.ts";
// Types only: the parser (and the YAML library under it) is loaded when a SKILL.md is read.

export { skillRequestFor } from "./skill_requests.ts";
