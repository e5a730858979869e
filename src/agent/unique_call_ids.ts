/**
 * Tool call ids unique across a whole run, so that the audit (events, `tools.jsonl`,
 * `errors.jsonl`) and the conversation pair every call with exactly one result. Providers already
 * replace a missing id or one repeated within a turn; a server that answers `call_1` on every
 * turn, or a plan that reuses an id, repeats ids across turns, which only the loop can see.
 *
 * @module
 */

import type { ToolCall } from "../runtime/mod.ts";

/**
 * Hands out run-unique ids. A call whose id was already used in the run gets `<id>-<n>` (the
 * smallest `n` from 2 that is still free) and keeps what the provider sent in `provider`: its raw
 * name and id (`null` when the provider generated the id itself). A call that needs no change is
 * returned as it is.
 *
 * @example
 * ```ts
 * import { UniqueCallIds } from "./unique_call_ids.ts";
 * const ids = new UniqueCallIds();
 * const call = { id: "call_1", name: "fs.read_file", arguments: "{}" };
 * ids.claim([call]);
 * const [again] = ids.claim([call]);
 * console.assert(again?.id === "call_1-2" && again.provider?.id === "call_1");
 * ```
 */
export class UniqueCallIds {
  readonly #used = new Set<string>();

  /**
   * Claims the ids of one turn's calls, in order.
   *
   * @param calls The turn's calls as the provider returned them.
   * @returns The same calls, each with an id no earlier call of the run had.
   */
  claim(calls: readonly ToolCall[]): ToolCall[] {
    return calls.map((call) => {
      if (!this.#used.has(call.id)) {
        this.#used.add(call.id);
        return call;
      }
      let suffix = 2;
      while (this.#used.has(`${call.id}-${suffix}`)) suffix += 1;
      const id = `${call.id}-${suffix}`;
      this.#used.add(id);
      return { ...call, id, provider: call.provider ?? { name: call.name, id: call.id } };
    });
  }
}
