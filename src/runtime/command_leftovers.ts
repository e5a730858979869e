/**
 * What a command call may leave running, ended on the main thread once the call is done: the
 * process group the Worker left to it (isolation none), then every process carrying the call's
 * marker (`exec/process_sweep.ts`).
 *
 * @module
 */

import type { AuditRecorder } from "../audit/mod.ts";
import {
  callMarker,
  killProcessGroup,
  type ProcessEnvironmentReader,
  sweepMarked,
} from "../exec/mod.ts";

/** The run whose call markers are swept, and the programs that read the environments. */
export interface MarkerSweep {
  /** The run id: a call's marker is `<run id>/<tool call id>`. */
  runId: string;
  /** Absolute path of `ps`, the reader that is always there. */
  psPath: string;
  /** `sh` and `grep`, the faster reader. @default null: `ps` alone */
  environmentReader?: ProcessEnvironmentReader | null;
}

/**
 * Ends what the command call `toolCallId` left: SIGKILL to the process group the Worker left
 * (`ToolOutcome.processGroupId`; in-process, no program started), then, with a sweep, the marker
 * sweep; records `command.swept` with the number of processes the sweep killed, when any.
 *
 * @param processGroupId The group the Worker left, or null.
 * @param run `sweep`: the run's sweep, null under bubblewrap (the PID namespace ended every
 *   process); `recorder`: where `command.swept` goes.
 * @throws {Error} When this thread may not send signals (run permission with a list): the group
 *   would outlive the call.
 * @example
 * ```ts ignore
 * await endCommandLeftovers("call_1", outcome.processGroupId ?? null, {
 *   sweep: { runId, psPath: "/usr/bin/ps" },
 *   recorder,
 * });
 * ```
 */
export async function endCommandLeftovers(
  toolCallId: string,
  processGroupId: number | null,
  run: { sweep: MarkerSweep | null; recorder: AuditRecorder },
): Promise<void> {
  const group = processGroupId;
  if (group !== null) {
    try {
      killProcessGroup(group);
    } catch (error: unknown) {
      throw new Error(
        `cannot kill the command's process group ${group}: ${
          error instanceof Error ? error.message : String(error)
        } (the main thread needs --allow-run without a list to signal process groups)`,
      );
    }
  }
  const sweep = run.sweep;
  if (sweep === null) return;
  const killed = await sweepMarked(callMarker(sweep.runId, toolCallId), {
    psPath: sweep.psPath,
    environmentReader: sweep.environmentReader ?? null,
  });
  if (killed.length > 0) {
    await run.recorder.event("command.swept", { tool_call_id: toolCallId, killed: killed.length });
  }
}
