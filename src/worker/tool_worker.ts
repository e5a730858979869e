/**
 * The main-thread side of the tool sandbox (layer 2, ARCHITECTURE §3): a Deno Worker whose
 * `deno.permissions` are computed from the effective policy, so a handler that skips the path
 * guard still cannot read or write outside the roots. Needs `--unstable-worker-options`.
 *
 * @module
 */

import type { PathGuard } from "../sandbox/mod.ts";
import type { HostMessage, WorkerMessage } from "./worker_protocol.ts";
import type { ExecContext, FileToolSettings, RunLocations } from "../tools/mod.ts";
import type { RipgrepPrefilter } from "../toolsets/fs/mod.ts";
import type { MemorySettings } from "../memory/mod.ts";
import type { DeclarativeToolFile } from "../toolsets/declarative/mod.ts";
import { failure, type ToolOutcome } from "../result/mod.ts";
import { FetchResponder } from "../network/mod.ts";
import { hostPermission } from "../network/mod.ts";
import { CALL_MARKER_ENV, callMarker, DEFAULT_KILL_GRACE_MS } from "../exec/mod.ts";
import { DEFAULT_TOOLS } from "../config/base/mod.ts";

/**
 * The Deno permissions of the tool Worker. Paths are absolute and canonical. Everything that is not
 * a path list is off: no network, environment, subprocesses, FFI, system information or imports.
 */
export interface WorkerPermissions {
  read: string[];
  write: string[];
  /**
   * Always off: an HTTP memory service is reached through the main thread and the network
   * gateway ({@linkcode ToolWorkerOptions.fetch}), never from the Worker.
   */
  net: false;
  /** Exact names command tools pass to children, or none. */
  env: false | string[];
  /** Absolute paths of the allowlisted programs, interpreters, setsid, kill and bwrap, or none. */
  run: false | string[];
  ffi: false;
  sys: false;
  import: false;
}

/** Environment names the yaml package reads (yaml 2.x `dist/log.js`); their values are only flags. */
const YAML_DEBUG_VARIABLES = ["LOG_TOKENS", "LOG_STREAM"];

/** What command tools add to the Worker's permissions. */
export interface CommandPermissions {
  /** Absolute program paths the Worker may start. */
  run: string[];
  /** Exact environment names the Worker may read. */
  env: string[];
  /** Skill folders (read-only: scripts are read for their shebang). */
  read: string[];
  /** The run's artifacts/ folder (command streams are written there as they arrive). */
  write: string[];
}

/**
 * Computes the Worker's permissions from the guard: read = every read and write root (the
 * workspace, `sandbox.read_roots`, `sandbox.write_roots`, the run's workspace/ and deliverables/);
 * write = the write roots only. Deno has no deny list for Workers, so protected paths inside a
 * write root (the runs folder, `.git`) are kept by the path guard alone. With command tools, `run`
 * lists exactly the programs, `env` exactly the names, and artifacts/ becomes writable; without
 * them both stay off.
 */
export function computeWorkerPermissions(
  guard: PathGuard,
  commands: CommandPermissions | null = null,
  skillDirs: readonly string[] = [],
  memory: { folders: string[]; env: string[] } = { folders: [], env: [] },
): WorkerPermissions {
  return {
    read: [
      ...new Set([
        ...guard.allReadRoots,
        ...skillDirs,
        ...memory.folders,
        ...(commands?.read ?? []),
        ...(commands?.write ?? []),
      ]),
    ],
    write: [...new Set([...guard.allWriteRoots, ...memory.folders, ...(commands?.write ?? [])])],
    net: false,
    // The yaml package (skill frontmatter) reads LOG_TOKENS and LOG_STREAM, its debug switches;
    // an HTTP memory service's token is read from the variable the config names.
    env: commands === null && skillDirs.length === 0 && memory.env.length === 0 ? false : [
      ...new Set([
        ...(commands?.env ?? []),
        ...(skillDirs.length > 0 ? YAML_DEBUG_VARIABLES : []),
        ...memory.env,
      ]),
    ],
    run: commands === null ? false : [...new Set(commands.run)],
    ffi: false,
    sys: false,
    import: false,
  };
}

