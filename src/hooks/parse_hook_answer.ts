/**
 * Reads a hook's answer strictly: `{"decision": "allow" | "deny" | "ask", "reason"?: string}` and
 * nothing else. A hook cannot change arguments or add anything: any other key makes the answer
 * invalid, and an invalid answer is a deny.
 *
 * @module
 */

import type { HookAnswer } from "./hook_types.ts";

/** An answer, or why there is none (`reason` completes `... failed: <reason>`). */
export type ParsedHookAnswer = { ok: true; answer: HookAnswer } | { ok: false; reason: string };

const DECISIONS: readonly string[] = ["allow", "deny", "ask"];
const KEYS: readonly string[] = ["decision", "reason"];

/**
 * Parses the text a command hook printed on stdout (surrounding white space ignored).
 *
 * @param text The whole stdout.
 * @returns The answer, or `{ ok: false, reason }` when the text is empty, not JSON, or not exactly
 *   an answer.
 * @example
 * ```ts
 * import { parseHookAnswer } from "./parse_hook_answer.ts";
 * const parsed = parseHookAnswer('{"decision": "deny", "reason": "no"}');
 * console.assert(parsed.ok && parsed.answer.decision === "deny");
 * ```
 */
export function parseHookAnswer(text: string): ParsedHookAnswer {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, reason: "it printed nothing" };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { ok: false, reason: `it printed something that is not JSON: "${excerpt(trimmed)}"` };
  }
  return checkHookAnswer(value);
}

/**
 * Checks a value given as an answer (an in-process hook's return value, or parsed JSON).
 *
 * @returns As {@linkcode parseHookAnswer}.
 */
export function checkHookAnswer(value: unknown): ParsedHookAnswer {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'its answer is not an object with a "decision"' };
  }
  const record = value as Record<string, unknown>;
  const unknownKey = Object.keys(record).find((key) => !KEYS.includes(key));
  if (unknownKey !== undefined) {
    return {
      ok: false,
      reason: `its answer has the unknown key "${excerpt(unknownKey)}" (only "decision" and ` +
        `"reason" are allowed)`,
    };
  }
  const decision = record.decision;
  if (typeof decision !== "string" || !DECISIONS.includes(decision)) {
    return {
      ok: false,
      reason: `its answer has no valid "decision" (expected "allow", "deny" or "ask")`,
    };
  }
  if (record.reason !== undefined && typeof record.reason !== "string") {
    return { ok: false, reason: 'its answer has a "reason" that is not a string' };
  }
  const answer: HookAnswer = { decision: decision as HookAnswer["decision"] };
  if (typeof record.reason === "string") answer.reason = record.reason;
  return { ok: true, answer };
}

function excerpt(text: string): string {
  const line = text.replaceAll(/\s+/g, " ");
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}
