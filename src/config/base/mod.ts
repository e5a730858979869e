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
  type ModelEndpointConfig,
  modelTokenUrl,
} from "../model_endpoint.ts";
export { ConfigError } from "../config_error.ts";
export {
  DEFAULT_CHILD_AGENTS,
  DEFAULT_LIMITS,
  DEFAULT_MAX_PARALLEL_TOOLS,
  DEFAULT_MEMORY,
  DEFAULT_MODEL,
  DEFAULT_SYSTEM_BLOCKS,
  DEFAULT_TOOLS,
  MAX_ARGUMENT_DEPTH,
} from "../defaults.ts";
export { formatIssues } from "../format_issues.ts";
export { HostAllowlist, parseHostPattern, patternAdmits } from "../host_pattern.ts";
