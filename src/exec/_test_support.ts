/**
 * Shared by the tests of this folder: a base command spec, process scans by a unique marker,
 * and a sampler of the process's resident memory.
 *
 * @module
 */

import type { CommandSpec } from "./spawn_confined.ts";
import { type BubblewrapProbe, probeBubblewrap } from "./bubblewrap.ts";

/** `setsid`, as the runtime finds it on Debian. */
export const SETSID = "/usr/bin/setsid";
/** `kill` (procps). */
export const KILL = "/usr/bin/kill";
/** `bwrap` (bubblewrap). */
export const BWRAP = "/usr/bin/bwrap";
/** The POSIX shell the survivor and flood cases run. */
export const SH = "/usr/bin/sh";

/** Whether bubblewrap works here, probed once per test module. */
export const BWRAP_PROBE: BubblewrapProbe = await probeBubblewrap(BWRAP);

/**
 * Why the bubblewrap tests of a module cannot run here, or null when they can: printed once when
 * the module loads; each such test is `ignore`d on it, so the runner counts it as ignored.
 */
export const BUBBLEWRAP_MISSING: string | null = BWRAP_PROBE.usable ? null : BWRAP_PROBE.reason;
if (BUBBLEWRAP_MISSING !== null) {
  console.log(`Ignoring the bubblewrap tests: ${BUBBLEWRAP_MISSING}`);
}

/** A spec running `program` in `cwd` with no isolation, 4 KiB inline caps, no artifact. */
export function baseSpec(
  program: string,
  args: string[],
  cwd: string,
  overrides: Partial<CommandSpec> = {},
): CommandSpec {
  return {
    program,
    args,
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: cwd, TMPDIR: cwd },
    timeoutMs: 10_000,
    stdoutLimitBytes: 4096,
    stderrLimitBytes: 4096,
    artifact: null,
    isolation: { mode: "none" },
    setsidPath: SETSID,
    killPath: KILL,
    ...overrides,
  };
}

/** A fresh real temporary folder under /tmp; remove it with the returned function. */
export async function tempDir(prefix = "kagent-exec-"): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix }));
}

/** A marker unique to one test, usable as a `sleep` duration: `600.<digits>`. */
export function sleepMarker(): string {
  return `600.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
}

/**
 * Pids of live processes whose command line contains `marker`, from `ps -eo pid=,stat=,args=`
 * (reading /proc needs --allow-all; running ps does not). Zombies are left out: they hold no
 * resources, and an init that does not reap (this test machine's) keeps them for good.
 */
export async function processesWith(marker: string): Promise<number[]> {
  const output = await new Deno.Command("/usr/bin/ps", {
    args: ["-eo", "pid=,stat=,args="],
    stdout: "piped",
  }).output();
  const found: number[] = [];
  for (const line of new TextDecoder().decode(output.stdout).split("\n")) {
    const match = line.match(/^\s*(\d+)\s+(\S+)\s+(.*)$/);
    if (match === null || match[2]?.startsWith("Z") || !match[3]?.includes(marker)) continue;
    found.push(Number(match[1]));
  }
  return found;
}

/** Kills the processes carrying `marker` (cleanup after a failed assertion); returns their pids. */
export async function killProcessesWith(marker: string): Promise<number[]> {
  const pids = await processesWith(marker);
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  return pids;
}

/**
 * A TCP listener on 127.0.0.1 that accepts and closes connections: `Deno.listen` when net
 * permission is granted, else a `python3` child (the test task grants run but not net).
 */
export async function listenLocally(): Promise<{ port: number; close(): Promise<void> }> {
  if (Deno.permissions.querySync({ name: "net" }).state === "granted") {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const accepting = (async () => {
      for await (const connection of listener) connection.close();
    })().catch(() => {});
    return {
      port: listener.addr.port,
      async close() {
        listener.close();
        await accepting;
      },
    };
  }
  const server = [
    "import socket, sys",
    "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()",
    "print(s.getsockname()[1], flush=True)",
    "while True: s.accept()[0].close()",
  ].join("\n");
  const child = new Deno.Command("/usr/bin/python3", {
    args: ["-c", server],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
  }
  return {
    port: Number(text.trim()),
    async close() {
      child.kill("SIGKILL");
      await reader.cancel();
      await child.status;
    },
  };
}

/**
 * Starts `sleep <duration>` in a session of its own (out of this process's group, as an escaped
 * process is) with `env` as its whole environment, and waits until `ps` shows it.
 * @returns Its pid.
 */
export async function escapedSleep(duration: string, env: Record<string, string>): Promise<number> {
  const child = new Deno.Command("/usr/bin/setsid", {
    args: ["--fork", "/usr/bin/sleep", duration],
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  await child.status;
  for (let attempt = 0; attempt < 100; attempt++) {
    const [pid] = await processesWith(duration);
    if (pid !== undefined) return pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the sleep ${duration} did not start`);
}
