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
  CHAIN_FORMAT,
  chainAnchor,
  CHAINED_LOGS,
  type ChainedLog,
  chainLine,
  type ChainLink,
  lineHash,
} from "./audit_chain.ts";
export {
  AUDIT_EVENT_TYPES,
  type AuditEvent,
  type AuditEventFields,
  type AuditEventType,
  type AuditPolicy,
  type AuditProviderOrigin,
} from "./audit_event.ts";
export { ArtifactStore, type ArtifactStoreOptions, type StoredArtifact } from "./artifact_store.ts";
export {
  AuditRecorder,
  type AuditRecorderOptions,
  type WriteFailureHandler,
} from "./audit_recorder.ts";
export { type EventObserver, ObservedJsonlWriter } from "./event_observers.ts";
export { AuditWriteError, type AuditWriteFailure } from "./audit_write_error.ts";
export { createRunId } from "./create_run_id.ts";
export { type JsonlFile, JsonlWriter, type JsonlWriterOptions } from "./jsonl_writer.ts";
export {
  applySpans,
  MIN_SECRET_LENGTH,
  type RedactionKind,
  type RedactionSpan,
  Redactor,
  type RedactorOptions,
  type StreamRedaction,
} from "./redactor.ts";
export { isSecretKey } from "./_secret_patterns.ts";
export { RunFolder, type RunFolderOptions, type RunFolderPaths } from "./run_folder.ts";
export {
  childRuns,
  hashIfFile,
  hmacSha256Hex,
  listFiles,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  type ManifestSignature,
  manifestSigningInput,
  type RunManifest,
  SEALED_FILES,
  SEALED_FOLDERS,
  sealedFileHashes,
  type SealOptions,
  sealRun,
  SIGNATURE_ALGORITHM,
  type SigningKey,
} from "./run_manifest.ts";
export {
  CONFIG_COPY_FILE,
  fileSha256,
  modelInfo,
  RUN_INFO_FILE,
  type RunInfo,
  type RunModelInfo,
  writeRunInfo,
} from "./run_info.ts";
export { MAX_SUMMARY_ITEMS, type SummariseOptions, summariseValue } from "./summarise_value.ts";
export { createSha256, preloadNativeSha256, type Sha256, sha256Hex } from "./sha256.ts";
