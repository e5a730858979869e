/**
 * Memory candidates: what the agent's `memory.write_memory` proposes, one JSON line each in the
 * run's `archive/memory_candidates.jsonl`, for `kagent-run memory promote` to write to the
 * long-term store once a person accepts them.
 *
 * A line:
 *
 * ```json
 * {"id": "3f2a9c1d0e4b5a67", "content": "…", "scope": "project", "tags": ["build"], "ts": "2026-11-23T18:00:00.000Z"}
 * ```
 *
 * @module
 */

import { sha256Hex } from "../audit/mod.ts";
import { z } from "zod";

/** One proposed memory (content already redacted when it was proposed). */
export interface MemoryCandidate {
  /** {@linkcode candidateId} of the other fields: 16 lower-case hex digits. */
  id: string;
  /** Redacted content. */
  content: string;
  scope: string;
  tags: string[];
  /** ISO time of the proposal. */
  ts: string;
}

/** The candidates file of a run, relative to its folder. */
export const CANDIDATES_FILE = "archive/memory_candidates.jsonl";

/**
 * The id of a candidate: the first 16 hex digits of the sha256 of
 * `JSON.stringify([content, scope, tags, ts])`. The same proposal has the same id wherever it is
 * computed (a line written before ids were stored gets the one it would have had).
 *
 * @example
 * ```ts
 * import { candidateId } from "./memory_candidate.ts";
 * const id = candidateId({ content: "x", scope: "project", tags: [], ts: "2026-01-01T00:00:00.000Z" });
 * console.assert(/^[0-9a-f]{16}$/.test(id));
 * ```
 */
export function candidateId(candidate: Omit<MemoryCandidate, "id">): string {
  const text = JSON.stringify([candidate.content, candidate.scope, candidate.tags, candidate.ts]);
  return sha256Hex(text).slice(0, 16);
}

/** A candidate with its id, ready to append as a line. */
export function newCandidate(fields: Omit<MemoryCandidate, "id">): MemoryCandidate {
  return { id: candidateId(fields), ...fields };
}

const lineSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{16}$/).optional(),
  content: z.string(),
  scope: z.string(),
  tags: z.array(z.string()),
  ts: z.string(),
});

/** A line of a candidates file that could not be used. */
export interface CandidateProblem {
  /** 1-based line number. */
  line: number;
  message: string;
}

/**
 * Reads the lines of a candidates file. A line that is not a candidate, or whose stored id is not
 * the id of its fields (edited), is a problem, never a candidate; the same id twice is kept once.
 *
 * @param text The file's text.
 */
export function parseCandidates(
  text: string,
): { candidates: MemoryCandidate[]; problems: CandidateProblem[] } {
  const candidates: MemoryCandidate[] = [];
  const problems: CandidateProblem[] = [];
  const seen = new Set<string>();
  text.split("\n").forEach((raw, index) => {
    if (raw.trim() === "") return;
    const line = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      problems.push({ line, message: "not JSON" });
      return;
    }
    const parsed = lineSchema.safeParse(value);
    if (!parsed.success) {
      problems.push({
        line,
        message: `not a memory candidate (${parsed.error.issues[0]?.message})`,
      });
      return;
    }
    const { id, ...fields } = parsed.data;
    const computed = candidateId(fields);
    if (id !== undefined && id !== computed) {
      problems.push({ line, message: `its id "${id}" is not the id of its content (edited?)` });
      return;
    }
    if (seen.has(computed)) return;
    seen.add(computed);
    candidates.push({ id: computed, ...fields });
  });
  return { candidates, problems };
}
