/**
 * The seal: `manifest.json` against the logs' ends and the files, the signature, the ends named by
 * `run.completed`, and every artifact's sha256 (its name, and the records naming it).
 *
 * @module
 */

import { join } from "node:path";
import {
  CHAINED_LOGS,
  type ChainedLog,
  hashIfFile,
  hmacSha256Hex,
  listFiles,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  manifestSigningInput,
  type RunManifest,
  sealedFileHashes,
} from "../audit/mod.ts";
import type { ChainReading } from "./_read_chain.ts";
import { NotRegularFileError, readRegularFile } from "./_regular_file.ts";
import type { SignatureStatus, VerifyProblem } from "./verify_report.ts";

/** What {@linkcode checkSeal} found. */
export interface SealCheck {
  sealed: boolean;
  signature: SignatureStatus;
  signatureKeyEnv: string | null;
  sealedFiles: number;
  problems: VerifyProblem[];
}

/**
 * Checks `manifest.json` (when present) and the seal's references.
 *
 * @param key The signing key, or null when none was given.
 */
export async function checkSeal(
  runDir: string,
  runId: string,
  chains: Record<ChainedLog, ChainReading>,
  key: string | null,
): Promise<SealCheck> {
  const problems: VerifyProblem[] = [];
  const result: SealCheck = {
    sealed: false,
    signature: key === null ? "unsigned" : "missing",
    signatureKeyEnv: null,
    sealedFiles: 0,
    problems,
  };
  const completed = chains["events.jsonl"].records.find((entry) =>
    entry.record.type === "run.completed"
  );
  if (completed === undefined) {
    const startUp = chains["logs/errors.jsonl"].records.find((entry) =>
      entry.record.source === "startup"
    );
    problems.push({
      kind: "not_sealed",
      severity: "incomplete",
      file: "events.jsonl",
      line: null,
      message: startUp === undefined
        ? "incomplete: no run.completed (killed?)"
        : `incomplete: no run.completed: the run failed to start (logs/errors.jsonl line ` +
          `${startUp.line}: ${String(startUp.record.message)})`,
    });
  } else {
    problems.push(...checkCompletedChains(completed.record, completed.line, chains));
  }
  let bytes: Uint8Array | null;
  try {
    bytes = await readRegularFile(join(runDir, MANIFEST_FILE));
  } catch (error: unknown) {
    if (!(error instanceof NotRegularFileError)) throw error;
    problems.push(invalid("manifest.json is a link, folder or special file, not the seal"));
    return result;
  }
  if (bytes === null) {
    if (completed !== undefined) {
      // A run that recorded it would be signed had its seal removed: without the key nobody can
      // write it again, so that is tampering, not a run killed mid-way.
      const signing = completed.record.signing as { key_env?: unknown } | null | undefined;
      const signed = typeof signing === "object" && signing !== null;
      problems.push({
        kind: "not_sealed",
        severity: signed ? "tampered" : "incomplete",
        file: MANIFEST_FILE,
        line: null,
        message: signed
          ? `manifest missing: run.completed (events.jsonl line ${completed.line}) says the ` +
            `seal was signed with the key in "${String(signing.key_env)}", but manifest.json is ` +
            `gone (removed, or killed in the instant of sealing)`
          : "incomplete: run.completed is recorded but manifest.json is missing " +
            "(killed while sealing, or removed)",
      });
    }
    return result;
  }
  const text = new TextDecoder().decode(bytes);
  const manifest = parseManifest(text, runId);
  if (typeof manifest === "string") {
    problems.push(invalid(manifest));
    return result;
  }
  result.sealed = true;
  result.sealedFiles = Object.keys(manifest.files).length;
  for (const file of CHAINED_LOGS) problems.push(...checkHead(chains[file], manifest));
  problems.push(...await checkFiles(runDir, manifest.files));
  result.signatureKeyEnv = manifest.signature?.key_env ?? null;
  result.signature = await checkSignature(manifest, text, key);
  if (result.signature === "invalid" || result.signature === "missing") {
    problems.push({
      kind: result.signature === "invalid" ? "signature_invalid" : "signature_missing",
      severity: "tampered",
      file: MANIFEST_FILE,
      line: null,
      message: result.signature === "invalid"
        ? "signature does not match: a wrong key, or the manifest was changed"
        : "signature missing: a key was given but the manifest is not signed",
    });
  }
  return result;
}