/** Options of {@linkcode ToolWorker.start}. */
export interface ToolWorkerOptions {
  guard: PathGuard;
  run: RunLocations;
  permissions: WorkerPermissions;
  /** Command tool settings for handlers; null when none is enabled. @default null */
  exec?: ExecContext | null;
  /** File tool settings (search time budget, sensitive entries in listings). @default the tools' defaults */
  files?: FileToolSettings | null;
  /** Memory tool settings; null when memory is off. @default null */
  memory?: MemorySettings | null;
  /** Real skill folders, for skills.list_skills and skills.load_skill. @default [] */
  skillDirs?: string[];
  /**
   * How the Worker's HTTP requests (an HTTP memory service) leave the process: the CLI passes the
   * network gateway's memory channel. @default globalThis.fetch (the main thread's permission)
   */
  fetch?: typeof fetch;
  /**
   * The `hostname:port`s those requests may reach; anything else is refused before it is sent.
   * @default [] (every request refused)
   */
  fetchHosts?: string[];
  /** Declarative tool files the Worker serves. @default [] */
  declarativeTools?: DeclarativeToolFile[];
  /** The command tools are part of the tool set (see `toolSet`). @default true */
  commandTools?: boolean;
  /** The Worker's entry module. @default src/worker/worker_main.ts (the built-in tools) */
  entry?: URL;
  /**
   * How long a handler may take to stop after an abort, in ms, before the Worker is replaced.
   * Longer than a command's own stop (TERM, its kill grace, KILL, the drain), so that the handler
   * kills a group that ignores TERM before its Worker goes.
   * @default DEFAULT_ABORT_GRACE_MS
   */
  abortGraceMs?: number;
  /**
   * Longest a handler may run, in ms; then the call ends with `timeout` and the Worker is replaced
   * (the only way to stop a handler stuck in synchronous code, such as a catastrophic regex).
   * @default DEFAULT_HANDLER_TIMEOUT_MS
   */
  handlerTimeoutMs?: number;
  /**
   * Runs ripgrep on this thread for an `fs.grep_files` folder search while the handler walks;
   * the handler then reads only the files it named (`context.search_candidates`). @default null:
   * the built-in alone
   */
  searchPrefilter?: RipgrepPrefilter | null;
}

/**
 * Default of {@linkcode ToolWorkerOptions.handlerTimeoutMs}, in ms: the default command timeout
 * (`tools.default_timeout_ms`). @default 120000 (120 s)
 */
export const DEFAULT_HANDLER_TIMEOUT_MS: number = DEFAULT_TOOLS.default_timeout_ms;

/**
 * Default of {@linkcode ToolWorkerOptions.abortGraceMs}: a command's kill grace
 * (`DEFAULT_KILL_GRACE_MS`, 2 s) plus 3 s for sending the signals and draining the pipes (at most
 * 1.5 s). Were it equal to the kill grace, the Worker would be replaced at the very moment the
 * handler sends KILL, and a process that ignores TERM would outlive the run.
 */
export const DEFAULT_ABORT_GRACE_MS = DEFAULT_KILL_GRACE_MS + 3000;

interface Pending {
  resolve: (outcome: ToolOutcome) => void;
  tool: string;
}

/**
 * Runs tool handlers in a permission-narrowed Worker. Calls may overlap; each gets exactly one
 * outcome. If the Worker dies, pending calls fail with `internal_error` and the next call starts a
 * new Worker.
 */
export class ToolWorker {
  readonly permissions: WorkerPermissions;
  readonly #options: ToolWorkerOptions;
  #worker: Worker | null = null;
  #ready: Promise<void> | null = null;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();

  private constructor(options: ToolWorkerOptions) {
    this.#options = options;
    this.permissions = options.permissions;
  }

  /**
   * Starts the Worker and waits until it serves.
   *
   * @throws {Error} when the Worker cannot start (for example without `--unstable-worker-options`).
   */
  static async start(options: ToolWorkerOptions): Promise<ToolWorker> {
    const host = new ToolWorker(options);
    await host.#spawn();
    return host;
  }

