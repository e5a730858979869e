/**
 * Turns a loaded skill into what the policy reads from it: a {@linkcode SkillRequest}. A skill can
 * only narrow: its `allowed-tools` intersect the run's tool set, and it brings no rules (yet).
 *
 * @module
 */

import type { SkillRequest } from "../policy/mod.ts";
import type { Skill } from "./skill_catalogue.ts";

/**
 * The policy request of a skill. A skill without `allowed-tools` narrows nothing
 * (`allowed_tools` is left out); with it, only tools matching one of its patterns stay available.
 *
 * @param skill A skill from {@linkcode discoverSkills}.
 * @returns `{ skill: name, allowed_tools? }`, never `rules`.
 * @example
 * ```ts
 * import { skillRequestFor } from "./skill_requests.ts";
 * const request = skillRequestFor({ name: "a", allowed_tools: ["fs.read_file"] });
 * console.log(request.allowed_tools); // ["fs.read_file"]
 * ```
 */
export function skillRequestFor(
  skill: Pick<Skill, "name" | "allowed_tools">,
): SkillRequest {
  if (skill.allowed_tools.length === 0) return { skill: skill.name };
  return { skill: skill.name, allowed_tools: [...skill.allowed_tools] };
}
