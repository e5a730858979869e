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
  EnvironmentScanner,
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
  /** The run's long-lived scanner, asked first. @default null: a reader started per round */
  scanner?: EnvironmentScanner | null;
}

/**
 * The sweep of a run under isolation none, with its scanner started when `perl` is there.
 * `scanner.close()` stops it (at the run's end).
 *
 * @param runId The run id.
 * @param psPath Absolute path of `ps`.
 * @param programs The other readers, as the session's command set-up resolved them.
 * @example
 * ```ts ignore
 * const sweep = openMarkerSweep(runId, "/usr/bin/ps", { environmentReader: null, perlPath: null });
 * ```
 */
export function openMarkerSweep(
  runId: string,
  psPath: string,
  programs: { environmentReader: ProcessEnvironmentReader | null; perlPath: string | null } | null,
): MarkerSweep {
  const perlPath = programs?.perlPath ?? null;
  return {
    runId,
    psPath,
    environmentReader: programs?.environmentReader ?? null,
    scanner: perlPath === null ? null : EnvironmentScanner.start(perlPath),
  };
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
    scanner: sweep.scanner ?? null,
    // The command's session (setsid made its leader's pid the session and group id): what stayed
    // in it, and what descends from anything swept, goes too, marker or not.
    sessionIds: group === null ? [] : [group],
  });
  if (killed.length > 0) {
    await run.recorder.event("command.swept", { tool_call_id: toolCallId, killed: killed.length });
  }
}
