/**
 * The protected-path watch of the run's stdio MCP servers: what each server's launch watched
 * (`McpLaunch.watched`: a `.git` missing at the top of a root it may write, …) is checked through
 * the confinement module's `quarantineCreated` after each of its calls, when its process ends and
 * when the run closes. What a server created there is moved to `runs/<id>/quarantine/`, the
 * server is stopped, its later calls fail with `sandbox_violation`, and each listener hears of it
 * (the session records `mcp_server.sandbox_violation`).
 *
 * @module
 */

import {
  newRepositoriesAtClose,
  ProtectedPathWatch,
  type ProtectedPathWatchOptions,
  quarantineCreated,
} from "../exec/mod.ts";

/** What finds a new `.git` at any depth of the write roots (see `newRepositoriesAtClose`). */
export type RepositoryCheck = Omit<ProtectedPathWatchOptions, "sentinelTimeoutMs">;

/** What was moved out of a root: where the server created it, where it is now. */
export interface QuarantinedEntry {
  path: string;
  /** Inside the run's quarantine folder, or null when it had to be removed. */
  moved_to: string | null;
}

/** When a violation was found: after a call, when the process ended, when the run closed. */
export type ViolationMoment = "call" | "exit" | "close";

/** Hears of each violation found (awaited when the run closes). */
export type ViolationListener = (
  server: string,
  quarantined: QuarantinedEntry[],
  moment: ViolationMoment,
) => Promise<void> | void;

/** The watches of every stdio server of a run. */
export class ServerWatches {
  readonly #quarantineDir: string | null;
  readonly #watched = new Map<string, readonly string[]>();
  readonly #violations = new Map<string, QuarantinedEntry[]>();
  readonly #listeners: ViolationListener[] = [];
  readonly #pending: Promise<void>[] = [];
  readonly #seen: [string, QuarantinedEntry[], ViolationMoment][] = [];

  readonly #repositories: RepositoryCheck | null;
  /** The main thread's watch over the write roots (opened before the first server starts). */
  #deep: ProtectedPathWatch | { reason: string } | null = null;
  /** Servers that can write a root (`write: true`, or unconfined). */
  readonly #writers = new Set<string>();

  /**
   * @param quarantineDir `runs/<id>/quarantine`; null (no run) checks nothing.
   * @param repositories How to find a `.git` created at any depth of the write roots: after each
   *   call through a watch kept current by inotify (`ProtectedPathWatch`), when a server ends or
   *   the run closes by comparing with the `.git` entries recorded before the first server
   *   started; null checks only each server's `watched` paths.
   */
  constructor(quarantineDir: string | null, repositories: RepositoryCheck | null = null) {
    this.#quarantineDir = quarantineDir;
    this.#repositories = repositories;
  }

  /**
   * Starts watching `watched` for `server`; call it before the server's process starts (the
   * first call for a server that `writes` scans the write roots and records the `.git` entries
   * present).
   */
  watch(server: string, watched: readonly string[], writes: boolean): void {
    // A server that can write no root (confined, `write: false`) needs no watch of the trees; the
    // first one that can opens it.
    if (writes && this.#repositories !== null && this.#deep === null) {
      this.#deep = ProtectedPathWatch.open(this.#repositories);
    }
    this.#watched.set(server, watched);
    if (writes) this.#writers.add(server);
  }

  /** The `.git` entries created at any depth (fails closed: throws when it cannot tell). */
  async #newRepositories(server: string, moment: ViolationMoment): Promise<string[]> {
    const deep = this.#deep;
    if (this.#repositories === null || deep === null || !this.#writers.has(server)) return [];
    if (!(deep instanceof ProtectedPathWatch)) throw new Error(deep.reason);
    if (moment === "call") return await deep.examine();
    const found = newRepositoriesAtClose(this.#repositories);
    if (!Array.isArray(found)) throw new Error(found.reason);
    return found;
  }

  /** Adds a listener; it first hears of the violations found before it was added. */
  listen(listener: ViolationListener): void {
    this.#listeners.push(listener);
    for (const [server, quarantined, moment] of this.#seen) {
      this.#pending.push(Promise.resolve(listener(server, quarantined, moment)).catch(() => {}));
    }
  }

  /** What `server` created at protected paths so far (empty when nothing). */
  violations(server: string): readonly QuarantinedEntry[] {
    return this.#violations.get(server) ?? [];
  }

  /**
   * Checks `server`'s watch now: moves what it created into the quarantine and tells the
   * listeners. Never throws.
   *
   * @returns What was moved this time (empty when nothing).
   */
  async check(server: string, moment: ViolationMoment): Promise<QuarantinedEntry[]> {
    const watched = this.#watched.get(server);
    if (watched === undefined || this.#quarantineDir === null) return [];
    let found: QuarantinedEntry[];
    try {
      const deep = await this.#newRepositories(server, moment);
      found = quarantineCreated([...new Set([...watched, ...deep])], this.#quarantineDir);
    } catch {
      // Fail closed: what could not be moved is removed, and the server stopped all the same.
      found = watched.filter(exists).map((path) => {
        try {
          Deno.removeSync(path, { recursive: true });
        } catch {
          // Still named below; the server is stopped.
        }
        return { path, moved_to: null };
      });
    }
    if (found.length === 0) return [];
    this.#violations.set(server, [...this.violations(server), ...found]);
    this.#seen.push([server, found, moment]);
    for (const listener of this.#listeners) {
      this.#pending.push(Promise.resolve(listener(server, found, moment)).catch(() => {}));
    }
    return found;
  }

  /** Checks every server's watch (when the run closes) and waits for every listener. */
  async checkAll(moment: ViolationMoment): Promise<void> {
    for (const server of this.#watched.keys()) await this.check(server, moment);
    await Promise.all(this.#pending);
    if (this.#deep instanceof ProtectedPathWatch) this.#deep.close();
  }
}

/**
 * The message of a server's violation: what it created, where it went, and what happens now.
 *
 * @example
 * ```ts
 * import { violationMessage } from "./server_watch.ts";
 * const text = violationMessage("files", [{ path: "/w/.git", moved_to: "/r/quarantine/1-.git" }]);
 * console.assert(text.startsWith('MCP server "files" created protected paths'));
 * ```
 */
export function violationMessage(server: string, quarantined: readonly QuarantinedEntry[]): string {
  const named = quarantined.map((entry) =>
    `"${entry.path}"${entry.moved_to === null ? " (removed)" : ` (now in "${entry.moved_to}")`}`
  ).join(", ");
  return `MCP server "${server}" created protected paths, which were moved out of the ` +
    `workspace: ${named}; the server was stopped and its calls fail for the rest of the run`;
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