/**
 * Checks that every artifact under `artifacts/` hashes to its name, and that every artifact a
 * tools record names exists with the sha256 it names. Links are never followed and only regular
 * files are read (see `hashIfFile`): a link or a FIFO in `artifacts/` does not hash to its name, and
 * a record naming a path out of `artifacts/` (`..`) is a broken cross-reference, never read.
 */
export async function checkArtifacts(
  runDir: string,
  tools: ChainReading,
): Promise<VerifyProblem[]> {
  const problems: VerifyProblem[] = [];
  const actual = new Map<string, string | null>();
  const hashOf = async (ref: string) => {
    if (!actual.has(ref)) actual.set(ref, await hashIfFile(join(runDir, ref)));
    return actual.get(ref) ?? null;
  };
  for (const ref of await listFiles(runDir, "artifacts")) {
    const named = /^artifacts\/([0-9a-f]{64})\.[a-z]+$/.exec(ref)?.[1];
    if (named === undefined) continue;
    const hash = await hashOf(ref);
    if (hash !== null && hash !== named) {
      problems.push(mismatch("artifact_mismatch", ref, "its name"));
    }
  }
  for (const entry of tools.records) {
    for (const artifact of referencedArtifacts(entry.record)) {
      if (artifact.ref.split("/").some((segment) => ["", ".", ".."].includes(segment))) {
        problems.push({
          kind: "cross_reference",
          severity: "tampered",
          file: "logs/tools.jsonl",
          line: entry.line,
          message: `broken cross-reference: the record names artifact ${
            JSON.stringify(artifact.ref)
          }, which is not a path inside artifacts/`,
        });
        continue;
      }
      const hash = await hashOf(artifact.ref);
      if (hash === null) {
        problems.push({
          kind: "file_missing",
          severity: "tampered",
          file: artifact.ref,
          line: null,
          message:
            `artifact missing: ${artifact.ref}, named by logs/tools.jsonl line ${entry.line}`,
        });
      } else if (
        hash !== artifact.sha256 && !problems.some((found) => found.file === artifact.ref)
      ) {
        problems.push(
          mismatch("artifact_mismatch", artifact.ref, `logs/tools.jsonl line ${entry.line}`),
        );
      }
    }
  }
  return problems;
}

/** `run.completed`'s `chains` must name records that exist with those hashes. */
function checkCompletedChains(
  record: Record<string, unknown>,
  line: number,
  chains: Record<ChainedLog, ChainReading>,
): VerifyProblem[] {
  const named = record.chains as Record<string, { seq?: unknown; hash?: unknown }> | undefined;
  const problems: VerifyProblem[] = [];
  const files = { tools: "logs/tools.jsonl", errors: "logs/errors.jsonl" } as const;
  for (const [name, file] of Object.entries(files)) {
    const link = named?.[name];
    const reading = chains[file];
    if (typeof link?.seq !== "number" || typeof link.hash !== "string") {
      problems.push({
        kind: "cross_reference",
        severity: "tampered",
        file: "events.jsonl",
        line,
        message: `broken cross-reference: run.completed does not name the end of ${file}`,
      });
      continue;
    }
    const hash = link.seq === 0 ? reading.anchor : reading.bySeq.get(link.seq)?.hash;
    if (hash !== link.hash) {
      problems.push({
        kind: hash === undefined ? "missing_records" : "edited_record",
        severity: "tampered",
        file,
        line: reading.bySeq.get(link.seq)?.line ?? null,
        message: hash === undefined
          ? `missing records: run.completed names seq ${link.seq}, which is not in the file`
          : `edited record: seq ${link.seq} does not hash to what run.completed names`,
      });
    }
  }
  return problems;
}

/** The seal's end of a chain against the file's. */
function checkHead(reading: ChainReading, manifest: RunManifest): VerifyProblem[] {
  const sealed = manifest.chains[reading.file];
  const head = reading.head;
  const problem = (kind: VerifyProblem["kind"], line: number | null, message: string) => [{
    kind,
    severity: "tampered" as const,
    file: reading.file,
    line,
    message,
  }];
  if (sealed === undefined) {
    return problem("manifest_invalid", null, "the seal does not name this log");
  }
  if (sealed.seq === head.seq) {
    if (sealed.hash === head.hash) return [];
    const last = reading.records.at(-1);
    return problem(
      "edited_record",
      last?.line ?? null,
      `edited record: seq ${head.seq} does not hash to the end the seal names`,
    );
  }
  if (sealed.seq > head.seq) {
    return problem(
      "missing_records",
      null,
      `missing records after seq ${head.seq}: the seal ends at seq ${sealed.seq}`,
    );
  }
  const first = reading.records.find((entry) => entry.seq > sealed.seq);
  return problem(
    "added_records",
    first?.line ?? null,
    `records added after the seal: seq ${sealed.seq + 1} to ${head.seq}`,
  );
}

