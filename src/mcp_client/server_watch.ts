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

import { quarantineCreated } from "../exec/mod.ts";

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

  /** @param quarantineDir `runs/<id>/quarantine`; null (no run) checks nothing. */
  constructor(quarantineDir: string | null) {
    this.#quarantineDir = quarantineDir;
  }

  /** Starts watching `watched` for `server`. */
  watch(server: string, watched: readonly string[]): void {
    this.#watched.set(server, watched);
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
  check(server: string, moment: ViolationMoment): QuarantinedEntry[] {
    const watched = this.#watched.get(server);
    if (watched === undefined || this.#quarantineDir === null) return [];
    let found: QuarantinedEntry[];
    try {
      found = quarantineCreated(watched, this.#quarantineDir);
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
    for (const server of this.#watched.keys()) this.check(server, moment);
    await Promise.all(this.#pending);
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
