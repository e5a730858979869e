/**
 * The sandbox: the path guard, verified file operations and walks.
 *
 * @module
 */

export {
  DEFAULT_SENSITIVE_PATTERNS,
  isWithin,
  type PathAccess,
  PathGuard,
  type PathGuardOptions,
  printable,
  type ResolvedPath,
} from "./path_guard.ts";
export {
  deleteVerifiedFile,
  inspectVerifiedFile,
  ioFailure,
  isNotCapable,
  openProvenForRead,
  openVerifiedForRead,
  type VerifiedFile,
} from "./safe_file.ts";
export { writeFileAtomic } from "./atomic_write.ts";
export { IgnoreRules } from "./ignore_rules.ts";
export { emptyWalkStats, walk, type WalkEntry, type WalkStats } from "./walk.ts";
export { DEFAULT_SEARCH_TIME_BUDGET_MS, describeBudget, TimeBudget } from "./time_budget.ts";
export { isGitConfigPath, presentedText, scrubGitConfig } from "./git_config_view.ts";
