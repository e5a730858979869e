/**
 * The composition root: a session prepares a config's policy and opens a run (guard, tool set,
 * Worker, audit, runtime).
 *
 * @module
 */

export { openRunSession, type RunSession } from "./open_run_session.ts";
export { type PreparedPolicy, preparePolicy } from "./prepare_policy.ts";
export { SHELL_STARTUP_FILES } from "./protected_paths.ts";
export type { ResumeSegment, SessionAgent, SessionOptions } from "./session_options.ts";
export type { SessionRun } from "./session_run.ts";
export { createRunFolder, recordStartFailure } from "./start_up_failure.ts";