/** The sealed files against the folder as it is now. */
async function checkFiles(
  runDir: string,
  files: Record<string, string>,
): Promise<VerifyProblem[]> {
  const problems: VerifyProblem[] = [];
  const now = await sealedFileHashes(runDir);
  for (const [path, hash] of Object.entries(files)) {
    const actual = now[path];
    const kind = path.startsWith("artifacts/") ? "artifact_mismatch" : "file_mismatch";
    if (actual === undefined) {
      problems.push({
        kind: "file_missing",
        severity: "tampered",
        file: path,
        line: null,
        message: `file missing: ${path} is sealed but gone`,
      });
    } else if (actual !== hash) {
      problems.push(mismatch(kind, path, "the seal"));
    }
  }
  for (const path of Object.keys(now)) {
    if (Object.hasOwn(files, path)) continue;
    problems.push({
      kind: "file_added",
      severity: "tampered",
      file: path,
      line: null,
      message: `file added after the seal: ${path}`,
    });
  }
  return problems;
}

async function checkSignature(
  manifest: RunManifest,
  text: string,
  key: string | null,
): Promise<SignatureStatus> {
  const signature = manifest.signature;
  if (signature === undefined) return key === null ? "unsigned" : "missing";
  if (key === null) return "not_checked";
  const expected = await hmacSha256Hex(key, manifestSigningInput(JSON.parse(text)));
  return constantTimeEqual(expected, signature.value) ? "valid" : "invalid";
}

/** The manifest, or why it is not one of this run. */
function parseManifest(text: string, runId: string): RunManifest | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "manifest.json is not JSON";
  }
  const manifest = value as Partial<RunManifest> | null;
  if (typeof manifest !== "object" || manifest === null || manifest.format !== MANIFEST_FORMAT) {
    return `manifest.json is not a ${MANIFEST_FORMAT} manifest`;
  }
  if (manifest.run_id !== runId) {
    return `manifest.json is the seal of run "${String(manifest.run_id)}", not "${runId}"`;
  }
  if (typeof manifest.chains !== "object" || typeof manifest.files !== "object") {
    return "manifest.json has no chains or files";
  }
  const signature = manifest.signature as { value?: unknown } | undefined;
  if (signature !== undefined && typeof signature?.value !== "string") {
    return "manifest.json has a signature without a value";
  }
  return manifest as RunManifest;
}

function referencedArtifacts(record: Record<string, unknown>): { ref: string; sha256: string }[] {
  const result = record.result as { artifacts?: unknown; output_artifact?: unknown } | undefined;
  const candidates = [
    ...(Array.isArray(result?.artifacts) ? result.artifacts : []),
    result?.output_artifact,
    record.arguments_artifact,
  ];
  return candidates.filter((candidate): candidate is { ref: string; sha256: string } =>
    typeof candidate === "object" && candidate !== null &&
    typeof (candidate as { ref?: unknown }).ref === "string" &&
    typeof (candidate as { sha256?: unknown }).sha256 === "string" &&
    (candidate as { ref: string }).ref.startsWith("artifacts/")
  );
}

function mismatch(
  kind: "artifact_mismatch" | "file_mismatch",
  path: string,
  against: string,
): VerifyProblem {
  const what = kind === "artifact_mismatch" ? "artifact" : "file";
  return {
    kind,
    severity: "tampered",
    file: path,
    line: null,
    message: `${what} sha256 mismatch: ${path} does not hash to ${against}`,
  };
}

function invalid(message: string): VerifyProblem {
  return {
    kind: "manifest_invalid",
    severity: "tampered",
    file: MANIFEST_FILE,
    line: null,
    message,
  };
}

function constantTimeEqual(left: string, right: string): boolean {
  if (left.length !== right.length) return false;
  let difference = 0;
  for (let index = 0; index < left.length; index++) {
    difference |= left.charCodeAt(index) ^ right.charCodeAt(index);
  }
  return difference === 0;
}
