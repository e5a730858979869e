/**
 * Reads one hash-chained log and checks its chain: every whole line parses, carries `seq` and
 * `prev`, follows in `seq` order, and links to the record before it (the first to the anchor).
 *
 * @module
 */

import { join } from "node:path";
import { type ChainedLog, type ChainLink, lineHash } from "../audit/mod.ts";
import type { VerifyProblem, VerifyProblemKind } from "./verify_report.ts";
import { NotRegularFileError, readRegularFile } from "./_regular_file.ts";

/** One whole line of a chained log. */
export interface ChainRecord {
  /** Line number, from 1. */
  line: number;
  seq: number;
  record: Record<string, unknown>;
  /** sha256 of the line's bytes. */
  hash: string;
}

/** What {@linkcode readChain} found. */
export interface ChainReading {
  file: ChainedLog;
  /** The `prev` of the file's first record. */
  anchor: string;
  /** Whole lines that parse and carry `seq` and `prev`, in file order. */
  records: ChainRecord[];
  /** The last whole record's link; `{0, anchor}` when there is none. */
  head: ChainLink;
  /** The record of each `seq` (its first occurrence). */
  bySeq: Map<number, ChainRecord>;
  problems: VerifyProblem[];
}

const NEWLINE = 0x0a;

/**
 * Reads `file` of `runDir` and checks its chain against `anchor`.
 *
 * @param runId Every record's `run_id`, where it has one, must be this.
 */
export async function readChain(
  runDir: string,
  file: ChainedLog,
  anchor: string,
  runId: string,
): Promise<ChainReading> {
  const problems: VerifyProblem[] = [];
  const problem = (kind: VerifyProblemKind, line: number | null, message: string) =>
    problems.push({ kind, severity: "tampered", file, line, message });
  const reading: ChainReading = {
    file,
    anchor,
    records: [],
    head: { seq: 0, hash: anchor },
    bySeq: new Map(),
    problems,
  };
  let bytes: Uint8Array | null;
  try {
    bytes = await readRegularFile(join(runDir, file));
  } catch (error: unknown) {
    if (!(error instanceof NotRegularFileError)) throw error;
    problem("file_missing", null, `log missing: ${file} is a link, folder or special file`);
    return reading;
  }
  if (bytes === null) {
    problem("file_missing", null, `log missing: ${file} is not in the run folder`);
    return reading;
  }
  const lines = splitLines(bytes);
  const torn = lines.pop() as Uint8Array;
  const decoder = new TextDecoder();
  lines.forEach((line, index) => {
    const number = index + 1;
    let record: unknown;
    try {
      record = JSON.parse(decoder.decode(line));
    } catch {
      record = undefined;
    }
    if (typeof record !== "object" || record === null || Array.isArray(record)) {
      problem("unparsable_line", number, "unparsable line: it is not a JSON object");
      return;
    }
    const { seq, prev } = record as { seq?: unknown; prev?: unknown };
    if (
      typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1 || typeof prev !== "string"
    ) {
      problem("unchained_record", number, 'unchained record: it has no "seq" and "prev"');
      return;
    }
    const runIdOf = (record as { run_id?: unknown }).run_id;
    if (runIdOf !== undefined && runIdOf !== runId) {
      problem("foreign_record", number, `record of another run: run_id "${String(runIdOf)}"`);
    }
    const entry: ChainRecord = {
      line: number,
      seq,
      record: record as Record<string, unknown>,
      hash: lineHash(line),
    };
    reading.records.push(entry);
    if (!reading.bySeq.has(seq)) reading.bySeq.set(seq, entry);
  });
  checkOrder(reading, problem);
  checkLinks(reading, anchor, problem);
  const last = reading.records.at(-1);
  if (last !== undefined) reading.head = { seq: last.seq, hash: last.hash };
  if (torn.length > 0) {
    problems.push({
      kind: "torn_last_line",
      severity: "incomplete",
      file,
      line: lines.length + 1,
      message: `torn last line: ${torn.length} bytes without an end of line (a write cut short)`,
    });
  }
  return reading;
}

/** Every record must follow the highest `seq` before it by one. */
function checkOrder(
  reading: ChainReading,
  problem: (kind: VerifyProblemKind, line: number | null, message: string) => void,
): void {
  const seen = new Set<number>();
  let highest = 0;
  for (const { line, seq } of reading.records) {
    if (seen.has(seq)) {
      problem("duplicate_record", line, `duplicate record: seq ${seq} appears twice`);
      continue;
    }
    seen.add(seq);
    if (seq < highest) {
      problem(
        "reordered_records",
        line,
        `records out of order: seq ${seq} comes after seq ${highest}`,
      );
      continue;
    }
    if (seq > highest + 1) {
      const skipped = Array.from({ length: seq - highest - 1 }, (_, index) => highest + 1 + index);
      if (skipped.every((missing) => reading.bySeq.has(missing))) {
        problem(
          "reordered_records",
          line,
          `records out of order: seq ${seq} comes before seq ${highest + 1}`,
        );
      } else {
        problem(
          "missing_records",
          line,
          `missing records between seq ${highest} and ${seq}`,
        );
      }
    }
    highest = seq;
  }
}

/** Every record's `prev` must be the hash of the record with the `seq` before it. */
function checkLinks(
  reading: ChainReading,
  anchor: string,
  problem: (kind: VerifyProblemKind, line: number | null, message: string) => void,
): void {
  for (const entry of reading.records) {
    if (reading.bySeq.get(entry.seq) !== entry) continue;
    const prev = entry.record.prev;
    if (entry.seq === 1) {
      if (prev !== anchor) {
        problem(
          "anchor_mismatch",
          entry.line,
          "first record does not link to this run: its prev is not the anchor of the run id " +
            "and the policy hash",
        );
      }
      continue;
    }
    const before = reading.bySeq.get(entry.seq - 1);
    if (before === undefined || prev === before.hash) continue;
    problem(
      "edited_record",
      before.line,
      `edited record: seq ${before.seq} does not hash to the prev of seq ${entry.seq} ` +
        `(line ${entry.line})`,
    );
  }
}

/** The lines of `bytes` split at `\n`; the last element is what follows the last `\n`. */
function splitLines(bytes: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let index = 0; index < bytes.length; index++) {
    if (bytes[index] === NEWLINE) {
      lines.push(bytes.subarray(start, index));
      start = index + 1;
    }
  }
  lines.push(bytes.subarray(start));
  return lines;
}
