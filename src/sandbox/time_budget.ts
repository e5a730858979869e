/**
 * A per-call time budget for walks and searches: the work stops at the budget and reports what it
 * found, marked truncated, instead of running on.
 *
 * @module
 */

import { DEFAULT_LIMITS } from "../config/base/mod.ts";

/**
 * Default time budget of one walk or search (`fs.grep_files`, recursive `fs.list_files`), in
 * milliseconds: 10 s. Config: `limits.search_time_budget_ms` (its home: `DEFAULT_LIMITS`).
 * @default 10000
 */
export const DEFAULT_SEARCH_TIME_BUDGET_MS: number = DEFAULT_LIMITS.search_time_budget_ms;

/**
 * Time a piece of work may still spend. `exhausted()` is checked between steps (a folder entry, a
 * file, a few hundred lines); the first call that finds the time over latches {@linkcode ranOut},
 * so the caller can tell afterwards that the work was cut short and not merely finished late.
 *
 * @example
 * ```ts
 * import { TimeBudget } from "./time_budget.ts";
 * let now = 0;
 * const budget = TimeBudget.start(100, () => now);
 * console.assert(!budget.exhausted());
 * now = 100;
 * console.assert(budget.exhausted() && budget.ranOut);
 * ```
 */
export class TimeBudget {
  /** The budget, in milliseconds. */
  readonly limitMs: number;
  readonly #deadline: number;
  readonly #now: () => number;
  #ranOut = false;

  private constructor(limitMs: number, now: () => number) {
    this.limitMs = limitMs;
    this.#now = now;
    this.#deadline = now() + limitMs;
  }

  /**
   * Starts a budget of `limitMs` milliseconds now.
   *
   * @param now The clock, in milliseconds. @default performance.now
   * @throws {RangeError} when `limitMs` is not a positive number.
   */
  static start(limitMs: number, now: () => number = () => performance.now()): TimeBudget {
    if (!(limitMs > 0)) {
      throw new RangeError(`Cannot start a time budget of "${limitMs}" ms: it must be positive`);
    }
    return new TimeBudget(limitMs, now);
  }

  /** Tells whether the time is over; once it is, it stays over. */
  exhausted(): boolean {
    if (!this.#ranOut && this.#now() >= this.#deadline) this.#ranOut = true;
    return this.#ranOut;
  }

  /** True once a call of {@linkcode exhausted} found the time over: the work was cut short. */
  get ranOut(): boolean {
    return this.#ranOut;
  }
}

/** The budget in words for messages: `250 ms`, `10 s`, `1.5 s`. */
export function describeBudget(limitMs: number): string {
  if (limitMs < 1000) return `${limitMs} ms`;
  const seconds = limitMs / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
