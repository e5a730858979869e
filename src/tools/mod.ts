/**
 * The tool contract: what a tool declares, the context its handler gets, and the registry that
 * validates calls. The result vocabulary (`ToolOutcome`, `failure`, `ERROR_TYPES`) lives one layer
 * down in `result/` and is re-exported here, so a toolset needs one door.
 *
 * @module
 */

export {
  type ArtifactRef,
  ERROR_TYPES,
  type ErrorType,
  failure,
  isErrorType,
  isToolOutcome,
  type NarrowingRequest,
  success,
  type ToolError,
  type ToolOutcome,
  type ToolResult,
  toOutcome,
} from "../result/mod.ts";
export {
  type CommandTargetRequest,
  defineTool,
  describeTool,
  type ExecContext,
  type FileToolSettings,
  type HostTargetRequest,
  type JsonSchema,
  type PathAccess,
  type PathTargetRequest,
  type Permission,
  RISK_LEVEL_NAMES,
  type RiskLevel,
  type RunLocations,
  type ScriptTargetRequest,
  type SearchCandidates,
  type TargetRequest,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolDescriptor,
  type TypedToolOptions,
} from "./tool_definition.ts";
export {
  MAX_TOOL_NAME_LENGTH,
  type RegisteredTool,
  TOOL_NAME_PATTERN,
  ToolRegistrationError,
  ToolRegistry,
} from "./registry.ts";
export { checkSchemaSubset, REFUSED_KEYWORDS, SUPPORTED_TYPES } from "./schema_subset.ts";
