/**
 * Config loading: the JSONC config file and the permissions format, validated by zod, defaulted and
 * resolved, with JSON Schemas for editors.
 *
 * @example
 * ```ts ignore
 * import { ConfigError, loadConfig } from "./mod.ts";
 * try {
 *   const config = await loadConfig("agent.jsonc");
 *   console.log(config.workspace);
 * } catch (error) {
 *   if (error instanceof ConfigError) console.error(error.message); // exit status 2
 *   else throw error;
 * }
 * ```
 *
 * @module
 */

export {
  AgentConfigSchema,
  AgentDefinitionSchema,
  AuditConfigSchema,
  type ConfigFile,
  ConfigFileSchema,
  LimitsConfigSchema,
  type ModelConfigInput,
  ModelConfigSchema,
  SandboxConfigSchema,
  ScriptModelConfigSchema,
  SkillsConfigSchema,
  ToolsConfigSchema,
} from "./config_schema.ts";
// The defaults, host patterns, ConfigError and issue sentences: the light door's, re-exported.
export * from "./base/mod.ts";
export { configJsonSchema, permissionsJsonSchema } from "./json_schema.ts";
export { type LoadedNetwork, NetworkConfigSchema } from "./network_schema.ts";
export { loadConfig, type LoadConfigOptions, type LoadConfigOverrides } from "./load_config.ts";
export {
  type Defaulted,
  type LoadedAgentDefinition,
  type LoadedConfig,
  type LoadedHook,
  type LoadedMcpHttpServer,
  type LoadedMcpServer,
  type LoadedMcpStdioServer,
  type ModelConfig,
} from "./loaded_config.ts";
export { loadPermissionsFile, type LoadPermissionsFileOptions } from "./load_permissions_file.ts";
export {
  type LoadedPermissions,
  PERMISSION_DECISIONS,
  PERMISSION_MODES,
  type PermissionDecision,
  type PermissionMode,
  type PermissionRule,
  type PermissionRuleInput,
  PermissionRuleSchema,
  type PermissionsFile,
  PermissionsFileSchema,
  ruleId,
} from "./permissions_schema.ts";
export {
  MCP_SERVER_ID_PATTERN,
  McpHttpServerSchema,
  McpServerSchema,
  McpServersSchema,
  McpStdioServerSchema,
} from "./mcp_server_schema.ts";
export { mcpStartHint } from "./mcp_start_hint.ts";
