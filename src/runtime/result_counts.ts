/**
 * How many calls of a run ended which way: the counts of `run.completed`, the CLI's summary and
 * a child agent's report.
 *
 * @module
 */

import type { ToolResult } from "../result/mod.ts";
import { eventTypeOf } from "./record.ts";

/** How many calls of a run ended which way; see {@linkcode countResults}. */
export interface ResultCounts {
  /** Every call answered, whatever its result. */
  calls: number;
  /** Refused: unknown tool, policy, approval, hook, path (`tool.denied`). */
  denied: number;
  /** Ran (or was about to) and failed: every other error except `skipped`. */
  failed: number;
  /** Never run because an earlier call of its turn was denied or failed (`error.type` `skipped`). */
  skipped: number;
}

/**
 * Counts an outcome's results, for summaries and `run.completed`. Each result counts in `calls`
 * and in at most one of `denied`, `failed` and `skipped`; the rest succeeded.
 *
 * @example
 * ```ts
 * import { countResults } from "./result_counts.ts";
 * console.assert(countResults([]).skipped === 0);
 * ```
 */
export function countResults(results: readonly ToolResult[]): ResultCounts {
  let denied = 0;
  let failed = 0;
  let skipped = 0;
  for (const result of results) {
    const type = eventTypeOf(result);
    if (type === "tool.denied") denied += 1;
    else if (result.error?.type === "skipped") skipped += 1;
    else if (type === "tool.failed") failed += 1;
  }
  return { calls: results.length, denied, failed, skipped };
}
