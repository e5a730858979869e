/**
 * Auditing: the run folder, append-only JSONL logs, content-addressed artifacts, redaction of
 * secrets and summaries of large values. Everything here runs on the main thread.
 *
 * @example
 * ```ts
 * import { AuditRecorder, Redactor, RunFolder } from "./mod.ts";
 * const runsDir = await Deno.makeTempDir();
 * const folder = await RunFolder.create(runsDir);
 * const redactor = Redactor.fromEnvironment(["MY_TOKEN"], () => undefined);
 * const recorder = new AuditRecorder({ folder, redactor });
 * await recorder.event("command.swept", { tool_call_id: "call-1", killed: 0 });
 * await recorder.close();
 * await Deno.remove(runsDir, { recursive: true });
 * ```
 *
 * @module
 */

export {
  chainAnchor,
  CHAINED_LOGS,
  type ChainedLog,
  type ChainLink,
  lineHash,
} from "./audit_chain.ts";

export { ArtifactStore } from "./artifact_store.ts";
export { AuditRecorder } from "./audit_recorder.ts";

export { AuditWriteError } from "./audit_write_error.ts";
export { createRunId } from "./create_run_id.ts";
export { JsonlWriter } from "./jsonl_writer.ts";
export {
  applySpans,
  MIN_SECRET_LENGTH,
  type RedactionSpan,
  Redactor,
  type StreamRedaction,
} from "./redactor.ts";
export { isSecretKey } from "./_secret_patterns.ts";
export { RunFolder } from "./run_folder.ts";
export {
  childRuns,
  hashIfFile,
  hmacSha256Hex,
  listFiles,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  manifestSigningInput,
  type RunManifest,
  sealedFileHashes,
  type SigningKey,
} from "./run_manifest.ts";
export { fileSha256, modelInfo, RUN_INFO_FILE, writeRunInfo } from "./run_info.ts";
export { summariseValue } from "./summarise_value.ts";
export { createSha256, preloadNativeSha256, type Sha256, sha256Hex } from "./sha256.ts";
