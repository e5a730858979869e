/**
 * A long-lived confined process that talks over its pipes (a stdio MCP server): started like a
 * command (`setsid`, a cleared environment, under bubblewrap the domain's plan), left running for
 * the caller to speak to, and ended by a kill of its whole process group.
 *
 * @module
 */

import { setsidArguments } from "./_launch_args.ts";
import { killProcessGroup } from "./process_sweep.ts";
import type { IsolationPlan } from "./spawn_confined.ts";

/** What to start; see {@linkcode startConfinedProcess}. */
export interface ConfinedProcessSpec {
  /**
   * The program: an absolute path under bubblewrap; under isolation none a name is searched in
   * `env.PATH` by `setsid`.
   */
  program: string;
  /** argv[1..], passed as separate elements, never through a shell. */
  args: readonly string[];
  /** Absolute working folder. */
  cwd: string;
  /**
   * The whole environment; nothing is inherited. Under bubblewrap an absolute `HOME` and `TMPDIR`
   * are bound read-write: the domain's private folders.
   */
  env: Record<string, string>;
  /** The confinement: none (own process group only) or a bubblewrap plan (`confinementPlan`). */
  isolation: IsolationPlan;
  /** Absolute path of `setsid`, so the process leads its own group. */
  setsidPath: string;
}

/**
 * Starts `spec.program` with piped stdin, stdout and stderr, as the leader of its own process
 * group (`setsid -- …`, under bubblewrap `setsid -- bwrap … -- …`), with exactly `spec.env`.
 * The caller reads and writes the pipes and ends it with {@linkcode endConfinedProcess}.
 *
 * @returns The child process; its pid is its process group's id.
 * @throws {TypeError} When a path is malformed or an argument, a name or a value holds a NUL.
 * @throws {Deno.errors.NotFound} When `setsid` cannot be run.
 * @example
 * ```ts
 * import { endConfinedProcess, startConfinedProcess } from "./confined_process.ts";
 * const child = startConfinedProcess({
 *   program: "/usr/bin/cat", args: [], cwd: "/", env: {}, isolation: { mode: "none" },
 *   setsidPath: "/usr/bin/setsid",
 * });
 * await endConfinedProcess(child);
 * ```
 */
export function startConfinedProcess(spec: ConfinedProcessSpec): Deno.ChildProcess {
  for (const [what, path] of [["setsid path", spec.setsidPath], ["working folder", spec.cwd]]) {
    if (typeof path !== "string" || !path.startsWith("/") || path.includes("\0")) {
      throw new TypeError(`Cannot start a process: the ${what} "${path}" is not an absolute path`);
    }
  }
  for (const text of [spec.program, ...spec.args, ...Object.values(spec.env)]) {
    if (text.includes("\0")) {
      throw new TypeError(`Cannot start "${spec.program}": an argument or a value contains NUL`);
    }
  }
  return new Deno.Command(spec.setsidPath, {
    args: setsidArguments(spec.isolation, spec),
    cwd: spec.cwd,
    clearEnv: true,
    env: spec.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/**
 * Kills the process group `child` leads (KILL, from this thread, no program started:
 * `killProcessGroup`) and waits
 * for `child` to exit. Under bubblewrap the kill ends `bwrap`, whose PID namespace takes every
 * process inside with it. Safe to call twice.
 *
 * @example
 * ```ts ignore
 * await endConfinedProcess(child);
 * ```
 */
export async function endConfinedProcess(child: Deno.ChildProcess): Promise<void> {
  try {
    // No group yet: `setsid` has not made it (a process ended right after its start). The leader
    // itself then goes: nothing else of the process exists before that.
    if (!killProcessGroup(child.pid)) child.kill("SIGKILL");
  } catch {
    // This thread may not signal (a Worker): the group is left to the run's sweep.
  }
  await child.status.catch(() => undefined);
}
