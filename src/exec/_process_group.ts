/**
 * Signals to a whole process group through the `kill` program: inside a permission-narrowed
 * Worker `Deno.kill` is refused, but running an allowlisted `kill` is not.
 *
 * @module
 */

/**
 * The process group a command leads (its id is the leader's pid). `leader` is the spawned child:
 * its own `kill()` is the fallback when the `kill` program cannot be run.
 *
 * Whether members are left cannot be asked reliably: `kill -0` also counts zombies, and orphans
 * stay zombies for good under an init that does not reap (some containers). So the group is
 * given its grace until the caller's `settled` promise says the command is done (leader exited,
 * pipes closed), and gets KILL in every case.
 */
export class ProcessGroup {
  readonly #killPath: string;
  readonly #pgid: number;
  readonly #leader: Deno.ChildProcess;
  #leaderExited = false;

  /**
   * Follows the group of `leader`.
   *
   * @param killPath Absolute path of `kill` (procps or util-linux).
   * @param leader The child started as a group leader (`setsid`), whose pid is the group id.
   */
  constructor(killPath: string, leader: Deno.ChildProcess) {
    this.#killPath = killPath;
    this.#pgid = leader.pid;
    this.#leader = leader;
    leader.status.then(() => this.#leaderExited = true, () => this.#leaderExited = true);
  }

  /**
   * Ends the group: TERM to every member; then, once `settled` resolves or `graceMs` pass,
   * whichever comes first, KILL to every member (none when TERM found no member).
   *
   * @param graceMs How long members may take to exit after TERM, in milliseconds.
   * @param settled Resolves when the command is visibly done (leader exited, pipes closed).
   */
  async terminate(graceMs: number, settled: Promise<unknown>): Promise<void> {
    if ((await this.signal("TERM")) === false) return;
    await settlesWithin(settled, graceMs);
    await this.signal("KILL");
  }

  /**
   * Sends `signal` to every member: `kill -s <signal> -- -<pgid>`.
   *
   * @returns Whether `kill` found a member (zombies included), or `null` when `kill` could not be
   *   run, in which case the signal went to the leader alone.
   */
  async signal(signal: "TERM" | "KILL"): Promise<boolean | null> {
    try {
      return await runKill(this.#killPath, signal, this.#pgid);
    } catch {
      if (!this.#leaderExited) {
        try {
          this.#leader.kill(signal === "TERM" ? "SIGTERM" : "SIGKILL");
        } catch {
          // The leader exited meanwhile.
        }
      }
      return null;
    }
  }
}

/**
 * Sends KILL to every member of a process group through the `kill` program
 * (`kill -s KILL -- -<processGroupId>`): for a thread where `Deno.kill` is refused (the tool
 * Worker) that must end a group `runConfined` left to it (`process_group_id`).
 *
 * @param killPath Absolute path of `kill` (procps or util-linux).
 * @param processGroupId The group's id, an integer above 1.
 * @returns Whether `kill` found a member (zombies count).
 * @throws {RangeError} When `processGroupId` is not an integer above 1.
 * @throws Whatever `Deno.Command` throws when `kill` cannot be run.
 * @example
 * ```ts
 * import { killGroupWithProgram } from "./_process_group.ts";
 * console.assert((await killGroupWithProgram("/usr/bin/kill", 2147483646)) === false);
 * ```
 */
export async function killGroupWithProgram(
  killPath: string,
  processGroupId: number,
): Promise<boolean> {
  if (!Number.isSafeInteger(processGroupId) || processGroupId <= 1) {
    throw new RangeError(
      `Cannot kill process group "${processGroupId}": a group id is an integer above 1`,
    );
  }
  return await runKill(killPath, "KILL", processGroupId);
}

/** `kill -s <signal> -- -<group>` with an empty environment; whether it found a member. */
async function runKill(killPath: string, signal: "TERM" | "KILL", group: number): Promise<boolean> {
  const { success } = await new Deno.Command(killPath, {
    args: ["-s", signal, "--", `-${group}`],
    clearEnv: true,
    env: {},
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  return success;
}

/**
 * Waits for `promise` at most `milliseconds`.
 *
 * @returns Whether `promise` settled in time.
 */
export async function settlesWithin(
  promise: Promise<unknown>,
  milliseconds: number,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), milliseconds);
  });
  try {
    return await Promise.race([promise.then(() => true, () => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}
