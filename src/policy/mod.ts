/**
 * The application policy: rules, layers, the effective policy of a run, and its decisions.
 *
 * @module
 */

export {
  type CommandFinding,
  commandMatches,
  type CommandScope,
  type Decision,
  type FindingKind,
  type HostScope,
  matchesCall,
  matchesTool,
  NO_TARGETS,
  pathMatches,
  type PolicyAllow,
  type PolicyAsk,
  type PolicyDecision,
  type PolicyDecisionBase,
  type PolicyDeny,
  type PolicyLayer,
  type PolicyRule,
  type TargetScope,
} from "./policy_rule.ts";
export { EffectivePolicy } from "./effective_policy.ts";
export {
  AGENT_TYPES,
  type AgentType,
  type ConfigRule,
  type PolicyInputs,
  type SkillRequest,
  type ToolPolicy,
} from "./policy_inputs.ts";
export {
  agentTypeExclusion,
  type AllowedToolsList,
  CHILD_AGENT_TOOLS,
  CHILD_STARTING_TOOLS,
  CHILD_TASK_TOOLS,
  WORKER_TOOLS,
} from "./agent_tool_sets.ts";
export {
  type LocationFolders,
  type NamedLocation,
  namedLocations,
  replaceLocations,
  sortLocations,
  writeArgument,
  writePath,
} from "./named_locations.ts";
export {
  type HashedFolders,
  type HashedInputs,
  hashLocations,
  meaningHash,
  scopeLocations,
} from "./policy_hash.ts";
export { RUNTIME_RULES } from "./runtime_rules.ts";
