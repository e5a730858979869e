/**
 * Turns a loaded skill into what the policy reads from it: a {@linkcode SkillRequest}. A skill can
 * only narrow: its `allowed-tools` (mapped by {@linkcode mapAllowedTools}) intersect the run's tool
 * set, its `Bash(…)` entries limit the commands `exec.run_command` may run, and it brings no rules.
 *
 * @module
 */

import type { SkillRequest } from "../policy/mod.ts";
import { mapAllowedTools } from "./allowed_tools.ts";
import type { Skill } from "./skill_catalogue.ts";

/**
 * The policy request of a skill. A skill without `allowed-tools` narrows nothing
 * (`allowed_tools` is left out); with it, only tools matching one of its mapped patterns stay
 * available, even when no entry could be mapped (then none stay: an entry that cannot be honoured
 * narrows, it never widens). `Bash(program:*)` entries add `allowed_commands`.
 *
 * @param skill A skill from {@linkcode discoverSkills}.
 * @returns `{ skill: name, allowed_tools?, allowed_commands? }`, never `rules`.
 * @example
 * ```ts
 * import { skillRequestFor } from "./skill_requests.ts";
 * const request = skillRequestFor({ name: "a", allowed_tools: ["Read", "Bash(git:*)"] });
 * console.log(request.allowed_tools); // ["fs.read_file", "exec.run_command"]
 * console.log(request.allowed_commands); // [{ tool: "exec.run_command", argv: ["git"], prefix: true }]
 * ```
 */
export function skillRequestFor(
  skill: Pick<Skill, "name" | "allowed_tools">,
): SkillRequest {
  if (skill.allowed_tools.length === 0) return { skill: skill.name };
  const mapped = mapAllowedTools(skill.allowed_tools);
  return {
    skill: skill.name,
    allowed_tools: mapped.tools,
    ...(mapped.commands.length === 0 ? {} : { allowed_commands: mapped.commands }),
  };
}
