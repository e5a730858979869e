/**
 * Following a run's `events.jsonl` while it is written: the writer of that file hands each record,
 * once its line is in the file, to observers (`AuditRecorder.observeEvents`).
 *
 * @module
 */

import type { ChainLink } from "./audit_chain.ts";
import { JsonlWriter } from "./jsonl_writer.ts";

/**
 * Receives each `events.jsonl` record once it is written: `{ts, type, run_id, ...fields, seq}`,
 * redacted as written (without `prev`). Called synchronously; it must not keep the run waiting.
 */
export type EventObserver = (record: Readonly<Record<string, unknown>>) => void;

/**
 * A {@linkcode JsonlWriter} that calls its observers with each record it wrote, in the file's
 * order, with the record's `seq`. A record the file system refused is not observed; an observer's
 * exceptions are ignored (following a run is best effort and must not fail the record).
 *
 * @example
 * ```ts
 * import { ObservedJsonlWriter } from "./event_observers.ts";
 * const path = await Deno.makeTempFile();
 * const writer = new ObservedJsonlWriter(path, { chain: { anchor: "0".repeat(64) } });
 * const seen: unknown[] = [];
 * writer.observers.push((record) => seen.push(record.seq));
 * await writer.write({ type: "tool.started" });
 * await writer.close();
 * console.assert(seen[0] === 1);
 * await Deno.remove(path);
 * ```
 */
export class ObservedJsonlWriter extends JsonlWriter {
  /** Called with each written record; add to it at any time. */
  readonly observers: EventObserver[] = [];

  /** Writes as {@linkcode JsonlWriter.write}, then tells the observers. */
  override write(record: Record<string, unknown>): Promise<ChainLink | null> {
    return super.write(record).then((link) => {
      if (link !== null) {
        for (const observer of this.observers) {
          try {
            observer({ ...record, seq: link.seq });
          } catch {
            // Following a run is best effort: an observer must not fail the record.
          }
        }
      }
      return link;
    });
  }
}
