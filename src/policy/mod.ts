/**
 * The application policy: rules, layers, the effective policy of a run, and its decisions.
 *
 * @module
 */

export {
  type CommandScope,
  type FindingKind,
  type PolicyDecision,
  type TargetScope,
} from "./policy_rule.ts";
export { EffectivePolicy } from "./effective_policy.ts";
export {
  AGENT_TYPES,
  type AgentType,
  type PolicyInputs,
  type SkillRequest,
} from "./policy_inputs.ts";
export { type AllowedToolsList, CHILD_STARTING_TOOLS } from "./agent_tool_sets.ts";
export { type NamedLocation, writeArgument, writePath } from "./named_locations.ts";

export { RUNTIME_RULES } from "./runtime_rules.ts";
