/**
 * Runs one program as its own process group (optionally inside bubblewrap) with a deadline,
 * bounded output capture, and a kill of the whole group: the engine of `exec.run_command`.
 *
 * @module
 */

import type { BwrapPlan } from "./bubblewrap.ts";
import { OutputCapture, type StreamResult, type WrittenArtifact } from "./output_capture.ts";
import { launchArgs } from "./_launch_args.ts";
import { ProcessGroup, settlesWithin } from "./_process_group.ts";

export type { StreamResult } from "./output_capture.ts";
export { killGroupWithProgram } from "./_process_group.ts";

/** How to confine the command: not at all (its own process group only), or with bubblewrap. */
export type IsolationPlan = { mode: "none" } | BwrapPlan;

/** What to run and how; see {@linkcode runConfined}. */
export interface CommandSpec {
  /** Absolute path of the program, already allowlisted by the caller. */
  program: string;
  /** argv[1..], passed as separate elements, never through a shell. */
  args: string[];
  /** Absolute real path of the working folder. */
  cwd: string;
  /**
   * The complete child environment; nothing is inherited. In bwrap mode an absolute `HOME` and
   * `TMPDIR` are bound read-write into the sandbox: point them at run-private folders.
   */
  env: Record<string, string>;
  /** Written to the child's stdin, which is then closed. Default: stdin is `/dev/null`. */
  stdin?: string;
  /** Deadline from the start, in milliseconds (at most 2,147,483,647). */
  timeoutMs: number;
  /** After TERM, how long the group may take to exit before KILL, in milliseconds. Default: 2000. */
  killGraceMs?: number;
  /** Inline cap of stdout, in bytes: half kept as head, half as tail. */
  stdoutLimitBytes: number;
  /** Inline cap of stderr, in bytes. */
  stderrLimitBytes: number;
  /**
   * Where a stream longer than its inline cap is stored whole (redacted, cut at `maxBytes`):
   * `artifactsDir` inside `runDir`, both absolute. `null` stores nothing.
   */
  artifact: { artifactsDir: string; runDir: string; maxBytes: number } | null;
  /** Applied to the inline texts and, line by line, to artifact content. Default: none. */
  redact?: (text: string) => string;
  /** See {@linkcode IsolationPlan}. */
  isolation: IsolationPlan;
  /** Absolute path of `setsid` (util-linux), e.g. `/usr/bin/setsid`. */
  setsidPath: string;
  /** Absolute path of `kill`, e.g. `/usr/bin/kill`: process groups are signalled through it. */
  killPath: string;
  /** Abort: handled like the deadline (TERM, grace, KILL) but reported as `aborted`. */
  signal?: AbortSignal;
  /**
   * Isolation none, after a normal exit: whether this thread sends KILL to the group (through the
   * `kill` program). False leaves it to the caller, which must kill `process_group_id`, e.g. with
   * `killProcessGroup` on the main thread (in-process, no program started: about 1 ms sooner).
   * The deadline's and an abort's TERM, grace and KILL are always sent from here. @default true
   */
  killGroupAfterExit?: boolean;
}

/** A stream stored as an artifact ({@linkcode WrittenArtifact}) and which stream it was. */
export interface CommandArtifact extends WrittenArtifact {
  /** The stream stored. */
  stream: "stdout" | "stderr";
}

/** What happened; see {@linkcode runConfined}. */
export interface CommandOutcome {
  /** The exit code, or `null` when the command was killed by a signal or did not start. */
  exit_code: number | null;
  /** The signal that ended the command (e.g. `SIGTERM`), or `null`. */
  signal: string | null;
  /** True when the deadline passed (the group was then terminated). */
  timed_out: boolean;
  /** True when `spec.signal` aborted the command (the group was then terminated). */
  aborted: boolean;
  /** Wall time from the call to the answer, in milliseconds. */
  duration_ms: number;
  /** What the model sees of stdout (head and tail when longer than `stdoutLimitBytes`). */
  stdout: StreamResult;
  /** What the model sees of stderr (head and tail when longer than `stderrLimitBytes`). */
  stderr: StreamResult;
  /** The streams that exceeded their inline cap, when `spec.artifact` is set; stdout first. */
  artifacts: CommandArtifact[];
  /** The isolation used. */
  isolation: "bwrap" | "none";
  /** Why the program could not start (then `exit_code` is `null`), or `null`. */
  spawn_error: string | null;
  /**
   * The process group left for the caller to kill (its id, the leader's pid): set only with
   * `killGroupAfterExit: false`, isolation none, a normal exit. Otherwise `null`.
   */
  process_group_id: number | null;
}

