/**
 * Folder chains held still: how `safe_file.ts` and `walk.ts` prove that a path went through the
 * folders the guard checked, without `openat`. Private to the sandbox folder.
 *
 * Why not a descriptor. Measured on Deno 2.9.6 in the permission-narrowed tool Worker: Deno has
 * no `openat`, no `O_PATH`, no `fchdir`; `/proc/self/fd/<n>/…`, `/proc/<pid>/fd/…` and
 * `/dev/fd/<n>/…` need `--allow-all`; `..` in a path is collapsed as text before the system call;
 * a relative path is made absolute with `getcwd` first (so `chdir` pins nothing); `open` reads the
 * links on the way itself and opens the result. Whatever path a tool hands to Deno, the kernel
 * walks it again from `/` at that moment, and a folder on the way may meanwhile have been swapped
 * for a symlink (`renameat2(RENAME_EXCHANGE)`) and swapped back.
 *
 * What Deno does give is `lstat` with a folder's change time (ctime, whole seconds). Creating,
 * removing or renaming an entry of a folder (an exchange too) sets the folder's ctime to the
 * current time; no system call sets it to anything else, and the clock does not go back. Hence:
 *
 * 1. `hold`: lstat every folder from the anchor (the outermost root, whose own parents no sandboxed
 *    process can change) down to the target folder, top-down. Each must be a real folder, not a
 *    symlink. Every folder *above* the target folder must be settled: its ctime second ended at
 *    least {@linkcode SETTLE_MARGIN_MS} before the lstat, so that any later change gives it
 *    another ctime second. An unsettled chain waits for the second to end (once; a folder that
 *    keeps changing fails at once).
 * 2. the caller works on `folder/name` (lstat, open, create, rename, unlink).
 * 3. `holds`: lstat the same folders again, bottom-up: same device and inode for all, same ctime
 *    and mtime for those above the target folder.
 *
 * If 3 passes, the anchor's entries did not change between its two lstats, so the first folder
 * below it was that folder throughout, so its entries did not change either, and so on down: every
 * lookup of `folder/…` made during 2 went through exactly the folders seen in 1, real folders at
 * the real path the guard checked. One consistent observation (a ctime second that did not move)
 * proves it; a swap and a swap back inside the window still move it. The target folder's own
 * entries may change (its ctime is not compared): the caller checks the entry it uses (lstat in
 * the window, then the identity of what it opened).
 *
 * Limits, stated: a chain folder changed within the current second makes the caller wait for the
 * next one (at most about a second); timestamps must come from this machine's clock (local file
 * systems; a network file system with a skewed server clock is not covered); and a mutation
 * (create, rename, unlink) is proven only after the fact, so the few microseconds between the
 * last `holds` and that system call remain a window (see `safe_file.ts`).
 *
 * @module
 */

import * as nodePath from "node:path";
import { isWithin } from "./path_guard.ts";

/**
 * How long after the end of a folder's ctime second a later change is sure to land in another
 * second, in milliseconds: the kernel's coarse clock lags the fine one by at most one tick (10 ms
 * at 100 Hz), plus rounding.
 */
export const SETTLE_MARGIN_MS = 25;
/** Longest a single {@linkcode FolderChain.hold} waits for folders to settle, in milliseconds. */
export const DEFAULT_SETTLE_BUDGET_MS = 1100;
/** Pause before judging whether an unsettled folder is still changing, in milliseconds. */
const BUSY_PROBE_MS = 10;

/** What one lstat said about a folder of a chain. */
export interface FolderState {
  /** Absolute real path of the folder. */
  path: string;
  dev: number;
  ino: number;
  /** Change time in ms since the epoch (Deno reports whole seconds). */
  ctime: number;
  /** Modification time in ms since the epoch. */
  mtime: number;
  /** `Date.now()` just before the lstat. */
  observedAt: number;
}

/** Why a chain could not be held. `folder` is the absolute path the problem is about. */
export type ChainProblem =
  | { problem: "changed"; folder: string; reason: string }
  | { problem: "busy"; folder: string }
  | { problem: "missing"; folder: string; index: number }
  | { problem: "io"; folder: string; error: unknown };

/** Waiting shared by several holds (one walk): spent as they wait, in milliseconds. */
export interface SettleBudget {
  remainingMs: number;
}

/** Options of {@linkcode FolderChain.hold}. */
export interface HoldOptions {
  /** The waiting allowed. @default a fresh budget of DEFAULT_SETTLE_BUDGET_MS */
  budget?: SettleBudget;
  /** Stops waiting (the hold then reports `busy`). */
  signal?: AbortSignal;
}

