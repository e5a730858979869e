/**
 * Words both renderers use: verdict labels, durations, clipped texts.
 *
 * @module
 */

import type { VerdictStatus } from "./report_verdict.ts";

/** The verdict's label, shown first. */
export const VERDICT_LABELS: Readonly<Record<VerdictStatus, string>> = {
  verified: "Verified",
  tampered: "Tampered",
  incomplete: "Incomplete",
  not_checked: "Not verified",
};

/** A duration in words: `850 ms`, `2.40 s`, `3 min 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;
}

/** The text, cut at `limit` characters with a note of how many more there were. */
export function clip(text: string, limit: number): string {
  return text.length <= limit
    ? text
    : `${text.slice(0, limit)}… [${text.length - limit} more characters]`;
}

/** ` over 2 segments` for a resumed run (the duration is theirs together), else nothing. */
export function segmentsText(segments: number): string {
  return segments > 1 ? ` over ${segments} segments` : "";
}
