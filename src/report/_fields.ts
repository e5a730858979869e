/**
 * Typed reads of untrusted JSON fields: a value of the wrong type is null, never trusted.
 *
 * @module
 */

import type { RunRecord } from "./run_reading.ts";

/** The value as a string, or null. */
export function stringField(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** The value as a finite number, or null. */
export function numberField(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** The value as an object (not an array), or null. */
export function recordField(value: unknown): RunRecord | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as RunRecord
    : null;
}

/** The value's strings when it is an array (other items left out), else an empty list. */
export function stringsField(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === "string") : [];
}

/** The value's objects when it is an array (other items left out), else an empty list. */
export function recordsField(value: unknown): RunRecord[] {
  return Array.isArray(value)
    ? value.map(recordField).filter((item): item is RunRecord => item !== null)
    : [];
}

/** Milliseconds since the epoch of an ISO timestamp field, or null. */
export function timeField(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : time;
}

/**
 * A path relative to the run folder that a report may link to: `artifacts/`, `deliverables/`,
 * `logs/` or `agents/` followed by plain name characters, no `..`, no scheme, no query. A record
 * of a hostile run could name `javascript:…` or `../../etc/passwd` as an artifact: that is not a
 * link, only text.
 *
 * @returns The path, or null when it is not one to link.
 */
export function linkablePath(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 500) return null;
  if (!/^(artifacts|deliverables|logs|agents)\/[A-Za-z0-9._\-/]+$/.test(value)) return null;
  return value.split("/").some((part) => part === "" || part === "." || part === "..")
    ? null
    : value;
}
