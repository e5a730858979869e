/**
 * The token budget of a run tree (`limits.max_total_tokens`): the main agent and every child
 * agent it starts spend from one budget, so a run cannot pass its budget by delegating work.
 *
 * @module
 */

import type { TokenUsage } from "./model_provider.ts";

/**
 * A budget of tokens (input and output, as the providers report them) shared by the agents of
 * one run tree. Each loop spends its turns' usage into it and, once it is spent, ends with
 * `max_total_tokens` after that turn's calls; a child started after that ends after its first
 * turn.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TokenBudget } from "./token_budget.ts";
 * const budget = new TokenBudget(1000);
 * budget.spend({ input_tokens: 600, output_tokens: 300 });
 * assert.equal(budget.spent, false);
 * budget.spend({ input_tokens: 90, output_tokens: 10 });
 * assert.equal(budget.spent, true);
 * assert.equal(budget.used, 1000);
 * ```
 */
export class TokenBudget {
  /** The budget, in tokens (at least 1). */
  readonly limit: number;
  #used = 0;

  /** @throws {RangeError} when `limit` is not a whole number of at least 1. */
  constructor(limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`Cannot make a token budget of ${limit}: it must be a whole number ≥ 1`);
    }
    this.limit = limit;
  }

  /** Tokens spent so far by every agent of the tree. */
  get used(): number {
    return this.#used;
  }

  /** Whether the tree has spent its budget (`used ≥ limit`). */
  get spent(): boolean {
    return this.#used >= this.limit;
  }

  /** Adds a turn's usage (input and output tokens); a turn without usage adds nothing. */
  spend(usage: Pick<TokenUsage, "input_tokens" | "output_tokens"> | null | undefined): void {
    if (usage === null || usage === undefined) return;
    this.#used += usage.input_tokens + usage.output_tokens;
  }
}
