/**
 * The run's watch over its write roots: one scan at the start, then kept current by what the run
 * itself changes, so that what each confined process costs does not grow with the tree.
 *
 * - {@linkcode ProtectedPathWatch.open} scans the roots once (`protected_tree.ts`) and watches
 *   every folder of the write roots with inotify (`Deno.watchFs`, one watch a folder, never
 *   recursive: Deno's recursive watch follows links out of the roots).
 * - {@linkcode ProtectedPathWatch.examine}, after each process, first writes a sentinel file into
 *   a folder of the run that every watch instance also watches and waits until each instance has
 *   reported it (inotify keeps an instance's events in order: every earlier event has then
 *   arrived), then looks only at the paths the events name. A folder that did not exist before is
 *   walked whole (a process can create `a/b/.git` before any watch sees `a`), then watched.
 * - Anything in doubt (a queue overflow, a watch error, a sentinel that does not come back, a
 *   watched folder renamed, a watch that cannot be added) makes it walk the whole tree again and
 *   rebuild the watch: slower, never blind.
 *
 * A `.git` (file or folder) that did not exist at the start is a new repository: it is reported
 * (the caller quarantines it) unless it lies in the run's own folders (`exempt`), or below the
 * top of a write root while `allowNestedRepositories` is on.
 *
 * @module
 */

import * as nodePath from "node:path";
import { isWithin } from "../sandbox/mod.ts";
import {
  scanFolder,
  scanTree,
  settleTracked,
  type TreeFacts,
  type TreeScanOptions,
} from "./protected_tree.ts";

/** What {@linkcode ProtectedPathWatch.open} needs; every path absolute and real. */
export interface ProtectedPathWatchOptions extends TreeScanOptions {
  /** Folders where a new `.git` is the run's own (its workspace/, deliverables/, home, tmp). */
  exempt: readonly string[];
  /** A folder of the run that no command can write; the sentinel files go there. */
  sentinelFolder: string;
  /** `sandbox.allow_nested_repositories`: keep new `.git` below the top of a write root. */
  allowNestedRepositories: boolean;
  /** Longest wait for the sentinel, in ms, before a full scan. @default 2000 */
  sentinelTimeoutMs?: number;
}

/** How the last {@linkcode ProtectedPathWatch.examine} learnt what changed. */
export type ExamineMode = "events" | "full-scan";

/** Watch instances kept before they are merged into one. */
const MAX_INSTANCES = 16;
/** Event paths kept between two examinations before the watch gives up and rescans. */
const MAX_PENDING_PATHS = 100_000;

interface Instance {
  watcher: Deno.FsWatcher;
  /** Sentinel file paths this instance reported. */
  seen: Set<string>;
  wake: (() => void) | null;
}

