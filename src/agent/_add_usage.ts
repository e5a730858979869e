/**
 * Token usage summed over a run's turns (private to the agent folder).
 *
 * @module
 */

import type { TokenUsage } from "./model_provider.ts";

/** `total` plus one turn's usage, field by field; null while no turn reported any. */
export function addUsage(total: TokenUsage | null, turn: TokenUsage | null): TokenUsage | null {
  if (turn === null) return total;
  const sum: TokenUsage = { ...total ?? { input_tokens: 0, output_tokens: 0 } };
  for (const [field, count] of Object.entries(turn) as [keyof TokenUsage, number][]) {
    sum[field] = (sum[field] ?? 0) + count;
  }
  return sum;
}
