/**
 * Long-term memory: the provider contract and its limits, the file and HTTP providers behind
 * {@linkcode memoryProvider}, the settings both threads share, and the workspace's project identity.
 *
 * @module
 */

export { memoryProvider, type MemorySettings, type MemoryWriteMode } from "./memory_settings.ts";
export {
  MAX_MEMORY_BYTES,
  MAX_MEMORY_TAGS,
  MAX_QUERY_LENGTH,
  MAX_RECALL_LIMIT,
  MemoryError,
  type MemoryProvider,
  type MemoryRecord,
  validateContent,
  validateLimit,
  validateQuery,
  validateScope,
  validateTags,
} from "./memory_provider.ts";
export { type ProjectIdentity, projectIdentity } from "./project_identity.ts";
export { type MemoryCandidate, newCandidate } from "./memory_candidate.ts";
export {
  type ListedCandidate,
  promoteCandidates,
  type PromotionRecord,
  PROMOTIONS_FILE,
  readRunCandidates,
  type RunCandidates,
} from "./promote_candidates.ts";
