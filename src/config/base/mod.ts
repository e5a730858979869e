/**
 * The light door of the config layer: the defaults, host patterns, `ConfigError` and the issue
 * sentences, none of which loads zod's config schema. The tool Worker and the network Worker
 * reach the config layer only through here, so their start-up does not build the schema (about a
 * quarter of the tool Worker's start-up CPU time when it did; issue 16). Everything here is also
 * exported by `../mod.ts`.
 *
 * @module
 */

export {
  CLOUD_PROVIDERS,
  type CloudProviderName,
  DEFAULT_AWS_CREDENTIAL_ENV,
  modelBaseUrl,
  modelCredentialEnv,
  type ModelEndpointConfig,
  modelTokenUrl,
  VERTEX_EXPRESS_BASE_URL,
} from "../model_endpoint.ts";
export { ConfigError, type ConfigErrorCode, type ConfigErrorOptions } from "../config_error.ts";
export {
  AGENT_ID_PATTERN,
  DEFAULT_AUDIT_TRACING,
  DEFAULT_CHILD_AGENTS,
  DEFAULT_HOOK,
  DEFAULT_KAGENT_HOME,
  DEFAULT_LIMITS,
  DEFAULT_MAX_PARALLEL_TOOLS,
  DEFAULT_MAX_TURNS,
  DEFAULT_MCP_SERVER,
  DEFAULT_MEMORY,
  DEFAULT_MODEL,
  DEFAULT_NETWORK,
  DEFAULT_RUNS_DIR,
  DEFAULT_SANDBOX,
  DEFAULT_SECRET_ENV,
  DEFAULT_SKILL_DIRS,
  DEFAULT_SYSTEM_BLOCKS,
  DEFAULT_TOOLS,
  DEFAULT_TOOLS_DIR_NAME,
  DEFAULT_WORKSPACE_SKILL_DIR,
  MAX_ARGUMENT_DEPTH,
  MAX_INSTRUCTIONS_BYTES,
} from "../defaults.ts";
export { formatIssues, type IssueText } from "../format_issues.ts";
export {
  HostAllowlist,
  type HostPattern,
  parseHostPattern,
  patternAdmits,
} from "../host_pattern.ts";
