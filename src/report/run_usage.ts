/**
 * A run's token usage as its summary shows it (`--output json`'s `usage` and `cost_usd`, the
 * step summary's line), summed over the segments' `run.completed` records, and its cost from the
 * config's `model.pricing` as `config.json` recorded it.
 *
 * @module
 */

import type { RunRecord } from "./run_reading.ts";
import { numberField, recordField, stringField } from "./_fields.ts";

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

/**
 * The usage recorded in `usages` (each a `run.completed` record's `usage`: `{input_tokens,
 * output_tokens, cache_read_input_tokens?}` or null), summed; null when none reported any.
 *
 * @example
 * ```ts
 * import { sumUsage } from "./run_usage.ts";
 * const usage = sumUsage([{ input_tokens: 10, output_tokens: 2 }, null, { input_tokens: 5, output_tokens: 1 }]);
 * console.assert(usage?.total_tokens === 18 && usage.cache_read_input_tokens === 0);
 * ```
 */
export function sumUsage(usages: readonly unknown[]): UsageJson | null {
  let sum: UsageJson | null = null;
  for (const value of usages) {
    const usage = recordField(value);
    const input = numberField(usage?.input_tokens);
    const output = numberField(usage?.output_tokens);
    if (input === null || output === null) continue;
    sum ??= { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, total_tokens: 0 };
    sum.input_tokens += input;
    sum.output_tokens += output;
    sum.cache_read_input_tokens += numberField(usage?.cache_read_input_tokens) ?? 0;
    sum.total_tokens += input + output;
  }
  return sum;
}

/**
 * The `model.pricing` of a recorded config (`config.json`), or null: no model, the script
 * provider, no prices, or prices that are not numbers.
 */
export function recordedPricing(config: RunRecord | null): Pricing | null {
  const model = recordField(config?.model);
  if (model === null || stringField(model.provider) === "script") return null;
  const pricing = recordField(model.pricing);
  const input = numberField(pricing?.input_per_million_tokens);
  const output = numberField(pricing?.output_per_million_tokens);
  if (input === null || output === null) return null;
  const cached = numberField(pricing?.cache_read_per_million_tokens);
  return {
    input_per_million_tokens: input,
    output_per_million_tokens: output,
    ...(cached === null ? {} : { cache_read_per_million_tokens: cached }),
  };
}

/**
 * The cost of `usage` in US dollars at `pricing`, rounded to a millionth of a dollar; null when
 * either is unknown. Cache reads are counted at their own price (default the input price), the
 * rest of the input at the input price.
 *
 * @example
 * ```ts
 * import { costUsd } from "./run_usage.ts";
 * const pricing = { input_per_million_tokens: 3, output_per_million_tokens: 15 };
 * const usage = { input_tokens: 1_000_000, output_tokens: 100_000, cache_read_input_tokens: 0, total_tokens: 1_100_000 };
 * console.assert(costUsd(usage, pricing) === 4.5);
 * ```
 */
export function costUsd(usage: UsageJson | null, pricing: Pricing | null): number | null {
  if (usage === null || pricing === null) return null;
  const cached = Math.min(usage.cache_read_input_tokens, usage.input_tokens);
  const cachedPrice = pricing.cache_read_per_million_tokens ?? pricing.input_per_million_tokens;
  const dollars = ((usage.input_tokens - cached) * pricing.input_per_million_tokens +
    cached * cachedPrice + usage.output_tokens * pricing.output_per_million_tokens) / 1_000_000;
  return Math.round(dollars * 1_000_000) / 1_000_000;
}