/** Default of {@linkcode CommandSpec.killGraceMs}, in milliseconds. */
export const DEFAULT_KILL_GRACE_MS = 2000;

/** After the group is gone, how long to wait for the pipes to reach their end, in milliseconds. */
const DRAIN_MS = 500;
/** Size of the buffer each pipe is read into, in bytes. */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * Runs `spec.program` with `spec.args` (no shell) and answers what happened. Never throws for a
 * process failure: a program that cannot start gives `spawn_error`, a non-zero exit `exit_code`.
 *
 * The child is started as `setsid -- <program> args…` (or `setsid -- bwrap … -- <program>
 * args…`), so its pid is its process group and session id. At the deadline (or abort) the whole
 * group gets TERM (`kill -s TERM -- -<pgid>`), then KILL as soon as the command is done (leader
 * exited, pipes closed) or `killGraceMs` pass; the pipes are then read for up to 0.5 s more and
 * abandoned, so the call returns within about `timeoutMs + killGraceMs + 1 s` even when a process
 * that left the group keeps a pipe open. After a normal exit the group gets KILL too (isolation
 * none), so members that closed their pipes (`daemon &`) do not outlive the call: from here, or
 * with `killGroupAfterExit: false` by the caller (`process_group_id`); under bwrap the PID
 * namespace dies with the command. Under bwrap, TERM ends `bwrap` itself, and its
 * `--die-with-parent` and PID namespace take every process inside with it.
 *
 * In isolation none a process can leave the group (`setsid`, `setpgid`) and survive; only bwrap
 * contains that. Streams are read chunk by chunk: memory stays bounded whatever the volume (see
 * {@linkcode OutputCapture}).
 *
 * Permissions needed: run for `setsidPath` and `killPath` (and `bwrapPath`); read of `program`
 * and `cwd` is used, when granted, to report a missing one early.
 *
 * @param spec See {@linkcode CommandSpec}.
 * @returns See {@linkcode CommandOutcome}.
 * @throws {TypeError} When a path of `spec` is not absolute, or an argument, a name or a value
 *   contains a NUL character (or a name `=`).
 * @throws {RangeError} When a time or a limit is negative or too large, or `artifactsDir` is not
 *   inside `runDir`.
 * @throws Whatever the file system throws while storing an artifact; the process group is gone
 *   by then.
 * @example
 * ```ts
 * import { runConfined } from "./spawn_confined.ts";
 * const outcome = await runConfined({
 *   program: "/usr/bin/echo", args: ["$(touch /tmp/p)"], cwd: "/", env: {},
 *   timeoutMs: 5000, stdoutLimitBytes: 4096, stderrLimitBytes: 4096, artifact: null,
 *   isolation: { mode: "none" }, setsidPath: "/usr/bin/setsid", killPath: "/usr/bin/kill",
 * });
 * console.assert(outcome.stdout.text === "$(touch /tmp/p)\n");
 * ```
 */
