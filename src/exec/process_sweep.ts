/**
 * Finds and kills the processes a command call left behind when it ran without bubblewrap
 * (isolation `none`). Each command gets {@linkcode CALL_MARKER_ENV} in its environment; every
 * descendant inherits it, including those that left the call's process group and session
 * (`setsid`, `nohup … &`, a double fork). After the call the main thread kills the call's
 * process group ({@linkcode killProcessGroup}, in-process), then (after the call, and when the run
 * ends) reads the environments of the user's processes and kills each one carrying the marker
 * ({@linkcode sweepMarked}): through `grep` over `/proc/<pid>/environ` when `sh` and `grep` are
 * there (about 3 ms a round), else through `ps … e` (about 9 ms: `ps` reads much more of every
 * process). Deno itself cannot read `/proc` without --allow-all, which the CLI never has.
 *
 * With `sessionIds` (the call's session, which `setsid` made), each round also kills what stayed in
 * the session or group whatever its environment, and every descendant of a process it kills.
 *
 * Limits, stated plainly: a process that left the session and emptied its own environment (`env
 * -i`, `execve` with a new environment) or overwrote it in memory, once its parent is gone, is not
 * found — which is why isolation `none` asks for every command. If kagent-run is killed, its
 * watchdog (`orphan_watchdog.ts`) sweeps the run's marker. Under bubblewrap the PID namespace ends every process of the command with
 * it, marker or not.
 *
 * @module
 */

import type { EnvironmentScanner } from "./environment_scanner.ts";

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

/** The absolute paths of `sh` and `grep`, which read the environments faster than `ps` does. */
export interface ProcessEnvironmentReader {
  /** Absolute path of a POSIX `sh`, which expands `/proc/[0-9]*\/environ` for `grep`. */
  shPath: string;
  /** Absolute path of GNU `grep` (or any `grep` with `-z`, `-l`, `-s`, `-F`, `-x`). */
  grepPath: string;
}

/** Options of {@linkcode sweepMarked}. */
export interface SweepOptions {
  /** Absolute path of `ps` (procps), which lists processes with their environment. */
  psPath: string;
  /**
   * `sh` and `grep`: each round reads `/proc/<pid>/environ` through them (one process, about a
   * third of the time `ps` takes); a round where they fail falls back to `ps`.
   * @default null: every round uses `ps`
   */
  environmentReader?: ProcessEnvironmentReader | null;
  /**
   * The run's long-lived scanner, asked before any reader is started (no process start per
   * round); a round where it is broken falls back to `environmentReader`, then `ps`.
   * @default null
   */
  scanner?: EnvironmentScanner | null;
  /** Match every marker starting with `marker` (a whole run). @default false */
  prefix?: boolean;
  /**
   * The call's session (and process group) ids: its leader's pid, as `setsid` made it. Each round
   * also kills every process of those sessions or groups, marker or not (one that emptied or
   * overwrote its environment but stayed in the session), and every descendant of a process it
   * kills (one that left the session but whose parent is still there). @default none
   */
  sessionIds?: readonly number[];
}

/**
 * Kills (SIGKILL) every process whose environment holds the entry `KAGENT_RUN_CALL=<value>` with
 * a value equal to `marker`, or starting with it when `prefix` is true; repeats until a round
 * finds none (at most 20 rounds), so a process forking while it is swept is caught too. Only a
 * whole entry counts: `KAGENT_RUN_CALL=<marker>0`, or the same text inside another variable's
 * value, is not a match. This process is never killed.
 *
 * Where the environments are read (Deno reads `/proc` only with --allow-all, which the CLI never
 * has): by the run's `scanner` when it works (one long-lived `perl`, see
 * {@linkcode EnvironmentScanner}); else, with `environmentReader`, by
 * `sh -c 'exec "$0" -lzs "$@" /proc/[0-9]*\/environ' <grep> -Fx -- KAGENT_RUN_CALL=<marker>`
 * (the entry passed as an argument, never through the shell's parser; for a prefix the anchored
 * basic pattern `-e ^KAGENT_RUN_CALL=<marker, escaped>`); when that fails (missing, a `grep`
 * without `-z`), or without it, by `ps -e -ww -o pid= -o args= e`. Both show the environments of the user's own
 * processes only.
 *
 * Needs run permission for those programs and unrestricted run permission for `Deno.kill`: the
 * main thread has both; the tool Worker has neither. Never throws for a process failure: a round
 * whose readers both fail kills nothing.
 *
 * @param marker A {@linkcode callMarker} value, or a run id followed by `/` with `prefix`.
 * @param options See {@linkcode SweepOptions}.
 * @returns The pids killed, each once, in the order found.
 * @throws {TypeError} When `marker` is empty or has white space.
 * @example
 * ```ts
 * import { sweepMarked } from "./process_sweep.ts";
 * const killed = await sweepMarked("no-such-run/", {
 *   psPath: "/usr/bin/ps",
 *   environmentReader: { shPath: "/bin/sh", grepPath: "/usr/bin/grep" },
 *   prefix: true,
 * });
 * console.assert(killed.length === 0);
 * ```
 */
