/**
 * The composition root: a session prepares a config's policy and opens a run (guard, tool set,
 * Worker, audit, runtime).
 *
 * @module
 */

export { openRunSession, type RunSession } from "./open_run_session.ts";
export { preparePolicy } from "./prepare_policy.ts";

export type { ResumeSegment, SessionAgent, SessionOptions } from "./session_options.ts";
export type { SessionRun } from "./session_run.ts";
export { recordStartFailure } from "./start_up_failure.ts";
