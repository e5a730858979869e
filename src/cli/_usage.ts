/**
 * A run's token usage as CI output shows it (`--output json`'s `usage` and `cost_usd`, the step
 * summary's line), and its cost from the config's `model.pricing`.
 *
 * @module
 */

import type { TokenUsage } from "../agent/mod.ts";
import type { ModelConfig } from "../config/mod.ts";

/** Prices in US dollars a million tokens (config `model.pricing`). */
export interface Pricing {
  input_per_million_tokens: number;
  output_per_million_tokens: number;
  /** Default: the input price. */
  cache_read_per_million_tokens?: number | undefined;
}

/** `usage` in `--output json`: the provider's counts summed over every turn, with their total. */
export interface UsageJson {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  total_tokens: number;
}

/** The usage of a run as `--output json` shows it, or null when no turn reported any. */
export function usageJson(usage: TokenUsage | null): UsageJson | null {
  if (usage === null) return null;
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
}

/** The config's `model.pricing`, or null (no model, the script provider, or no prices). */
export function pricingOf(model: ModelConfig | null): Pricing | null {
  if (model === null || model.provider === "script") return null;
  return model.pricing ?? null;
}

/**
 * The cost of `usage` in US dollars at `pricing`, rounded to a millionth of a dollar; null when
 * either is unknown. Cache reads are counted at their own price (default the input price), the
 * rest of the input at the input price.
 *
 * @example
 * ```ts
 * import { costUsd } from "./_usage.ts";
 * const pricing = { input_per_million_tokens: 3, output_per_million_tokens: 15 };
 * console.assert(costUsd({ input_tokens: 1_000_000, output_tokens: 100_000 }, pricing) === 4.5);
 * ```
 */
export function costUsd(usage: TokenUsage | null, pricing: Pricing | null): number | null {
  if (usage === null || pricing === null) return null;
  const cached = Math.min(usage.cache_read_input_tokens ?? 0, usage.input_tokens);
  const cachedPrice = pricing.cache_read_per_million_tokens ?? pricing.input_per_million_tokens;
  const dollars = ((usage.input_tokens - cached) * pricing.input_per_million_tokens +
    cached * cachedPrice + usage.output_tokens * pricing.output_per_million_tokens) / 1_000_000;
  return Math.round(dollars * 1_000_000) / 1_000_000;
}

/** The step summary's line: `**Tokens:** 1200 in (200 cached), 300 out, 1500 in all; cost $0.0081`. */
export function usageLine(usage: TokenUsage | null, pricing: Pricing | null): string {
  const json = usageJson(usage);
  if (json === null) return "**Tokens:** not reported by the model provider";
  const cached = json.cache_read_input_tokens > 0
    ? ` (${json.cache_read_input_tokens} cached)`
    : "";
  const cost = costUsd(usage, pricing);
  return `**Tokens:** ${json.input_tokens} in${cached}, ${json.output_tokens} out, ` +
    `${json.total_tokens} in all${cost === null ? "" : `; cost $${cost.toFixed(4)}`}`;
}
