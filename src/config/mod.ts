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

// The defaults, host patterns, ConfigError and issue sentences: the light door's, re-exported.
export {
  CLOUD_PROVIDERS,
  type CloudProviderName,
  ConfigError,
  DEFAULT_AWS_CREDENTIAL_ENV,
  DEFAULT_MODEL,
  HostAllowlist,
  modelBaseUrl,
  modelTokenUrl,
} from "./base/mod.ts";

export { loadConfig, type LoadConfigOverrides } from "./load_config.ts";
export {
  type LoadedAgentDefinition,
  type LoadedConfig,
  type LoadedHook,
  type LoadedMcpHttpServer,
  type LoadedMcpServer,
  type LoadedMcpStdioServer,
  type ModelConfig,
} from "./loaded_config.ts";

export { mcpStartHint } from "./mcp_start_hint.ts";