/** Tells whether a {@linkcode FolderChain.hold} answer is a problem. */
export function isChainProblem(value: FolderChain | ChainProblem): value is ChainProblem {
  return "problem" in value;
}

/** Thrown by walks when the start folder cannot be held: reported as `sandbox_violation`. */
export class FolderChangedError extends Error {
  override name = "FolderChangedError";
  constructor(readonly problem: ChainProblem) {
    super(`Cannot hold folder "${problem.folder}": ${problem.problem}`);
  }
}

/**
 * The folders from an anchor root down to a target folder, as observed once; {@linkcode holds}
 * tells whether they are still exactly those folders.
 */
export class FolderChain {
  readonly #states: readonly FolderState[];

  private constructor(states: readonly FolderState[]) {
    this.#states = states;
  }

  /** The target folder (the last of the chain). */
  get folder(): string {
    return (this.#states[this.#states.length - 1] as FolderState).path;
  }

  /** Device and inode of the target folder as observed. */
  get identity(): { dev: number; ino: number } {
    const last = this.#states[this.#states.length - 1] as FolderState;
    return { dev: last.dev, ino: last.ino };
  }

  /** `folder/name`. */
  entry(name: string): string {
    return this.folder === "/" ? `/${name}` : `${this.folder}/${name}`;
  }

  /**
   * Observes the folders from `anchor` down to `folder` (step 1 of the module comment), waiting
   * once for unsettled ones.
   *
   * @param anchor An outermost root (real path).
   * @param folder A real path at or below `anchor`.
   * @returns the chain, or `missing` (with the index of the first missing component, 1 = the
   * first below the anchor), `changed` (a symlink or a file where a folder was), `busy` (a folder
   * above the target keeps changing, or would not settle within the budget), `io`.
   * @throws {TypeError} when `folder` is not within `anchor`.
   */
  static async hold(
    anchor: string,
    folder: string,
    options: HoldOptions = {},
  ): Promise<FolderChain | ChainProblem> {
    if (!isWithin(folder, anchor)) {
      throw new TypeError(`Cannot hold folder "${folder}": it is not within "${anchor}"`);
    }
    const paths = chainPaths(anchor, folder);
    const budget = options.budget ?? { remainingMs: DEFAULT_SETTLE_BUDGET_MS };
    for (let round = 0;; round += 1) {
      const states = observeAll(paths);
      if (!Array.isArray(states)) return states;
      const unsettled = states.slice(0, -1).filter((state) => !isSettled(state));
      if (unsettled.length === 0) return new FolderChain(states);
      const waited = round === 0 && await waitToSettle(unsettled, budget, options.signal);
      if (!waited) return { problem: "busy", folder: (unsettled[0] as FolderState).path };
    }
  }

  /**
   * {@linkcode FolderChain.hold} without waiting: the chain when every folder above the target is
   * already settled (the usual case), a problem, or null when one is not settled yet (then call
   * `hold`, which waits). Synchronous: the observation is one `lstat` per folder.
   *
   * @throws {TypeError} when `folder` is not within `anchor`.
   */
  static tryHold(anchor: string, folder: string): FolderChain | ChainProblem | null {
    if (!isWithin(folder, anchor)) {
      throw new TypeError(`Cannot hold folder "${folder}": it is not within "${anchor}"`);
    }
    const states = observeAll(chainPaths(anchor, folder));
    if (!Array.isArray(states)) return states;
    for (let index = 0; index < states.length - 1; index += 1) {
      if (!isSettled(states[index] as FolderState)) return null;
    }
    return new FolderChain(states);
  }

  /**
   * Makes the target folder usable as a folder above another (for walks, before descending): if
   * it was not settled when observed, waits from `budget` and observes it again (same device and
   * inode, or `changed`).
   */
  async settle(options: HoldOptions = {}): Promise<FolderChain | ChainProblem> {
    const last = this.#states[this.#states.length - 1] as FolderState;
    if (isSettled(last)) return this;
    const budget = options.budget ?? { remainingMs: DEFAULT_SETTLE_BUDGET_MS };
    if (!(await waitToSettle([last], budget, options.signal))) {
      return { problem: "busy", folder: last.path };
    }
    const again = observe(last.path);
    if ("problem" in again) return again.problem === "missing" ? changed(last.path) : again;
    if (again.dev !== last.dev || again.ino !== last.ino) return changed(last.path);
    if (!isSettled(again)) return { problem: "busy", folder: last.path };
    return new FolderChain([...this.#states.slice(0, -1), again]);
  }

  /**
   * Extends the chain by a sub-folder of its target folder (for walks). The target folder must be
   * settled ({@linkcode settle}), else `busy`.
   *
   * @param expected The sub-folder's identity from the listing's lstat: a mismatch is `changed`.
   */
  child(name: string, expected: { dev: number; ino: number } | null): FolderChain | ChainProblem {
    const last = this.#states[this.#states.length - 1] as FolderState;
    if (!isSettled(last)) return { problem: "busy", folder: last.path };
    const path = this.entry(name);
    const observed = observe(path);
    if ("problem" in observed) return observed.problem === "missing" ? changed(path) : observed;
    if (expected !== null && (observed.dev !== expected.dev || observed.ino !== expected.ino)) {
      return changed(path);
    }
    return new FolderChain([...this.#states, observed]);
  }

  /**
   * Observes the chain again, bottom-up (step 3): true when every folder is still the same folder
   * (device and inode) and those above the target folder have the same ctime and mtime. Never
   * throws; synchronous so that it sits right against the operation it brackets.
   */
  holds(): boolean {
    for (let index = this.#states.length - 1; index >= 0; index -= 1) {
      const before = this.#states[index] as FolderState;
      let now: Deno.FileInfo;
      try {
        now = Deno.lstatSync(before.path);
      } catch {
        return false;
      }
      if (!now.isDirectory || now.isSymlink || now.dev !== before.dev || now.ino !== before.ino) {
        return false;
      }
      if (index === this.#states.length - 1) continue;
      if (now.ctime?.getTime() !== before.ctime || now.mtime?.getTime() !== before.mtime) {
        return false;
      }
    }
    return true;
  }
}

/** The folders from `anchor` down to `folder` (within it), outermost first. */
function chainPaths(anchor: string, folder: string): string[] {
  const relative = nodePath.relative(anchor, folder);
  const names = relative === "" ? [] : relative.split("/");
  const paths = [anchor];
  for (const name of names) paths.push(`${paths[paths.length - 1]}/${name}`);
  return paths;
}

/** Observes every folder of `paths`, top-down, or the first problem (`missing` with its index). */
function observeAll(paths: readonly string[]): FolderState[] | ChainProblem {
  const states: FolderState[] = [];
  for (const [index, path] of paths.entries()) {
    const observed = observe(path);
    if ("problem" in observed) {
      return observed.problem === "missing" ? { ...observed, index } : observed;
    }
    states.push(observed);
  }
  return states;
}

/** A folder's ctime second is over, with margin, at the time it was observed. */
function isSettled(state: FolderState): boolean {
  return settledAt(state) <= state.observedAt;
}

function settledAt(state: FolderState): number {
  return Math.floor(state.ctime / 1000) * 1000 + 1000 + SETTLE_MARGIN_MS;
}

/**
 * Waits until every folder of `unsettled` has settled, unless one of them is changing right now
 * (then waiting is pointless: a swapper is at work, or the folder is busy) or the wait exceeds the
 * budget. Returns whether it waited.
 */
async function waitToSettle(
  unsettled: readonly FolderState[],
  budget: SettleBudget,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const until = Math.max(...unsettled.map(settledAt));
  const total = until - Date.now();
  if (total > budget.remainingMs) return false;
  const probe = Math.min(BUSY_PROBE_MS, Math.max(total, 0));
  await sleep(probe);
  for (const state of unsettled) {
    const again = observe(state.path);
    if (
      "problem" in again || again.dev !== state.dev || again.ino !== state.ino ||
      again.ctime !== state.ctime || again.mtime !== state.mtime
    ) return false;
  }
  await sleep(until - Date.now());
  budget.remainingMs -= total;
  return signal?.aborted !== true;
}

function observe(path: string): FolderState | ChainProblem {
  const observedAt = Date.now();
  let stat: Deno.FileInfo;
  try {
    stat = Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return { problem: "missing", folder: path, index: -1 };
    }
    return { problem: "io", folder: path, error };
  }
  if (stat.isSymlink) return changed(path, "it is now a symlink");
  if (!stat.isDirectory) return changed(path, "it is no longer a folder");
  if (stat.ino === null || stat.ctime === null || stat.mtime === null) {
    return {
      problem: "io",
      folder: path,
      error: new Error("this platform reports no inode or change time"),
    };
  }
  return {
    path,
    dev: stat.dev,
    ino: stat.ino,
    ctime: stat.ctime.getTime(),
    mtime: stat.mtime.getTime(),
    observedAt,
  };
}

function changed(folder: string, reason = "it changed"): ChainProblem {
  return { problem: "changed", folder, reason };
}

function sleep(milliseconds: number): Promise<void> {
  if (milliseconds <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