export async function runConfined(spec: CommandSpec): Promise<CommandOutcome> {
  const launch = launchArgs(spec);
  const startedAt = performance.now();
  if (spec.signal?.aborted) return notStarted(spec, startedAt, null, true);
  const missing = await missingPath(spec);
  if (missing !== null) return notStarted(spec, startedAt, missing, false);

  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(spec.setsidPath, {
      args: launch,
      cwd: spec.cwd,
      env: spec.env,
      clearEnv: true,
      stdin: spec.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error: unknown) {
    return notStarted(spec, startedAt, `Cannot start "${spec.program}": ${reasonOf(error)}`, false);
  }

  const captures = [
    new OutputCapture(captureOptions(spec, spec.stdoutLimitBytes)),
    new OutputCapture(captureOptions(spec, spec.stderrLimitBytes)),
  ] as const;
  const readers = [startPump(child.stdout, captures[0]), startPump(child.stderr, captures[1])];
  const pumps = Promise.all(readers.map((reader) => reader.done));
  const stdinWritten = spec.stdin === undefined ? null : writeStdin(child.stdin, spec.stdin);
  let status: Deno.CommandStatus | null = null;
  const exited = child.status.then((value) => status = value);
  const group = new ProcessGroup(spec.killPath, child);
  const finished = Promise.all([exited, pumps]);

  let end: "finished" | "timeout" | "abort";
  try {
    end = await firstEnd(finished, spec.timeoutMs, spec.signal);
    if (end !== "finished") {
      await group.terminate(spec.killGraceMs ?? DEFAULT_KILL_GRACE_MS, finished);
    } else if (spec.isolation.mode === "none" && spec.killGroupAfterExit !== false) {
      // Members that closed their pipes and stayed behind (`daemon &`) do not outlive the call.
      await group.signal("KILL");
    }
  } catch (error: unknown) {
    // A fault of ours (not of the process): leave nothing running or half-written behind.
    await group.signal("KILL");
    await Promise.all(readers.map((reader) => reader.cancel()));
    await Promise.all(captures.map((capture) => capture.discard()));
    throw error;
  }
  if (!(await settlesWithin(pumps, DRAIN_MS))) {
    await Promise.all(readers.map((reader) => reader.cancel()));
    await settlesWithin(pumps, DRAIN_MS);
  }
  await settlesWithin(exited, DRAIN_MS);
  if (stdinWritten !== null && !(await settlesWithin(stdinWritten.done, 0))) stdinWritten.abort();

  const [stdout, stderr] = await finishCaptures(captures);
  const finalStatus = status as Deno.CommandStatus | null;
  const spawnError = startFailure(spec, finalStatus, stderr.result.text);
  const artifacts: CommandArtifact[] = [];
  if (stdout.artifact !== null) artifacts.push({ stream: "stdout", ...stdout.artifact });
  if (stderr.artifact !== null) artifacts.push({ stream: "stderr", ...stderr.artifact });
  const killedBy = spawnError === null ? finalStatus?.signal ?? null : null;
  return {
    exit_code: spawnError === null && killedBy === null ? finalStatus?.code ?? null : null,
    signal: killedBy,
    timed_out: end === "timeout",
    aborted: end === "abort",
    duration_ms: Math.round(performance.now() - startedAt),
    stdout: stdout.result,
    stderr: stderr.result,
    artifacts,
    isolation: spec.isolation.mode,
    spawn_error: spawnError,
    process_group_id: end === "finished" && spec.isolation.mode === "none" &&
        spec.killGroupAfterExit === false
      ? child.pid
      : null,
  };
}

/** A missing program or working folder, when this thread may look (read permission granted). */
async function missingPath(spec: CommandSpec): Promise<string | null> {
  for (const [path, what] of [[spec.cwd, "folder"], [spec.program, "program"]] as const) {
    if (Deno.permissions.querySync({ name: "read", path }).state !== "granted") continue;
    try {
      const info = await Deno.stat(path);
      if (what === "folder" && !info.isDirectory) {
        return `Cannot start "${spec.program}": the working folder "${path}" is not a folder`;
      }
    } catch (error: unknown) {
      if (error instanceof Deno.errors.NotFound) {
        return what === "folder"
          ? `Cannot start "${spec.program}": the working folder "${path}" does not exist`
          : `Cannot start "${spec.program}": the program does not exist`;
      }
    }
  }
  return null;
}

function captureOptions(spec: CommandSpec, limitBytes: number) {
  return {
    limitBytes,
    artifact: spec.artifact,
    ...(spec.redact === undefined ? {} : { redact: spec.redact }),
  };
}

/**
 * Reads `stream` to its end (or cancellation) into `capture`, through one reused 64 KiB buffer
 * (a bring-your-own-buffer reader): a flood of gigabytes allocates nothing per chunk.
 */
function startPump(
  stream: ReadableStream<Uint8Array>,
  capture: OutputCapture,
): { done: Promise<void>; cancel: () => Promise<void> } {
  const reader = stream.getReader({ mode: "byob" });
  const done = (async () => {
    let buffer = new ArrayBuffer(READ_BUFFER_BYTES);
    try {
      for (;;) {
        const { done, value } = await reader.read(new Uint8Array(buffer));
        if (done || value === undefined) return;
        await capture.write(value);
        buffer = value.buffer;
      }
    } catch {
      // Cancelled, or the pipe broke: what was read is kept.
    }
  })();
  return { done, cancel: () => reader.cancel().catch(() => {}) };
}

/** Writes `text` then closes; a child that exits without reading it all is not an error. */
function writeStdin(
  stream: WritableStream<Uint8Array>,
  text: string,
): { done: Promise<void>; abort: () => void } {
  const writer = stream.getWriter();
  const done = (async () => {
    try {
      await writer.write(new TextEncoder().encode(text));
      await writer.close();
    } catch {
      // The child closed its stdin (exited, or does not read it).
    }
  })();
  return { done, abort: () => void writer.abort().catch(() => {}) };
}

/** Which comes first: the command finishing (exit and both pipes closed), the deadline, an abort. */
async function firstEnd(
  finished: Promise<unknown>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<"finished" | "timeout" | "abort"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const ends: Promise<"finished" | "timeout" | "abort">[] = [
    finished.then(() => "finished" as const),
    new Promise((resolve) => timer = setTimeout(() => resolve("timeout"), timeoutMs)),
  ];
  if (signal !== undefined) {
    ends.push(
      new Promise((resolve) => {
        onAbort = () => resolve("abort");
        signal.addEventListener("abort", onAbort, { once: true });
      }),
    );
  }
  try {
    return await Promise.race(ends);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
  }
}

/** Finishes both captures; when one fails, removes the other's partial artifact and rethrows. */
async function finishCaptures(captures: readonly [OutputCapture, OutputCapture]) {
  const settled = await Promise.allSettled(captures.map((capture) => capture.finish()));
  const [stdout, stderr] = settled;
  if (stdout?.status === "fulfilled" && stderr?.status === "fulfilled") {
    return [stdout.value, stderr.value] as const;
  }
  const failed = settled.find((result) => result.status === "rejected");
  await Promise.all(captures.map((capture) => capture.discard()));
  throw failed?.reason;
}

/**
 * Recognises a program that could not be executed after `setsid` or `bwrap` started: `setsid`
 * exits 126 or 127 with `setsid: failed to execute <program>: <reason>`; `bwrap` exits 1 with
 * `bwrap: <reason>` (an `execvp` failure or a sandbox set-up failure).
 */
function startFailure(
  spec: CommandSpec,
  status: Deno.CommandStatus | null,
  stderr: string,
): string | null {
  if (status === null || status.signal !== null) return null;
  const line = stderr.split("\n", 1)[0] ?? "";
  if (spec.isolation.mode === "none") {
    if (
      (status.code !== 126 && status.code !== 127) || !line.startsWith("setsid: failed to execute ")
    ) {
      return null;
    }
    return `Cannot start "${spec.program}": ${lowerFirst(line.slice(line.lastIndexOf(": ") + 2))}`;
  }
  if (status.code !== 1 || !line.startsWith("bwrap: ")) return null;
  if (line.startsWith("bwrap: execvp ")) {
    return `Cannot start "${spec.program}": ${lowerFirst(line.slice(line.lastIndexOf(": ") + 2))}`;
  }
  return `Cannot start "${spec.program}" in the bwrap sandbox: ${lowerFirst(line.slice(7))}`;
}

function notStarted(
  spec: CommandSpec,
  startedAt: number,
  spawnError: string | null,
  aborted: boolean,
): CommandOutcome {
  const empty: StreamResult = { head: "", tail: "", bytes: 0, truncated: false, text: "" };
  return {
    exit_code: null,
    signal: null,
    timed_out: false,
    aborted,
    duration_ms: Math.round(performance.now() - startedAt),
    stdout: empty,
    stderr: { ...empty },
    artifacts: [],
    isolation: spec.isolation.mode,
    spawn_error: spawnError,
    process_group_id: null,
  };
}

function reasonOf(error: unknown): string {
  return lowerFirst(error instanceof Error ? error.message : String(error));
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
