/**
 * The tool Worker of a session: its options from the prepared policy and the config, and the wait
 * for its start (a failure recorded, then thrown). `open_run_session.ts` starts it as soon as the
 * policy is prepared and awaits it where it is needed.
 *
 * @module
 */

import type { AuditRecorder, RunFolder } from "../audit/mod.ts";
import type { LoadedConfig } from "../config/mod.ts";
import type { ExecContext } from "../tools/mod.ts";
import { DEFAULT_HANDLER_TIMEOUT_MS, type ToolWorker } from "../worker/mod.ts";
import type { PreparedPolicy } from "./prepare_policy.ts";
import { searchPrefilter } from "./search_prefilter.ts";
import type { SessionOptions } from "./session_options.ts";

/** Added to `tools.max_timeout_ms` for the handler timeout: commands keep their own time. */
const HANDLER_GRACE_MS = 15_000;

/** The tool Worker's options from the session's tool settings. */
export function workerOptions(
  prepared: PreparedPolicy,
  exec: ExecContext | null,
  config: LoadedConfig,
  folder: RunFolder,
  options: SessionOptions,
): Parameters<typeof ToolWorker.start>[0] {
  return {
    exec,
    files: {
      search_time_budget_ms: config.limits.search_time_budget_ms,
      hide_sensitive_in_listings: config.sandbox.hide_sensitive_in_listings,
    },
    commandTools: prepared.toolSettings.command_tools,
    memory: prepared.toolSettings.memory,
    skillDirs: prepared.toolSettings.skill_dirs,
    declarativeTools: prepared.toolSettings.declarative_tools,
    guard: prepared.guard,
    run: {
      run_id: folder.id,
      workspace: folder.paths.workspace,
      deliverables: folder.paths.deliverables,
    },
    permissions: prepared.workerPermissions,
    fetchHosts: prepared.memory === null ? [] : prepared.network.memory,
    searchPrefilter: searchPrefilter(config, prepared.guard, prepared.commands, options),
    ...(options.memoryFetch === undefined ? {} : { fetch: options.memoryFetch }),
    ...(options.workerEntry === undefined ? {} : { entry: options.workerEntry }),
    // Commands keep their own time (≤ tools.max_timeout_ms); this only catches a stuck handler.
    handlerTimeoutMs: options.handlerTimeoutMs ??
      Math.max(DEFAULT_HANDLER_TIMEOUT_MS, config.tools.max_timeout_ms + HANDLER_GRACE_MS),
  };
}

/** Waits for the tool Worker started early; a failure is recorded, then thrown. */
export async function startedWorker(
  starting: Promise<ToolWorker>,
  recorder: AuditRecorder,
): Promise<ToolWorker> {
  try {
    return await starting;
  } catch (error) {
    await recorder.error({
      source: "runtime",
      message: `Cannot start the tool Worker: ${String(error)}`,
    });
    await recorder.close();
    throw error;
  }
}
