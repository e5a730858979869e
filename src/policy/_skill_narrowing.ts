/**
 * How skill requests narrow a run: the tools their `allowed_tools` leave out, and the commands
 * their `allowed_commands` leave a command tool. Both only remove; neither can allow anything.
 *
 * @module
 */

import picomatch from "picomatch";
import type { ToolDescriptor } from "../tools/mod.ts";
import type { CommandScope, PolicyDeny, TargetScope } from "./policy_rule.ts";
import type { SkillCommand, SkillRequest } from "./policy_inputs.ts";
import { RUNTIME_RULES } from "./runtime_rules.ts";

/** The tools some request's `allowed_tools` leaves out, each with the first skill that did. */
export function narrowedOutTools(
  requests: readonly SkillRequest[],
  tools: readonly ToolDescriptor[],
): Map<string, string> {
  const narrowedOut = new Map<string, string>();
  for (const request of requests) {
    if (request.allowed_tools === undefined) continue;
    for (const tool of tools) {
      if (!picomatch.isMatch(tool.name, request.allowed_tools) && !narrowedOut.has(tool.name)) {
        narrowedOut.set(tool.name, request.skill);
      }
    }
  }
  return narrowedOut;
}

/**
 * The deny for a call of `tool` whose command no `allowed_commands` entry of some request covers,
 * or null. The tool-level view (a scope without `commands`) is never denied here, so the tool
 * stays in the set; a call's scope always lists its commands, and a call of a limited tool that
 * names none is denied (fail closed).
 */
export function skillCommandDeny(
  requests: readonly SkillRequest[],
  tool: ToolDescriptor,
  scope: TargetScope,
): PolicyDeny | null {
  if (scope.commands === undefined) return null;
  for (const request of requests) {
    const entries = (request.allowed_commands ?? []).filter((entry) => entry.tool === tool.name);
    if (entries.length === 0) continue;
    const outside = scope.commands.length === 0
      ? null
      : scope.commands.find((command) => !entries.some((entry) => covers(entry, command)));
    if (outside === undefined) continue;
    const listed = entries.map((entry) => `"${entry.argv.join(" ")}${entry.prefix ? " …" : ""}"`)
      .join(", ");
    return {
      decision: "deny",
      rule: RUNTIME_RULES.skillNarrowing,
      layer: "skill",
      reason: `skill "${request.skill}" allows "${tool.name}" only for ${listed}` +
        (outside === null ? "" : `, not for "${outside.argv.join(" ")}"`),
      error_type: "permission_denied",
    };
  }
  return null;
}

function covers(entry: SkillCommand, command: CommandScope): boolean {
  const [program, ...words] = entry.argv;
  if (program === undefined || program !== command.program) return false;
  const rest = command.argv.slice(1);
  if (!entry.prefix && rest.length !== words.length) return false;
  if (rest.length < words.length) return false;
  return words.every((word, index) => rest[index] === word);
}
