/**
 * `limits`: sizes in bytes, nesting levels and a time in ms, defaults filled.
 *
 * @module
 */

import type { ConfigFile } from "./config_schema.ts";
import { DEFAULT_LIMITS } from "./defaults.ts";
import type { LoadedConfig } from "./loaded_config.ts";

/** Fills `limits` with {@linkcode DEFAULT_LIMITS}. */
export function resolveLimits(file: ConfigFile): LoadedConfig["limits"] {
  const limits = file.limits;
  return {
    max_argument_bytes: limits?.max_argument_bytes ?? DEFAULT_LIMITS.max_argument_bytes,
    max_argument_depth: limits?.max_argument_depth ?? DEFAULT_LIMITS.max_argument_depth,
    max_output_bytes: limits?.max_output_bytes ?? DEFAULT_LIMITS.max_output_bytes,
    max_artifact_bytes: limits?.max_artifact_bytes ?? DEFAULT_LIMITS.max_artifact_bytes,
    search_time_budget_ms: limits?.search_time_budget_ms ?? DEFAULT_LIMITS.search_time_budget_ms,
    max_total_tokens: limits?.max_total_tokens ?? null,
  };
}
