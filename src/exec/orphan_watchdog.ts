/**
 * The run's watchdog under isolation `none`: if kagent-run dies without ending its run (`kill -9`,
 * a crash), what its commands left running is killed anyway. Deno cannot ask the kernel for a
 * parent-death signal (`PR_SET_PDEATHSIG`), so the watchdog is a small `sh` in its own session
 * (`setsid`: a signal to kagent-run's group does not reach it) that blocks reading a pipe whose
 * only writer is kagent-run. A normal end writes `done` and the watchdog exits; when the pipe
 * closes without it (the writer died), the watchdog sweeps every process whose environment holds
 * the run's call marker (`KAGENT_RUN_CALL=<run id>/…`), reading `/proc/<pid>/environ` with `grep`,
 * in rounds until one finds none (at most 20).
 *
 * Limits, stated plainly: a process that emptied or overwrote its environment is not found by
 * the watchdog (the sweeps after each call also kill by session and process group; the watchdog
 * has only the marker); and `kill -9` of the watchdog itself, or of the whole session, leaves
 * the commands running.
 *
 * @module
 */

/** What {@linkcode startOrphanWatchdog} needs: absolute paths of `setsid`, `sh` and `grep`. */
export interface OrphanWatchdogPrograms {
  setsidPath: string;
  shPath: string;
  grepPath: string;
}

/** A started watchdog. */
export interface OrphanWatchdog {
  /** The watchdog's pid (its session's id). */
  readonly pid: number;
  /** Tells the watchdog the run ended normally: it exits without sweeping. Never rejects. */
  stop(): Promise<void>;
}

/**
 * The watchdog's script: `$0` is `grep`, `$1` the anchored pattern of the run's marker. `kill` is
 * the shell's own; the watchdog never kills itself.
 */
const SCRIPT = `IFS= read -r line
[ "$line" = done ] && exit 0
n=0
while [ "$n" -lt 20 ]; do
  found=
  for f in $("$0" -lzs -e "$1" /proc/[0-9]*/environ); do
    p=\${f#/proc/}; p=\${p%/environ}
    [ "$p" = "$$" ] && continue
    kill -KILL "$p" 2>/dev/null && found=1
  done
  [ -z "$found" ] && exit 0
  n=$((n + 1))
done`;

/**
 * Starts the watchdog of run `runId`; it outlives this process only to sweep after it.
 *
 * @param runId The run id (letters, digits, `-`): the marker prefix swept is `<runId>/`.
 * @param programs See {@linkcode OrphanWatchdogPrograms}.
 * @returns The watchdog; call `stop()` when the run ends normally.
 * @throws {TypeError} When `runId` has characters other than letters, digits and `-`.
 * @throws Whatever `Deno.Command.spawn` throws (a missing program, no run permission).
 * @example
 * ```ts ignore
 * const watchdog = startOrphanWatchdog(runId, {
 *   setsidPath: "/usr/bin/setsid", shPath: "/usr/bin/sh", grepPath: "/usr/bin/grep",
 * });
 * // … the run …
 * await watchdog.stop();
 * ```
 */
export function startOrphanWatchdog(
  runId: string,
  programs: OrphanWatchdogPrograms,
): OrphanWatchdog {
  if (!/^[A-Za-z0-9-]+$/.test(runId)) {
    throw new TypeError(
      `Cannot watch run "${runId}": a run id has only letters, digits and "-"`,
    );
  }
  const child = new Deno.Command(programs.setsidPath, {
    args: [programs.shPath, "-c", SCRIPT, programs.grepPath, `^KAGENT_RUN_CALL=${runId}/`],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  // Neither the process nor its pipe keeps this process alive.
  child.unref();
  const writer = child.stdin.getWriter();
  let stopped: Promise<void> | null = null;
  return {
    pid: child.pid,
    stop() {
      stopped ??= (async () => {
        try {
          await writer.write(new TextEncoder().encode("done\n"));
          await writer.close();
        } catch {
          // The watchdog is gone already: nothing to stop.
        }
        // Waited for, so that no watchdog outlives a run that ended normally.
        child.ref();
        await child.status.catch(() => {});
      })();
      return stopped;
    },
  };
}
