/**
 * Promotion: the Memory Writer. Writes the memory candidates of a finished run that a person
 * accepted to the long-term store, and records each promotion in the run folder's
 * `memory_promotions.jsonl` (outside the sealed set, so the run still verifies; each line names
 * the sha256 of the sealed candidates file it came from).
 *
 * A line of `memory_promotions.jsonl`:
 *
 * ```json
 * {"ts": "…", "run_id": "…", "candidate_id": "3f2a9c1d0e4b5a67", "outcome": "promoted",
 *  "scope": "project", "bytes": 52, "content_sha256": "…", "candidates_sha256": "…",
 *  "store": "file", "record_id": "…", "promoted_by": "alice", "error": null}
 * ```
 *
 * @module
 */

import * as nodePath from "node:path";
import { sha256Hex } from "../audit/mod.ts";
import {
  type CandidateProblem,
  CANDIDATES_FILE,
  type MemoryCandidate,
  parseCandidates,
} from "./memory_candidate.ts";
import { MemoryError, type MemoryProvider } from "./memory_provider.ts";

/** The promotions file of a run, relative to its folder. */
export const PROMOTIONS_FILE = "memory_promotions.jsonl";

/** One line of {@linkcode PROMOTIONS_FILE}. */
export interface PromotionRecord {
  /** ISO time of the write. */
  ts: string;
  run_id: string;
  candidate_id: string;
  /** `promoted`: in the store as `record_id`; `failed`: not written, `error` says why. */
  outcome: "promoted" | "failed";
  scope: string;
  /** UTF-8 bytes of the content written (after redaction). */
  bytes: number;
  /** sha256 (hex) of the content written. */
  content_sha256: string;
  /** sha256 (hex) of the candidates file read (sealed in the run's manifest). */
  candidates_sha256: string;
  /** The provider's name: `file` or `http`. */
  store: string;
  /** The store's id of the new record; null when it failed. */
  record_id: string | null;
  /** Who promoted (the user name of the environment), or null when unknown. */
  promoted_by: string | null;
  /** `{code, message}` of a failed write; null when promoted. */
  error: { code: string; message: string } | null;
}

/** A candidate as listed: its fields, and its promotion when it has been promoted. */
export interface ListedCandidate extends MemoryCandidate {
  /** UTF-8 bytes of the content. */
  bytes: number;
  /** The earlier promotion of this candidate, or null. */
  promoted: { ts: string; record_id: string | null } | null;
}

/** The candidates of a run and what has been promoted. */
export interface RunCandidates {
  run_id: string;
  /** sha256 (hex) of the candidates file; null when the run proposed nothing. */
  candidates_sha256: string | null;
  candidates: ListedCandidate[];
  /** Lines of the candidates file that are no candidate (never promoted). */
  problems: CandidateProblem[];
}

/**
 * Reads a run folder's candidates (`archive/memory_candidates.jsonl`, none when missing) and its
 * promotions so far.
 *
 * @throws {TypeError} `Cannot read …` when the file cannot be read.
 */
export async function readRunCandidates(runDir: string, runId: string): Promise<RunCandidates> {
  let text: string;
  try {
    text = await Deno.readTextFile(nodePath.join(runDir, CANDIDATES_FILE));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { run_id: runId, candidates_sha256: null, candidates: [], problems: [] };
    }
    throw new TypeError(`Cannot read "${CANDIDATES_FILE}" of run "${runId}": ${reasonOf(error)}`);
  }
  const { candidates, problems } = parseCandidates(text);
  const promoted = await readPromotions(runDir);
  return {
    run_id: runId,
    candidates_sha256: sha256(text),
    candidates: candidates.map((candidate) => {
      const earlier = promoted.get(candidate.id);
      return {
        ...candidate,
        bytes: new TextEncoder().encode(candidate.content).byteLength,
        promoted: earlier === undefined ? null : { ts: earlier.ts, record_id: earlier.record_id },
      };
    }),
    problems,
  };
}

