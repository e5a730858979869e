/**
 * Short summaries of large values, for logs and events.
 *
 * @module
 */

import { deeperThanMarker, MAX_VALUE_DEPTH } from "../result/mod.ts";
import { sha256Hex } from "./sha256.ts";

/** Options of {@linkcode summariseValue}. */
export interface SummariseOptions {
  /**
   * Longest string kept whole, in characters (code points); longer strings are summarised.
   * @default 256
   */
  maxStringLength?: number;
}

/** Longest array kept whole; longer arrays keep this many items and a marker. */
export const MAX_SUMMARY_ITEMS = 50;

/** Characters (code points) of a long string kept at the start of its summary (at most). */
const PREFIX_LENGTH = 64;

/**
 * Deep-copies `value`, shortening what would bloat a log line:
 *
 * - a string longer than `maxStringLength` becomes `"<first 64 chars>… [4096 chars, sha256
 *   1a2b3c4d5e6f7a8b…]"` (the sha256 of its UTF-8 bytes, first 16 hex digits, to match it against
 *   the full value elsewhere; the prefix is cut to `maxStringLength` when that is below 64);
 * - an array longer than {@linkcode MAX_SUMMARY_ITEMS} keeps its first 50 items, then a marker
 *   string `"… 950 more items"`.
 *
 * - an array or object nested deeper than {@linkcode MAX_VALUE_DEPTH} (256) levels becomes the
 *   marker `"[nested deeper than 256 levels]"`: the copy recurses no deeper, so no value (a model's
 *   arguments, a tool's data) can overflow the call stack.
 *
 * Objects are copied key by key; cycles become `"[Circular]"`; other values are copied as they are.
 * Synchronous.
 *
 * @param value Any value.
 * @param options See {@linkcode SummariseOptions}.
 * @returns A new value; `value` is not changed.
 * @throws {RangeError} When `maxStringLength` is not a non-negative integer.
 * @example
 * ```ts
 * import { summariseValue } from "./summarise_value.ts";
 * const summary = summariseValue({ text: "x".repeat(4096) }) as { text: string };
 * console.assert(summary.text.startsWith("x".repeat(64) + "… [4096 chars, sha256 "));
 * ```
 */
export function summariseValue(value: unknown, options: SummariseOptions = {}): unknown {
  const maxStringLength = options.maxStringLength ?? 256;
  if (!Number.isSafeInteger(maxStringLength) || maxStringLength < 0) {
    throw new RangeError(
      `Cannot summarise a value: maxStringLength must be a non-negative integer, got "${maxStringLength}"`,
    );
  }
  return summarise(value, maxStringLength, new Set(), 0);
}

function summarise(
  value: unknown,
  maxLength: number,
  ancestors: Set<object>,
  depth: number,
): unknown {
  if (typeof value === "string") return summariseString(value, maxLength);
  if (typeof value !== "object" || value === null) return value;
  if (ancestors.has(value)) return "[Circular]";
  if (depth >= MAX_VALUE_DEPTH) return deeperThanMarker();
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const kept = value.slice(0, MAX_SUMMARY_ITEMS).map((item) =>
        summarise(item, maxLength, ancestors, depth + 1)
      );
      const rest = value.length - kept.length;
      if (rest > 0) kept.push(`… ${rest} more ${rest === 1 ? "item" : "items"}`);
      return kept;
    }
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(copy, key, {
        value: summarise(item, maxLength, ancestors, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  } finally {
    ancestors.delete(value);
  }
}

function summariseString(text: string, maxLength: number): string {
  // Code units bound code points from above: a short string needs no counting.
  if (text.length <= maxLength) return text;
  let characters = 0;
  let prefixEnd = 0;
  const prefixLength = Math.min(PREFIX_LENGTH, maxLength);
  for (const character of text) {
    if (characters < prefixLength) prefixEnd += character.length;
    characters++;
  }
  if (characters <= maxLength) return text;
  const prefix = text.slice(0, prefixEnd);
  const digest = sha256Hex(text).slice(0, 16);
  return `${prefix}… [${characters} chars, sha256 ${digest}…]`;
}
