/**
 * Finds and kills the processes a command call left behind when it ran without bubblewrap
 * (isolation `none`). Each command gets {@linkcode CALL_MARKER_ENV} in its environment; every
 * descendant inherits it, including those that left the call's process group and session
 * (`setsid`, `nohup … &`, a double fork). After the call (and when the run ends) the main thread
 * lists the user's processes with their environments (`ps … e`) and kills each one carrying the
 * marker.
 *
 * Limits, stated plainly: a process that empties its own environment (`env -i`, `execve` with a
 * new environment) or overwrites it in memory is not found — which is why isolation `none` asks
 * for every command. Under bubblewrap the PID namespace ends every process of the command with
 * it, marker or not.
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

/** Options of {@linkcode sweepMarked}. */
export interface SweepOptions {
  /** Absolute path of `ps` (procps), which lists processes with their environment. */
  psPath: string;
  /** Match every marker starting with `marker` (a whole run). @default false */
  prefix?: boolean;
}

/**
 * Kills (SIGKILL) every process whose environment holds `KAGENT_RUN_CALL=<value>` with a value
 * equal to `marker`, or starting with it when `prefix` is true; repeats until a round finds none
 * (at most 20 rounds), so a process forking while it is swept is caught too. The environments are
 * read through `ps -e -ww -o pid= -o args= e` (Deno reads `/proc` only with --allow-all); `ps`
 * shows the environment of the user's own processes only. This process is never killed.
 *
 * Needs run permission for `ps` and unrestricted run permission for `Deno.kill`: the main thread
 * has both; the tool Worker has neither. Never throws: a failing `ps` kills nothing.
 *
 * @param marker A {@linkcode callMarker} value, or a run id followed by `/` with `prefix`.
 * @param options See {@linkcode SweepOptions}.
 * @returns The pids killed, in the order found.
 * @example
 * ```ts
 * import { sweepMarked } from "./process_sweep.ts";
 * const killed = await sweepMarked("no-such-run/", { psPath: "/usr/bin/ps", prefix: true });
 * console.assert(killed.length === 0);
 * ```
 */
export async function sweepMarked(marker: string, options: SweepOptions): Promise<number[]> {
  if (marker === "" || /\s/.test(marker)) {
    throw new TypeError(`Cannot sweep processes: the marker "${marker}" is empty or has spaces`);
  }
  const needle = `${CALL_MARKER_ENV}=${marker}`;
  const killed: number[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const found = await markedProcesses(options.psPath, needle, options.prefix === true);
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

/** Pids whose `ps` line holds `needle` as a whole word (or as a word's start with prefix). */
async function markedProcesses(psPath: string, needle: string, prefix: boolean): Promise<number[]> {
  let listing: Deno.CommandOutput;
  try {
    listing = await new Deno.Command(psPath, {
      args: ["-e", "-ww", "-o", "pid=", "-o", "args=", "e"],
      clearEnv: true,
      env: {},
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const line of new TextDecoder().decode(listing.stdout).split("\n")) {
    const match = /^\s*(\d+)\s(.*)$/.exec(line);
    if (match === null) continue;
    const pid = Number(match[1]);
    if (pid === Deno.pid) continue;
    const words = (match[2] ?? "").split(" ");
    if (words.some((word) => prefix ? word.startsWith(needle) : word === needle)) pids.push(pid);
  }
  return pids;
}
