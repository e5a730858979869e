/**
 * What `kagent-run verify` finds in a run folder: the verdict, the counts, and each problem with
 * its file and line.
 *
 * @module
 */

/**
 * The verdict on a run folder:
 *
 * - `verified`: sealed (`manifest.json`), every chain, cross-reference, file and (with a key) the
 *   signature intact;
 * - `incomplete`: no seal, and nothing else wrong but what a run killed mid-way leaves (no
 *   `run.completed`, a torn last line, calls that never ended); every whole record verifies;
 * - `tampered`: anything else: an edited, missing, added or reordered record, a changed file, a
 *   wrong signature; or, in a sealed run, what would otherwise only make it incomplete.
 */
export type VerifyVerdict = "verified" | "incomplete" | "tampered";

/**
 * What kind of problem, one word each:
 *
 * - `edited_record`: a record's bytes differ from what the next record (or the seal) links to;
 * - `anchor_mismatch`: a log's first record does not link to the run id and policy hash;
 * - `missing_records`: `seq` numbers are missing (between two records, or after the last one the
 *   seal names);
 * - `added_records`: records after the end the seal names;
 * - `reordered_records`: records out of `seq` order; `duplicate_record`: a `seq` twice;
 * - `unparsable_line`: a line that is not a JSON object; `unchained_record`: one without `seq` or
 *   `prev`; `foreign_record`: one of another run (`run_id`);
 * - `torn_last_line`: the file ends in part of a line (a write cut short);
 * - `not_sealed`: no `manifest.json` (killed?), or no `run.completed`;
 * - `unpaired_call`: a `tool.started` without its end, or an end without its `logs/tools.jsonl`
 *   record;
 * - `cross_reference`: a record names an event `seq` that is not its call's event;
 * - `artifact_mismatch`: an artifact's bytes do not match its sha256 (its name, the seal or the
 *   record naming it); `file_mismatch`: another sealed file changed;
 * - `file_missing`: a sealed or referenced file is gone; `file_added`: a file in a sealed folder
 *   the seal does not list;
 * - `manifest_invalid`: `manifest.json` is not a manifest of this run;
 * - `signature_invalid`: the signature does not match the key given; `signature_missing`: a key
 *   was given but the manifest is not signed.
 */
export type VerifyProblemKind =
  | "edited_record"
  | "anchor_mismatch"
  | "missing_records"
  | "added_records"
  | "reordered_records"
  | "duplicate_record"
  | "unparsable_line"
  | "unchained_record"
  | "foreign_record"
  | "torn_last_line"
  | "not_sealed"
  | "unpaired_call"
  | "cross_reference"
  | "artifact_mismatch"
  | "file_mismatch"
  | "file_missing"
  | "file_added"
  | "manifest_invalid"
  | "signature_invalid"
  | "signature_missing";

/** The kinds a run killed mid-way leaves; in a sealed run they count as tampering. */
export const INCOMPLETE_KINDS: readonly VerifyProblemKind[] = [
  "torn_last_line",
  "not_sealed",
  "unpaired_call",
];

/** One problem found. */
export interface VerifyProblem {
  kind: VerifyProblemKind;
  /** What the problem makes of the run (see {@linkcode VerifyVerdict}). */
  severity: "incomplete" | "tampered";
  /** The file, `/`-separated, relative to the run folder (`events.jsonl`, `artifacts/…`). */
  file: string;
  /** The line in `file`, from 1; null when the problem is not on one line. */
  line: number | null;
  /** What is wrong, in words: `edited record: seq 4 does not hash to the prev of seq 5`. */
  message: string;
}

/** How the signature went. */
export type SignatureStatus =
  | "valid"
  | "invalid"
  | "missing"
  | "not_checked"
  | "unsigned";

/** Counts of what was checked. */
export interface VerifyCounts {
  /** Records of `events.jsonl` (whole lines). */
  events: number;
  /** Records of `logs/tools.jsonl`. */
  tool_records: number;
  /** Records of `logs/errors.jsonl`. */
  error_records: number;
  /**
   * Tool calls answered, run or not (`tool.completed`, `tool.failed`, `tool.denied` and
   * `tool.skipped` events): the count `run.completed` and the run's summary line give.
   */
  calls: number;
  /** Files under `artifacts/`. */
  artifacts: number;
  /** Files under `deliverables/`. */
  deliverables: number;
  /** Files the seal lists (0 without a seal). */
  sealed_files: number;
}

/** The result of verifying one run folder (see `verifyRun`). */
export interface VerifyReport {
  /** The run folder, absolute. */
  run_dir: string;
  /** The run id (from `run.json`, else the events, else the folder's name). */
  run_id: string;
  verdict: VerifyVerdict;
  /** True when `manifest.json` exists and is a manifest of this run. */
  sealed: boolean;
  /**
   * `valid`, `invalid` (wrong key or changed manifest), `missing` (a key was given, the manifest
   * is unsigned), `not_checked` (signed, no key given: `key_env` names the variable it was signed
   * with), `unsigned` (no signature, no key).
   */
  signature: SignatureStatus;
  /** The variable the manifest says it was signed with; null when unsigned. */
  signature_key_env: string | null;
  counts: VerifyCounts;
  /** Every problem, in file order. Empty when `verdict` is `verified`. */
  problems: VerifyProblem[];
  /** The sub-agent runs under `agents/`, each verified the same way. */
  children: VerifyReport[];
}
