/**
 * Commands, confined: the program allowlist, the child environment, argument analysis, and the
 * confinement module every process of a run goes through (docs/CONFINEMENT.md): confinement
 * domains and their private folders (`confinement_domain.ts`), the plan of each process
 * (`confinement_plan.ts` over `command_profile.ts`, `bubblewrap.ts`), the spawn with its time limit
 * (`spawn_confined.ts`) or a long-lived one (`confined_process.ts`), the watch and quarantine, and
 * the sweep of what a process left behind (`process_sweep.ts`). The door other folders use
 * (`toolsets/exec`, `toolsets/fs`, `hooks`, `mcp_client`, `runtime`, `session`).
 *
 * @module
 */

export { resolveCommand, resolveScript } from "./resolve_command.ts";
export { MAX_SKILL_NAME_LENGTH, skillNameProblem } from "./skill_name.ts";
export {
  type AllowedProgram,
  AllowlistError,
  matchProgram,
  resolveAllowlist,
} from "./program_allowlist.ts";
export { EnvironmentScanner } from "./environment_scanner.ts";
export { startOrphanWatchdog } from "./orphan_watchdog.ts";
export {
  CALL_MARKER_ENV,
  callMarker,
  killProcessGroup,
  type ProcessEnvironmentReader,
  sweepMarked,
} from "./process_sweep.ts";
export {
  type CommandOutcome,
  DEFAULT_KILL_GRACE_MS,
  type IsolationPlan,
  killGroupWithProgram,
  runConfined,
} from "./spawn_confined.ts";
export {
  buildChildEnvironment,
  commandSearchPath,
  DEFAULT_ENV_ALLOWLIST,
  expandAllowlist,
} from "./child_environment.ts";
export { gitSafeEnvironment, unsafeGitConfigKeys, withSafeDiffOptions } from "./git_safe_mode.ts";
export { quarantineCreated } from "./command_profile.ts";
export { ProtectedPathWatch, type ProtectedPathWatchOptions } from "./protected_path_watch.ts";
export { newRepositoriesAtClose } from "./repositories_at_close.ts";
export { scanTree } from "./protected_tree.ts";

export { domainFolders, prepareDomains, runViewsFolder } from "./confinement_domain.ts";
export { confinementPlan, type ProfileInputs, readOnlyFolderPlan } from "./confinement_plan.ts";
export { endConfinedProcess, startConfinedProcess } from "./confined_process.ts";
export { analyzeArgv } from "./argv_analysis.ts";

export { type BubblewrapProbe, probeBubblewrap } from "./bubblewrap.ts";
export { hostSystemMounts, SYSTEM_FOLDERS, type SystemMount } from "./system_mounts.ts";
