/**
 * Finds and kills the processes a command call left behind when it ran without bubblewrap
 * (isolation `none`). Each command gets {@linkcode CALL_MARKER_ENV} in its environment; every
 * descendant inherits it, including those that left the call's process group and session
 * (`setsid`, `nohup … &`, a double fork). After the call (and when the run ends) the main thread
 * reads `/proc/<pid>/environ` of the user's processes and kills each one carrying the marker.
 *
 * Limits, stated plainly: a process that empties its own environment (`env -i`, `execve` with a
 * new environment) or overwrites it in memory is not found — which is why isolation `none` asks
 * for every command. Under bubblewrap the PID namespace ends every process of the command with
 * it, marker or not. Linux only: elsewhere {@linkcode sweepMarked} finds nothing.
 *
 * @module
 */

/** The environment variable that names the call a process belongs to. */
export const CALL_MARKER_ENV = "KAGENT_RUN_CALL";

/**
 * The marker value of one call: `<run id>/<tool call id>` (a run's markers share the prefix
 * `<run id>/`).
 *
 * @example
 * ```ts
 * import { callMarker } from "./process_sweep.ts";
 * console.assert(callMarker("20261123T101010Z-abc123", "call_1") === "20261123T101010Z-abc123/call_1");
 * ```
 */
export function callMarker(runId: string, toolCallId: string): string {
  return `${runId}/${toolCallId}`;
}

/** How many rounds {@linkcode sweepMarked} makes at most (a process may fork while it is swept). */
const MAX_ROUNDS = 20;

/**
 * Kills (SIGKILL) every process whose environment holds `KAGENT_RUN_CALL=<value>` with a value
 * equal to `marker`, or starting with it when `prefix` is true; repeats until a round finds none
 * (at most 20 rounds), so a process forking while it is swept is caught too. Processes of other
 * users and those that cannot be read are skipped; this process is never killed.
 *
 * Needs read permission for `/proc` and unrestricted run permission (for `Deno.kill`): the main
 * thread has both; the tool Worker has neither.
 *
 * @param marker A {@linkcode callMarker} value, or a run id followed by `/` with `prefix`.
 * @param options `prefix`: match every marker starting with `marker`. @default false
 * @returns The pids killed, in the order found.
 * @example
 * ```ts
 * import { sweepMarked } from "./process_sweep.ts";
 * const killed = sweepMarked("no-such-run/", { prefix: true });
 * console.assert(killed.length === 0);
 * ```
 */
export function sweepMarked(marker: string, options: { prefix?: boolean } = {}): number[] {
  if (marker === "") throw new TypeError("Cannot sweep processes: the marker is empty");
  const needle = new TextEncoder().encode(`${CALL_MARKER_ENV}=${marker}`);
  const killed: number[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const found = markedProcesses(needle, options.prefix === true);
    if (found.length === 0) break;
    for (const pid of found) {
      try {
        Deno.kill(pid, "SIGKILL");
        killed.push(pid);
      } catch {
        // Gone meanwhile, or not ours to kill.
      }
    }
  }
  return killed;
}

/** Pids whose environment holds `needle` as a whole entry (or as an entry's start with prefix). */
function markedProcesses(needle: Uint8Array, prefix: boolean): number[] {
  const pids: number[] = [];
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^[0-9]+$/.test(entry.name)) continue;
    const pid = Number(entry.name);
    if (pid === Deno.pid) continue;
    let environ: Uint8Array;
    try {
      environ = Deno.readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue; // Another user's, or gone.
    }
    if (holdsEntry(environ, needle, prefix)) pids.push(pid);
  }
  return pids;
}

/** Whether the NUL-separated `environ` has an entry equal to (or, with prefix, starting with) `needle`. */
function holdsEntry(environ: Uint8Array, needle: Uint8Array, prefix: boolean): boolean {
  let start = 0;
  while (start < environ.length) {
    let end = environ.indexOf(0, start);
    if (end === -1) end = environ.length;
    const length = end - start;
    if (length === needle.length || (prefix && length > needle.length)) {
      let same = true;
      for (let index = 0; index < needle.length; index++) {
        if (environ[start + index] !== needle[index]) {
          same = false;
          break;
        }
      }
      if (same) return true;
    }
    start = end + 1;
  }
  return false;
}