/**
 * The watch of one domain's write roots (see the module documentation): open once, examine after
 * each process, close at the end.
 *
 * @example
 * ```ts
 * import { ProtectedPathWatch } from "./protected_path_watch.ts";
 * const root = await Deno.makeTempDir();
 * await Deno.mkdir(`${root}/ws`);
 * const watch = ProtectedPathWatch.open({
 *   writeRoots: [`${root}/ws`], readRoots: [], exclusions: [], sensitiveMatch: () => null,
 *   exempt: [], sentinelFolder: `${root}/watch`, allowNestedRepositories: false,
 * });
 * if (!(watch instanceof ProtectedPathWatch)) throw new Error(watch.reason);
 * await Deno.mkdir(`${root}/ws/pkg/.git`, { recursive: true }); // what a process did
 * console.assert((await watch.examine())[0] === `${root}/ws/pkg/.git`);
 * watch.close();
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export class ProtectedPathWatch {
  readonly #options: ProtectedPathWatchOptions;
  readonly #writeRoots: string[];
  #facts: TreeFacts;
  /** `.git` entries present at the start (and kept since, under allowNestedRepositories). */
  readonly #known: Set<string>;
  /** Watched folders: path → inode when watched (a folder replaced under its name is new). */
  #folders = new Map<string, number>();
  #instances: Instance[] = [];
  /** Paths events named since the last examination: true when one created, removed or renamed it. */
  #pending = new Map<string, boolean>();
  #doubt: string | null = null;
  #sentinelCount = 0;
  readonly #sentinelPrefix = `sentinel-${crypto.randomUUID().slice(0, 8)}`;
  #queue: Promise<unknown> = Promise.resolve();
  #lastMode: ExamineMode = "events";

  private constructor(options: ProtectedPathWatchOptions, facts: TreeFacts, folders: string[]) {
    this.#options = options;
    this.#writeRoots = [...options.writeRoots];
    this.#facts = facts;
    this.#known = new Set(facts.repositories.keys());
    this.#unwatched = folders;
  }

  /** Folders found by the last full scan, not yet watched. */
  #unwatched: string[];

  /**
   * Scans the roots and starts watching the write roots.
   *
   * @returns the watch, or why the roots cannot be scanned (more entries than the scan may look at)
   */
  static open(options: ProtectedPathWatchOptions): ProtectedPathWatch | { reason: string } {
    const scan = scanTree(options);
    if (!scan.ok) return { reason: scan.reason };
    writeBaseline(options.sentinelFolder, scan.facts.repositories.keys());
    const watch = new ProtectedPathWatch(options, scan.facts, scan.folders);
    watch.#rebuild();
    return watch;
  }

  /** The current facts: `.git` entries, masked and tracked sensitive files. Live; do not change. */
  get facts(): TreeFacts {
    return this.#facts;
  }

  /** How the last examination learnt what changed. */
  get lastMode(): ExamineMode {
    return this.#lastMode;
  }

  /**
   * After a process: finds what it created where a protected path belongs and brings the facts up
   * to date. Calls are serialised.
   *
   * @returns the new `.git` entries to quarantine (absolute paths), sorted
   */
  examine(): Promise<string[]> {
    const next = this.#queue.then(() => this.#examine());
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Stops every watch. */
  close(): void {
    for (const instance of this.#instances) this.#closeInstance(instance);
    this.#instances = [];
  }

  async #examine(): Promise<string[]> {
    if (this.#doubt === null && !(await this.#sentinel())) this.#doubt = "sentinel";
    if (this.#doubt !== null) return this.#rescan();
    this.#lastMode = "events";
    const paths = [...this.#pending];
    this.#pending.clear();
    const created = new Set<string>();
    const newFolders: string[] = [];
    let newSensitive = false;
    for (const [eventPath, structural] of paths) {
      const path = this.#subject(eventPath);
      if (path === null) continue;
      let info: Deno.FileInfo;
      try {
        info = Deno.lstatSync(path);
      } catch {
        // Removed, or moved away (a moved folder's watch reports its old name: harmless, as
        // its new name is a new folder, walked and watched below).
        this.#facts.masked.delete(path);
        this.#folders.delete(path);
        continue;
      }
      // Watched already, the same folder: its own watch reports what changes inside. A folder
      // created, removed or renamed under a watched name is a new one (inodes are reused).
      if (info.isDirectory && !structural && this.#folders.get(path) === info.ino) continue;
      if (info.isSymlink) continue;
      if (nodePath.basename(path) === ".git") {
        this.#repository(path, info.isDirectory, created);
        continue;
      }
      if (this.#options.sensitiveMatch(path) !== null) {
        if (!this.#facts.tracked.has(path) && (info.isFile || info.isDirectory)) {
          this.#facts.masked.set(path, info.isFile ? "file" : "directory");
          newSensitive = true;
        }
        continue;
      }
      if (!info.isDirectory || this.#excluded(path)) continue;
      const found: TreeFacts = { repositories: new Map(), masked: new Map(), tracked: new Set() };
      if (!scanFolder(path, this.#options, found, newFolders, { left: Infinity })) continue;
      for (const [gitPath, isFolder] of found.repositories) {
        this.#repository(gitPath, isFolder, created);
      }
      for (const [masked, type] of found.masked) {
        if (!this.#facts.tracked.has(masked)) this.#facts.masked.set(masked, type);
        newSensitive = true;
      }
    }
    if (newSensitive) settleTracked(this.#facts);
    if (this.#doubt !== null) {
      const rest = await this.#rescan();
      return [...new Set([...created, ...rest])].sort();
    }
    if (newFolders.length > 0) this.#watchMore(newFolders);
    return [...created].sort();
  }

  /** The path an event is about: inside a `.git` folder, that `.git`; null when ignored. */
  #subject(eventPath: string): string | null {
    if (isWithin(eventPath, this.#options.sentinelFolder)) return null;
    const parts = eventPath.split(nodePath.sep);
    const gitIndex = parts.indexOf(".git");
    const path = gitIndex < 0 ? eventPath : parts.slice(0, gitIndex + 1).join(nodePath.sep);
    if (gitIndex >= 0 && path !== eventPath && this.#known.has(path)) return null;
    return this.#writeRoots.some((root) => isWithin(path, root)) ? path : null;
  }

  #excluded(path: string): boolean {
    return this.#options.exclusions.some((excluded) => isWithin(path, excluded));
  }

  /** Records a `.git` found after the start: known, kept (allowed) or created. */
  #repository(path: string, isFolder: boolean, created: Set<string>): void {
    if (this.#known.has(path)) {
      this.#facts.repositories.set(path, isFolder);
      return;
    }
    if (isNewRepository(path, this.#options)) created.add(path);
  }

  /** Walks the whole tree again; the facts and the watch start afresh. */
  #rescan(): string[] {
    this.#lastMode = "full-scan";
    const scan = scanTree(this.#options);
    if (!scan.ok) {
      // Cannot see the tree: keep the old facts, stay in doubt; the caller's next profile fails.
      this.#doubt = scan.reason;
      throw new Error(`Cannot check the write roots for new repositories: ${scan.reason}`);
    }
    const created = new Set<string>();
    for (const [path, isFolder] of scan.facts.repositories) {
      this.#repository(path, isFolder, created);
    }
    for (const path of created) scan.facts.repositories.delete(path);
    this.#facts = scan.facts;
    this.#folders = new Map();
    this.#unwatched = scan.folders;
    this.#pending.clear();
    this.#doubt = null;
    this.#rebuild();
    return [...created].sort();
  }

  /** One watch instance over every folder (the others closed after it is up). */
  #rebuild(): void {
    const old = this.#instances;
    this.#instances = [];
    const folders = [...this.#folders.keys(), ...this.#unwatched];
    this.#folders = new Map();
    this.#unwatched = [];
    this.#watchMore(folders);
    for (const instance of old) this.#closeInstance(instance);
  }

  /** Watches `folders` (and the sentinel folder) with a new instance; merges when too many. */
  #watchMore(folders: string[]): void {
    const present: string[] = [];
    for (const folder of folders) {
      try {
        const info = Deno.lstatSync(folder);
        if (!info.isDirectory) continue;
        this.#folders.set(folder, info.ino ?? -1);
        present.push(folder);
      } catch {
        // Gone since it was walked.
      }
    }
    if (this.#instances.length >= MAX_INSTANCES) {
      this.#rebuild();
      return;
    }
    let watcher: Deno.FsWatcher;
    try {
      watcher = Deno.watchFs([this.#options.sentinelFolder, ...present], { recursive: false });
    } catch (error) {
      this.#doubt = `cannot watch the write roots (${String(error)})`;
      return;
    }
    const instance: Instance = { watcher, seen: new Set(), wake: null };
    this.#instances.push(instance);
    this.#listen(instance);
  }

  async #listen(instance: Instance): Promise<void> {
    try {
      for await (const event of instance.watcher) {
        if (event.flag === "rescan") this.#doubt = "the watch lost events (queue overflow)";
        for (const path of event.paths) {
          if (nodePath.dirname(path) === this.#options.sentinelFolder) {
            instance.seen.add(path);
            instance.wake?.();
          } else if (this.#pending.size < MAX_PENDING_PATHS) {
            const structural = event.kind === "create" || event.kind === "remove" ||
              event.kind === "rename";
            this.#pending.set(path, structural || this.#pending.get(path) === true);
          } else {
            this.#doubt = "too many changes between two checks";
          }
        }
      }
    } catch (error) {
      if (this.#instances.includes(instance)) this.#doubt = `the watch failed (${String(error)})`;
    }
  }

  #closeInstance(instance: Instance): void {
    try {
      instance.watcher.close();
    } catch {
      // Already closed.
    }
  }

  /** Writes a sentinel file and waits until every instance reported it. */
  async #sentinel(): Promise<boolean> {
    if (this.#instances.length === 0) return false;
    const path = nodePath.join(
      this.#options.sentinelFolder,
      `${this.#sentinelPrefix}-${++this.#sentinelCount}`,
    );
    try {
      Deno.writeFileSync(path, new Uint8Array());
    } catch {
      return false;
    }
    const deadline = Date.now() + (this.#options.sentinelTimeoutMs ?? 2000);
    try {
      for (const instance of this.#instances) {
        while (!instance.seen.has(path)) {
          const left = deadline - Date.now();
          if (left <= 0) return false;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, left);
            instance.wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          instance.wake = null;
        }
        instance.seen.delete(path);
      }
      return true;
    } finally {
      try {
        Deno.removeSync(path);
      } catch {
        // Removed already.
      }
    }
  }
}

/** The file in the sentinel folder that lists the `.git` entries present at the start (JSON). */
export const BASELINE_FILE = "repositories-at-start.json";

/** Writes the baseline `repositories_at_close.ts` compares with, once: its first writer wins. */
function writeBaseline(sentinelFolder: string, repositories: Iterable<string>): void {
  Deno.mkdirSync(sentinelFolder, { recursive: true });
  try {
    Deno.writeTextFileSync(
      nodePath.join(sentinelFolder, BASELINE_FILE),
      JSON.stringify([...repositories]),
      { createNew: true },
    );
  } catch (error: unknown) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
}

/** Whether a `.git` absent at the start is one to quarantine (not exempt, not kept). */
export function isNewRepository(
  path: string,
  options: Pick<
    ProtectedPathWatchOptions,
    "writeRoots" | "exclusions" | "exempt" | "allowNestedRepositories"
  >,
): boolean {
  if (options.exclusions.some((excluded) => isWithin(path, excluded))) return false;
  if (options.exempt.some((folder) => isWithin(path, folder))) return false;
  const atTop = options.writeRoots.includes(nodePath.dirname(path));
  return !(options.allowNestedRepositories && !atTop);
}