export async function sweepMarked(marker: string, options: SweepOptions): Promise<number[]> {
  if (marker === "" || /\s/.test(marker)) {
    throw new TypeError(`Cannot sweep processes: the marker "${marker}" is empty or has spaces`);
  }
  const needle = `${CALL_MARKER_ENV}=${marker}`;
  const prefix = options.prefix === true;
  const reader = options.environmentReader ?? null;
  const killed: number[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const scanned = await options.scanner?.scan(needle, prefix) ?? null;
    const marked = scanned?.filter((pid) => pid !== Deno.pid) ??
      (reader === null ? null : await grepEnvironments(reader, marker, prefix)) ??
      await markedProcesses(options.psPath, needle, prefix);
    const sessions = options.sessionIds ?? [];
    const found = marked.length === 0 && sessions.length === 0
      ? marked
      : withKin(marked, sessions, await processTable(options.psPath));
    if (found.length === 0) break;
    for (const pid of found) {
      try {
        Deno.kill(pid, "SIGKILL");
        // A process killed in one round can still be read in the next, while it dies.
        if (!killed.includes(pid)) killed.push(pid);
      } catch {
        // Gone meanwhile, or not ours to kill.
      }
    }
  }
  return killed;
}

/**
 * Kills (SIGKILL) every member of the process group `processGroupId` (`kill(-pgid, SIGKILL)`, in
 * this process: no program is started). Members that left the group (`setsid`) are not in it:
 * {@linkcode sweepMarked} finds those.
 *
 * Needs unrestricted run permission (`Deno.kill`): the main thread has it, the tool Worker not.
 *
 * @param processGroupId The group's id (its leader's pid), an integer above 1.
 * @returns Whether the group had a member (zombies count), false when it had none.
 * @throws {RangeError} When `processGroupId` is not an integer above 1 (`-1` and `-0` would
 *   reach every process of the user, or this process's own group).
 * @throws {Deno.errors.NotCapable} When this thread may not send signals; the group is left.
 * @example
 * ```ts
 * import { killProcessGroup } from "./process_sweep.ts";
 * const child = new Deno.Command("sleep", { args: ["30"], detached: true }).spawn();
 * console.assert(killProcessGroup(child.pid) === true);
 * console.assert((await child.status).signal === "SIGKILL");
 * ```
 */
