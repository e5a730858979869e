/**
 * The sandbox: the path guard, verified file operations and walks.
 *
 * @module
 */

export {
  DEFAULT_SENSITIVE_PATTERNS,
  isWithin,
  MAX_PATH_BYTES,
  MAX_SYMLINK_HOPS,
  type PathAccess,
  type PathCheck,
  PathGuard,
  type PathGuardOptions,
  printable,
  type ResolvedPath,
} from "./path_guard.ts";
export {
  chainFailure,
  changedFailure,
  deleteVerifiedFile,
  inspectVerifiedFile,
  ioFailure,
  isNotCapable,
  openProvenForRead,
  openVerifiedForRead,
  type ReadOptions,
  type VerifiedFile,
} from "./safe_file.ts";
export { type AtomicWriteOptions, writeFileAtomic } from "./atomic_write.ts";
export { IGNORE_FILE_NAMES, IgnoreRules, readIgnoreFile } from "./ignore_rules.ts";
export { emptyWalkStats, walk, type WalkEntry, type WalkOptions, type WalkStats } from "./walk.ts";
export { DEFAULT_SEARCH_TIME_BUDGET_MS, describeBudget, TimeBudget } from "./time_budget.ts";
export {
  isGitConfigPath,
  presentedText,
  type ScrubbedGitConfig,
  scrubGitConfig,
} from "./git_config_view.ts";
