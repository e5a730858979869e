/**
 * Run ids: sortable by start time, unique enough to name a folder.
 *
 * @module
 */

/**
 * Builds a run id: the UTC start time to the second, then 6 random hex digits, e.g.
 * `20261121T053412Z-a1b2c3`. Ids sort by start time as plain strings; two runs started in the same
 * second differ by their random part (24 bits: {@linkcode RunFolder.create} retries on the rare
 * collision).
 *
 * @param now The run's start time.
 * @param random Returns a number in [0, 1).
 * @default random a cryptographically random source (`crypto.getRandomValues`)
 * @returns The id; only `[0-9A-Z-a-f]`, safe as a folder name.
 * @throws {RangeError} When `now` is an invalid date.
 * @example
 * ```ts
 * import { createRunId } from "./create_run_id.ts";
 * const id = createRunId(new Date("2026-11-21T05:34:12.345Z"), () => 0.5);
 * console.assert(id === "20261121T053412Z-800000");
 * ```
 */
export function createRunId(now: Date, random: () => number = cryptoRandom): string {
  if (Number.isNaN(now.getTime())) {
    throw new RangeError("Cannot create a run id: the date is invalid");
  }
  const stamp = now.toISOString().slice(0, 19).replaceAll("-", "").replaceAll(":", "");
  const fraction = Math.min(Math.max(random(), 0), 1 - Number.EPSILON);
  const suffix = Math.floor(fraction * 0x1000000).toString(16).padStart(6, "0");
  return `${stamp}Z-${suffix}`;
}

function cryptoRandom(): number {
  const [value = 0] = crypto.getRandomValues(new Uint32Array(1));
  return value / 0x1_0000_0000;
}