  /**
   * Runs one handler. Never rejects: failures are outcomes.
   *
   * @param signal Aborts the call: the handler is told, and after the grace period the outcome is
   * `aborted` whatever the handler does (the Worker is then replaced). A signal aborted before the
   * call starts it not at all. An `fs.grep_files` call starts the search prefilter here, beside
   * the handler, and ends it with the call.
   */
  async execute(
    tool: string,
    toolCallId: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ToolOutcome> {
    try {
      await this.#spawn();
    } catch (error) {
      return failure(
        "internal_error",
        `Cannot run tool "${tool}": the tool Worker did not start (${String(error)})`,
      );
    }
    if (signal?.aborted) {
      const reason = String(signal.reason ?? "aborted");
      return failure("aborted", `Cannot run tool "${tool}": the run was aborted (${reason})`, {
        aborted: true,
        partial: false,
        abort_reason: reason,
      });
    }
    const prefilter = tool === "fs.grep_files" ? this.#options.searchPrefilter ?? null : null;
    const planned = prefilter?.plan(args, this.#options.guard) ?? null;
    const search = planned !== null && await prefilter?.available() ? planned : null;
    const worker = this.#worker as Worker;
    const id = this.#nextId++;
    return await new Promise<ToolOutcome>((resolve) => {
      let settled = false;
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      // ripgrep ends with the call: its answer is useless after, and it must not outlive it.
      const ripgrepStop = new AbortController();
      const finish = (outcome: ToolOutcome) => {
        if (settled) return;
        settled = true;
        ripgrepStop.abort();
        this.#pending.delete(id);
        signal?.removeEventListener("abort", onAbort);
        clearTimeout(graceTimer);
        clearTimeout(deadline);
        resolve(outcome);
      };
      const timeoutMs = this.#options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
      const deadline = setTimeout(() => {
        finish(
          failure("timeout", `Cannot finish tool "${tool}": it ran longer than ${timeoutMs} ms`, {
            timed_out: true,
            timeout_ms: timeoutMs,
          }),
        );
        this.#replace();
      }, timeoutMs);
      const onAbort = () => {
        const reason = String(signal?.reason ?? "aborted");
        this.#post({ type: "abort", id, reason });
        graceTimer = setTimeout(() => {
          finish(
            failure("aborted", `Cannot finish tool "${tool}": the run was aborted (${reason})`, {
              aborted: true,
              partial: false,
              abort_reason: reason,
            }),
          );
          this.#replace();
        }, this.#options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS);
      };
      this.#pending.set(id, { resolve: finish, tool });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
      worker.postMessage(
        {
          type: "execute",
          id,
          tool,
          tool_call_id: toolCallId,
          arguments: args,
          ...(search === null ? {} : { awaits_search_candidates: true }),
        } satisfies HostMessage,
      );
      if (prefilter !== null && search !== null) {
        const stop = signal === undefined
          ? ripgrepStop.signal
          : AbortSignal.any([signal, ripgrepStop.signal]);
        const marker = { [CALL_MARKER_ENV]: callMarker(this.#options.run.run_id, toolCallId) };
        void prefilter.run(search, stop, marker).then((candidates) => {
          if (!settled) this.#post({ type: "search_candidates", id, candidates });
        });
      }
    });
  }

  /** Stops the Worker; pending calls fail with `aborted`. */
  terminate(): void {
    this.#worker?.terminate();
    this.#worker = null;
    this.#ready = null;
    this.#failPending("aborted", "the tool Worker was stopped");
  }

  #post(message: HostMessage): void {
    this.#worker?.postMessage(message);
  }

  #replace(): void {
    this.#worker?.terminate();
    this.#worker = null;
    this.#ready = null;
    this.#failPending("internal_error", "the tool Worker was replaced after an abort");
  }

  #failPending(type: "aborted" | "internal_error", reason: string): void {
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.resolve(failure(type, `Cannot finish tool "${pending.tool}": ${reason}`));
    }
  }

  #spawn(): Promise<void> {
    if (this.#ready !== null) return this.#ready;
    const entry = this.#options.entry ?? defaultWorkerEntry();
    const worker = new Worker(entry, {
      type: "module",
      name: "kagent-run tools",
      // Deno's Worker option; typed loosely because lib.deno's WorkerOptions may lag behind.
      deno: { permissions: this.#options.permissions },
    } as WorkerOptions);
    this.#worker = worker;
    const hosts = this.#options.fetchHosts ?? [];
    const responder = new FetchResponder({
      post: (reply) => worker.postMessage(reply satisfies HostMessage),
      ...(this.#options.fetch === undefined ? {} : { fetch: this.#options.fetch }),
      refuse: (request) => {
        let host: string;
        try {
          host = hostPermission(request.url);
        } catch (error) {
          return `Cannot send the request of a tool: ${(error as Error).message}`;
        }
        return request.channel === "memory" && hosts.includes(host)
          ? null
          : `Cannot reach "${host}" from a tool: tools may reach only the memory service (${
            hosts.length === 0 ? "none configured" : hosts.join(", ")
          })`;
      },
    });
    this.#ready = new Promise<void>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
        const message = event.data;
        if (message.type === "ready") resolve();
        else if (message.type === "init_failed") reject(new Error(message.message));
        else if (message.type === "result") this.#pending.get(message.id)?.resolve(message.outcome);
        else if (message.type === "fetch" || message.type === "fetch_abort") {
          responder.handle(message);
        }
      };
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(event.message));
        if (this.#worker === worker) {
          this.#worker = null;
          this.#ready = null;
        }
        worker.terminate();
        this.#failPending("internal_error", `the tool Worker crashed (${event.message})`);
      };
    });
    worker.postMessage(
      {
        type: "init",
        guard: this.#options.guard.toOptions(),
        run: this.#options.run,
        exec: this.#options.exec ?? null,
        files: this.#options.files ?? null,
        command_tools: this.#options.commandTools ?? true,
        declarative_tools: this.#options.declarativeTools ?? [],
        skill_dirs: this.#options.skillDirs ?? [],
        memory: this.#options.memory ?? null,
      } satisfies HostMessage,
    );
    return this.#ready;
  }
}

/**
 * The built-in Worker entry: `worker_main.ts` beside this module from source and in a compiled
 * binary (`--include src/worker/worker_main.ts`); in a `deno task bundle` folder
 * (`tools/bundle.ts`), `src/worker/worker_main.js` below the folder's top, where every chunk is
 * (so also where this module's code is).
 */
export function defaultWorkerEntry(): URL {
  const bundled = import.meta.url.endsWith(".js");
  return new URL(bundled ? "./src/worker/worker_main.js" : "./worker_main.ts", import.meta.url);
}
