/**
 * The tool contract: what a tool declares, the context its handler gets, and the registry that
 * validates calls. The result vocabulary (`ToolOutcome`, `failure`, `ERROR_TYPES`) lives one layer
 * down in `result/` and is re-exported here, so a toolset needs one door.
 *
 * @module
 */

export {
  defineTool,
  describeTool,
  type ExecContext,
  type FileToolSettings,
  type JsonSchema,
  type PathAccess,
  type Permission,
  RISK_LEVEL_NAMES,
  type RiskLevel,
  type RunLocations,
  type SearchCandidates,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolDescriptor,
} from "./tool_definition.ts";
export {
  MAX_TOOL_NAME_LENGTH,
  type RegisteredTool,
  TOOL_NAME_PATTERN,
  ToolRegistrationError,
  ToolRegistry,
} from "./registry.ts";
export { checkSchemaSubset } from "./schema_subset.ts";
