/**
 * One bound for every walk over data a model, a tool or an MCP server controls. JSON text is
 * measured before it is parsed ({@linkcode jsonNestingDepth}, O(n), no parsing), parsed only when
 * it is shallow enough ({@linkcode parseJsonWithin}), and every recursive copy of such a value
 * (summaries, redaction, display blocks) stops at {@linkcode MAX_VALUE_DEPTH} with a marker
 * ({@linkcode deeperThanMarker}) instead of recursing further. Nothing deeper than the bound is
 * ever walked recursively, so no value can overflow the call stack of the main thread.
 *
 * @module
 */

import { MAX_ARGUMENT_DEPTH } from "../config/base/mod.ts";

/**
 * Deepest nesting of arrays and objects a recursive walk enters: {@linkcode MAX_ARGUMENT_DEPTH}
 * (256), the deepest arguments any config may accept. A container deeper than this is replaced by
 * {@linkcode deeperThanMarker} in copies (summaries, redaction, display blocks).
 */
export const MAX_VALUE_DEPTH: number = MAX_ARGUMENT_DEPTH;

/**
 * The string that stands for a container nested deeper than `limit` levels in a copy.
 *
 * @param limit The depth walked, in levels of arrays and objects. @default MAX_VALUE_DEPTH
 * @returns `"[nested deeper than 256 levels]"` for the default.
 * @example
 * ```ts
 * import { deeperThanMarker } from "./bounded_json.ts";
 * console.assert(deeperThanMarker(3) === "[nested deeper than 3 levels]");
 * ```
 */
export function deeperThanMarker(limit: number = MAX_VALUE_DEPTH): string {
  return `[nested deeper than ${limit} levels]`;
}

/**
 * Deepest `[`/`{` nesting in JSON text, ignoring brackets inside strings. O(n) in the text's
 * length, no parsing, no recursion; text that is not JSON gets a number too (an unclosed bracket
 * counts).
 *
 * @param text Any text.
 * @returns The depth: 0 for a scalar, 1 for `{}`, 3 for `{"a":[{"b":1}]}`.
 * @example
 * ```ts
 * import { jsonNestingDepth } from "./bounded_json.ts";
 * console.assert(jsonNestingDepth('{"a":[{"b":"[[["}]}') === 3);
 * ```
 */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text.charCodeAt(index);
    if (inString) {
      if (character === 0x5c) index += 1; // backslash escapes the next character
      else if (character === 0x22) inString = false;
    } else if (character === 0x22) inString = true;
    else if (character === 0x7b || character === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (character === 0x7d || character === 0x5d) depth -= 1;
  }
  return deepest;
}

/** What {@linkcode parseJsonWithin} found. */
export type BoundedParse =
  | { ok: true; value: unknown }
  | { ok: false; reason: "too_deep"; depth: number; limit: number; message: string }
  | { ok: false; reason: "invalid_json"; message: string };

/**
 * Parses JSON text only when it nests at most `maxDepth` levels: the depth is counted on the text
 * first, so text nested 2,000,000 levels deep is refused in one pass, before `JSON.parse` builds
 * anything. Never throws.
 *
 * @param text JSON text.
 * @param maxDepth Deepest nesting accepted, in levels of arrays and objects.
 *   @default MAX_VALUE_DEPTH
 * @returns `{ok: true, value}`, or `{ok: false, reason: "too_deep", depth, limit, message}`, or
 *   `{ok: false, reason: "invalid_json", message}` (the parser's message).
 * @example
 * ```ts
 * import { parseJsonWithin } from "./bounded_json.ts";
 * const deep = parseJsonWithin("[[[1]]]", 2);
 * console.assert(!deep.ok && deep.reason === "too_deep" && deep.depth === 3);
 * const parsed = parseJsonWithin("[[1]]", 2);
 * console.assert(parsed.ok);
 * ```
 */
export function parseJsonWithin(text: string, maxDepth: number = MAX_VALUE_DEPTH): BoundedParse {
  const depth = jsonNestingDepth(text);
  if (depth > maxDepth) {
    return {
      ok: false,
      reason: "too_deep",
      depth,
      limit: maxDepth,
      message: `nested ${depth} levels deep, more than the limit of ${maxDepth}`,
    };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return {
      ok: false,
      reason: "invalid_json",
      message: error instanceof Error ? error.message : String(error),
    };
  }
}

/**
 * Deepest nesting of arrays and objects in a value, counted with an explicit stack (no
 * recursion), stopping as soon as it passes `stopAbove`: a value nested a million levels deep costs
 * `stopAbove` steps down one branch, never the call stack.
 *
 * @param value Any value (a parsed JSON value, an MCP server's schema).
 * @param stopAbove Depth past which counting stops. @default MAX_VALUE_DEPTH
 * @returns The depth (0 for a scalar, 1 for `{}`), or `stopAbove + 1` when deeper than `stopAbove`.
 * @example
 * ```ts
 * import { valueNestingDepth } from "./bounded_json.ts";
 * console.assert(valueNestingDepth({ a: [{ b: 1 }] }) === 3);
 * console.assert(valueNestingDepth([[[[]]]], 2) === 3);
 * ```
 */
export function valueNestingDepth(value: unknown, stopAbove: number = MAX_VALUE_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  const seen = new Set<object>();
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [current, depth] = next;
    if (typeof current !== "object" || current === null || seen.has(current)) continue;
    seen.add(current);
    deepest = Math.max(deepest, depth);
    if (deepest > stopAbove) return stopAbove + 1;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}
