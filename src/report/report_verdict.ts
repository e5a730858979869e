/**
 * The verify verdict a report shows at its top: whether the run folder is sealed and intact.
 *
 * @module
 */

/**
 * `verified`: sealed and intact; `tampered`: a chain, a cross-reference, the seal or an artifact
 * does not match; `incomplete`: no seal (killed, or still running); `not_checked`: no verifier ran.
 */
export type VerdictStatus = "verified" | "tampered" | "incomplete" | "not_checked";

/** What `kagent-run verify` found, as the report shows it. */
export interface ReportVerdict {
  status: VerdictStatus;
  /** One line after the status, e.g. `27 events, 8 tool records, …; unsigned`. */
  headline: string;
  /** Each problem with its file and line, e.g. `events.jsonl line 12: edited record`. */
  problems: string[];
}

/**
 * The verdict of a report made without a verifier.
 *
 * @param reason Why nothing was verified, e.g. `this build has no kagent-run verify`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { notChecked } from "./report_verdict.ts";
 * assert.ok(notChecked("no verifier").status === "not_checked");
 * ```
 */
export function notChecked(reason: string): ReportVerdict {
  return { status: "not_checked", headline: reason, problems: [] };
}