export function killProcessGroup(processGroupId: number): boolean {
  if (!Number.isSafeInteger(processGroupId) || processGroupId <= 1) {
    throw new RangeError(
      `Cannot kill process group "${processGroupId}": a group id is an integer above 1`,
    );
  }
  try {
    Deno.kill(-processGroupId, "SIGKILL");
    return true;
  } catch (error: unknown) {
    // ESRCH: no process is in the group any more.
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Pids whose environment holds the entry `KAGENT_RUN_CALL=<marker>` (with `prefix`, an entry
 * starting so), read by `grep` over `/proc/[0-9]*\/environ`; null when `sh` or `grep` did not
 * do it. The reader
 * carries that entry in its own environment and must find itself: a `grep` that reads nothing
 * (another program at that path, `/proc` unreadable) fails that check instead of reporting no
 * process. Anything on stderr (a missing program, an option `grep` does not know) fails too: `-s`
 * keeps it free of the unreadable and vanished files.
 */
async function grepEnvironments(
  reader: ProcessEnvironmentReader,
  marker: string,
  prefix: boolean,
): Promise<number[] | null> {
  const needle = `${CALL_MARKER_ENV}=${marker}`;
  // -z: NUL ends an entry; -x: the whole entry, or ^ anchoring its start (a basic pattern).
  const match = prefix
    ? ["-e", `^${needle.replace(/[\\.[\]*^$]/g, "\\$&")}`]
    : ["-Fx", "--", needle];
  let listing: Deno.CommandOutput;
  let self: number;
  try {
    const child = new Deno.Command(reader.shPath, {
      args: ["-c", 'exec "$0" -lzs "$@" /proc/[0-9]*/environ', reader.grepPath, ...match],
      clearEnv: true,
      env: { [CALL_MARKER_ENV]: marker },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    self = child.pid;
    listing = await child.output();
  } catch {
    return null;
  }
  if (listing.stderr.length > 0 || listing.signal !== null || listing.code > 2) return null;
  const pids: number[] = [];
  let foundSelf = false;
  for (const line of new TextDecoder().decode(listing.stdout).split("\n")) {
    const found = /^\/proc\/(\d+)\/environ$/.exec(line);
    if (found === null) continue;
    const pid = Number(found[1]);
    if (pid === self) foundSelf = true;
    else if (pid !== Deno.pid) pids.push(pid);
  }
  return foundSelf ? pids : null;
}

/** Pids whose `ps` line holds `needle` as a whole word (or as a word's start with prefix). */
async function markedProcesses(psPath: string, needle: string, prefix: boolean): Promise<number[]> {
  const pids: number[] = [];
  for (const line of await psLines(psPath, ["-e", "-ww", "-o", "pid=", "-o", "args=", "e"])) {
    const match = /^\s*(\d+)\s(.*)$/.exec(line);
    if (match === null) continue;
    const pid = Number(match[1]);
    if (pid === Deno.pid) continue;
    const words = (match[2] ?? "").split(" ");
    if (words.some((word) => prefix ? word.startsWith(needle) : word === needle)) pids.push(pid);
  }
  return pids;
}

/** The lines `ps` prints for `args` (empty environment), or none when it cannot run. */
async function psLines(psPath: string, args: string[]): Promise<string[]> {
  try {
    const listing = await new Deno.Command(psPath, {
      args,
      clearEnv: true,
      env: {},
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return new TextDecoder().decode(listing.stdout).split("\n");
  } catch {
    return [];
  }
}

/** One process of {@linkcode processTable}. */
interface ProcessRow {
  pid: number;
  parent: number;
  session: number;
  group: number;
}

/**
 * Every live process with its parent, session and group (`ps -e -o pid=,ppid=,sid=,pgid=,stat=`),
 * zombies left out.
 */
async function processTable(psPath: string): Promise<ProcessRow[]> {
  const rows: ProcessRow[] = [];
  const columns = ["pid=", "ppid=", "sid=", "pgid=", "stat="].flatMap((column) => ["-o", column]);
  for (const line of await psLines(psPath, ["-e", ...columns])) {
    const words = line.trim().split(/\s+/);
    // A zombie (Z) or dead (X) process is already killed: only its parent's wait is missing.
    if (words.length !== 5 || /^[ZX]/.test(words[4] as string)) continue;
    const fields = words.slice(0, 4).map(Number);
    if (fields.some((field) => !Number.isSafeInteger(field))) continue;
    const [pid, parent, session, group] = fields as [number, number, number, number];
    rows.push({ pid, parent, session, group });
  }
  return rows;
}

/**
 * `marked`, the members of `sessions` (as session or process group), and every descendant of
 * those, from one table read before anything is killed (a child is found by its parent while the
 * parent lives). Never this process or an ancestor's id 1.
 */
function withKin(
  marked: readonly number[],
  sessions: readonly number[],
  table: readonly ProcessRow[],
): number[] {
  const found = new Set(marked);
  for (const row of table) {
    if (sessions.includes(row.session) || sessions.includes(row.group)) found.add(row.pid);
  }
  const children = new Map<number, number[]>();
  for (const row of table) children.set(row.parent, [...children.get(row.parent) ?? [], row.pid]);
  const pending = [...found];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    for (const child of children.get(pid) ?? []) {
      if (!found.has(child)) {
        found.add(child);
        pending.push(child);
      }
    }
  }
  found.delete(Deno.pid);
  found.delete(1);
  return [...found];
}
