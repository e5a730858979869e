/**
 * Which `anthropic-version` the Anthropic provider speaks, and when a configured `temperature`
 * can be sent: API version 2026-10-21 removed it on every model, and on 2023-06-01 the newest
 * models refuse it.
 *
 * @module
 */

/**
 * The `anthropic-version` header this provider sends by default: 2026-10-21, the version the
 * official SDKs (TypeScript 1.x, Python 2.x) send. Against 2023-06-01 it removes `temperature`,
 * `top_p` and `top_k` (HTTP 400 even at their defaults) and refuses `document` blocks in
 * assistant messages and citations on user text, neither of which this provider sends.
 */
export const ANTHROPIC_VERSION = "2026-10-21";

/** The API versions this provider speaks; `2023-06-01` still takes `temperature`. */
export type AnthropicApiVersion = "2026-10-21" | "2023-06-01";

/**
 * Whether the model refuses the `temperature` parameter, by its name. Claude Opus 4.7 answers
 * HTTP 400 "`temperature` is deprecated for this model" (Anthropic's migration guide: its sampling
 * parameters were removed), and Anthropic documents the same removal for Claude Sonnet 5; later
 * models (Opus 4.8 on, any Claude 5 or later) are assumed to follow. An assumption by name: a
 * model it misses fails with that HTTP 400, one it wrongly matches runs at its default
 * temperature (the CLI warns either way the config sets one).
 *
 * @example
 * ```ts
 * import { rejectsTemperature } from "./anthropic_temperature.ts";
 * console.assert(rejectsTemperature("claude-opus-4-7"));
 * console.assert(!rejectsTemperature("claude-sonnet-4-5"));
 * ```
 */
export function rejectsTemperature(model: string): boolean {
  const opus4 = /^claude-opus-4-(\d+)(?:$|-)/.exec(model);
  if (opus4 !== null) return Number(opus4[1]) >= 7 && Number(opus4[1]) < 100;
  const family = /^claude-(?:[a-z]+-)?(\d+)(?:$|[-.])/.exec(model);
  return family !== null && Number(family[1]) >= 5 && Number(family[1]) < 100;
}

/**
 * Why a configured `temperature` will not be sent, as a warning sentence; `null` when it will be
 * (or none is set).
 *
 * @example
 * ```ts
 * import { anthropicTemperatureWarning } from "./anthropic_temperature.ts";
 * console.assert(anthropicTemperatureWarning({ model: "claude-sonnet-4-6", temperature: 0 }) !== null);
 * console.assert(
 *   anthropicTemperatureWarning({
 *     model: "claude-sonnet-4-6",
 *     temperature: 0,
 *     api_version: "2023-06-01",
 *   }) === null,
 * );
 * ```
 */
export function anthropicTemperatureWarning(
  options: { model: string; temperature?: number; api_version?: AnthropicApiVersion },
): string | null {
  if (options.temperature === undefined) return null;
  const version = options.api_version ?? ANTHROPIC_VERSION;
  if (version !== "2023-06-01") {
    return `Not sending "model.temperature" to "${options.model}": API version ${version} ` +
      `refuses it on every model; remove it, or set "model.api_version": "2023-06-01" for a ` +
      `model that still takes it`;
  }
  if (rejectsTemperature(options.model)) {
    return `Not sending "model.temperature" to "${options.model}": the model refuses it ` +
      `(Claude Opus 4.7 and later, Claude 5 models); remove it`;
  }
  return null;
}