/** Options of {@linkcode promoteCandidates}. */
export interface PromoteOptions {
  /** The long-term store. */
  provider: MemoryProvider;
  /** Redacts content once more before it is written (the current config's secrets). */
  redact: (text: string) => string;
  /** Who promotes, or null. */
  promotedBy: string | null;
  /**
   * The run's project key (`run.json` `memory_project.key`); a `project` candidate is refused
   * without one, never written to a scope shared by every project. A provider built with this
   * key is expected.
   */
  projectKey: string | null;
  /** @default () => new Date() */
  now?: () => Date;
}

/**
 * Writes `accepted` (candidates of `listing` not promoted before) to the store in order, appending
 * one {@linkcode PromotionRecord} a candidate right after its write, so a crash loses at most the
 * record of the write in flight. A write that fails is recorded as `failed` and the others go on.
 *
 * @returns The records appended, in order.
 * @throws {TypeError} when an accepted candidate was promoted before, or is not in `listing`
 *   (checked before anything is written).
 */
export async function promoteCandidates(
  runDir: string,
  listing: RunCandidates,
  accepted: readonly string[],
  options: PromoteOptions,
): Promise<PromotionRecord[]> {
  const byId = new Map(listing.candidates.map((candidate) => [candidate.id, candidate]));
  const chosen = accepted.map((id) => {
    const candidate = byId.get(id);
    if (candidate === undefined) {
      throw new TypeError(`Cannot promote "${id}": run "${listing.run_id}" has no such candidate`);
    }
    if (candidate.promoted !== null) {
      throw new TypeError(
        `Cannot promote "${id}": it was promoted at ${candidate.promoted.ts} (record ` +
          `${candidate.promoted.record_id ?? "unknown"})`,
      );
    }
    return candidate;
  });
  const now = options.now ?? (() => new Date());
  const records: PromotionRecord[] = [];
  for (const candidate of [...new Set(chosen)]) {
    const content = options.redact(candidate.content);
    let recordId: string | null = null;
    let error: PromotionRecord["error"] = null;
    try {
      if (candidate.scope === "project" && options.projectKey === null) {
        throw new MemoryError(
          "invalid_scope",
          `Cannot write memory to scope "project": run "${listing.run_id}" records no project ` +
            "identity (run.json memory_project)",
        );
      }
      recordId = (await options.provider.write(content, candidate.scope, candidate.tags)).id;
    } catch (caught) {
      error = {
        code: caught instanceof MemoryError ? caught.code : "unavailable",
        message: options.redact(reasonOf(caught)),
      };
    }
    const record: PromotionRecord = {
      ts: now().toISOString(),
      run_id: listing.run_id,
      candidate_id: candidate.id,
      outcome: error === null ? "promoted" : "failed",
      scope: candidate.scope,
      bytes: new TextEncoder().encode(content).byteLength,
      content_sha256: sha256(content),
      candidates_sha256: listing.candidates_sha256 ?? "",
      store: options.provider.name,
      record_id: recordId,
      promoted_by: options.promotedBy,
      error,
    };
    await Deno.writeTextFile(
      nodePath.join(runDir, PROMOTIONS_FILE),
      JSON.stringify(record) + "\n",
      {
        append: true,
        create: true,
        mode: 0o600,
      },
    );
    records.push(record);
  }
  return records;
}

/** The promoted records of a run's promotions file by candidate id (none when missing). */
async function readPromotions(runDir: string): Promise<Map<string, PromotionRecord>> {
  const promoted = new Map<string, PromotionRecord>();
  let text: string;
  try {
    text = await Deno.readTextFile(nodePath.join(runDir, PROMOTIONS_FILE));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return promoted;
    throw new TypeError(`Cannot read "${PROMOTIONS_FILE}": ${reasonOf(error)}`);
  }
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const record = JSON.parse(line) as PromotionRecord;
      if (record.outcome === "promoted" && typeof record.candidate_id === "string") {
        promoted.set(record.candidate_id, record);
      }
    } catch {
      // A torn last line (a crash mid-append): that write may have happened; it is listed as
      // not promoted, and the store may then hold it twice if it is accepted again.
    }
  }
  return promoted;
}

function sha256(text: string): string {
  return sha256Hex(text);
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
