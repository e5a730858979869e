/**
 * The run folder (ARCHITECTURE §4): one folder a run under `runs_dir`, holding everything the run
 * leaves behind.
 *
 * @module
 */

import { basename, join, resolve } from "node:path";
import { AuditWriteError } from "./audit_write_error.ts";
import { createRunId } from "./create_run_id.ts";

/** Absolute paths of everything inside a run folder. */
export interface RunFolderPaths {
  /** `events.jsonl`: the run's timeline, one event a line. */
  events: string;
  /** `logs/tools.jsonl`: one record a tool call. */
  toolsLog: string;
  /** `logs/errors.jsonl`: failures of the runtime itself. */
  errorsLog: string;
  /** `workspace/`: scratch space of the run, writable by tools. */
  workspace: string;
  /** `deliverables/`: what the run hands over, writable by tools. */
  deliverables: string;
  /** `archive/`: copies kept by the runtime (e.g. files before an edit). */
  archive: string;
  /** `artifacts/`: content-addressed large outputs. */
  artifacts: string;
  /** `policy.json`: the effective policy snapshot, written by the recorder. */
  policy: string;
  /** `system_prompt.md`: the system prompt the model was given (redacted), written by the recorder. */
  systemPrompt: string;
}

/** Options of {@linkcode RunFolder.create}. */
export interface RunFolderOptions {
  /**
   * The run id, used as the folder name: letters, digits, `.`, `_`, `-`, not starting with `.`.
   * An existing id is refused.
   * @default createRunId(now)
   */
  id?: string;
  /**
   * Start time used for the generated id.
   * @default new Date()
   */
  now?: Date;
  /**
   * Random source of the generated id, numbers in [0, 1). A generated id that exists already is
   * drawn again (up to 8 times).
   * @default a cryptographically random source
   */
  random?: () => number;
}

const SAFE_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const GENERATED_ID_ATTEMPTS = 8;

/**
 * A run's folder on disk, laid out as `<runs_dir>/<run-id>/` with `events.jsonl`,
 * `logs/tools.jsonl`, `logs/errors.jsonl`, `workspace/`, `deliverables/`, `archive/`, `artifacts/`
 * and, once {@linkcode AuditRecorder.writePolicy} has run, `policy.json`.
 *
 * @example
 * ```ts
 * import { RunFolder } from "./run_folder.ts";
 * const runsDir = await Deno.makeTempDir();
 * const folder = await RunFolder.create(runsDir);
 * console.assert(folder.paths.events.endsWith("events.jsonl"));
 * await Deno.remove(runsDir, { recursive: true });
 * ```
 */
export class RunFolder {
  /** The run id, also the folder's name. */
  readonly id: string;
  /** Absolute path of the run folder. */
  readonly dir: string;
  /** Absolute paths inside the run folder; see {@linkcode RunFolderPaths}. */
  readonly paths: Readonly<RunFolderPaths>;

  private constructor(id: string, dir: string) {
    this.id = id;
    this.dir = dir;
    this.paths = Object.freeze({
      events: join(dir, "events.jsonl"),
      toolsLog: join(dir, "logs", "tools.jsonl"),
      errorsLog: join(dir, "logs", "errors.jsonl"),
      workspace: join(dir, "workspace"),
      deliverables: join(dir, "deliverables"),
      archive: join(dir, "archive"),
      artifacts: join(dir, "artifacts"),
      policy: join(dir, "policy.json"),
      systemPrompt: join(dir, "system_prompt.md"),
    });
  }

  /**
   * Creates a new run folder and its layout: the folders, and the three JSONL files, empty.
   * `runsDir` is created (recursively) when missing. The run folder itself is claimed atomically:
   * two processes never get the same folder. When the layout cannot be completed (a full disk),
   * the half-made run folder is removed again: no run folder is better than one that cannot say
   * why it is empty.
   *
   * `policy.json` is not created here: an empty file would not be valid JSON; the recorder writes it.
   *
   * @param runsDir Folder of run folders, absolute or relative to the current directory.
   * @param options See {@linkcode RunFolderOptions}.
   * @returns The created folder.
   * @throws {Deno.errors.AlreadyExists} When `options.id` names an existing run.
   * @throws {TypeError} When `options.id` is not a safe folder name.
   * @throws {AuditWriteError} When the file system refuses `runsDir` or the run folder: a file in
   *   the way, a read-only or full disk, no permission.
   */
  static async create(runsDir: string, options: RunFolderOptions = {}): Promise<RunFolder> {
    const root = resolve(runsDir);
    try {
      await Deno.mkdir(root, { recursive: true });
      if (!(await Deno.stat(root)).isDirectory) {
        throw Object.assign(new Error("it is not a folder"), { code: "ENOTDIR" });
      }
    } catch (error: unknown) {
      throw AuditWriteError.from(root, error);
    }
    const given = options.id;
    if (given !== undefined && (!SAFE_ID.test(given) || given.length > 200)) {
      throw new TypeError(
        `Cannot create run folder "${given}": a run id may only hold letters, digits, ".", "_" ` +
          'and "-", and may not start with "."',
      );
    }
    const now = options.now ?? new Date();
    for (let attempt = 1;; attempt++) {
      const id = given ?? (options.random ? createRunId(now, options.random) : createRunId(now));
      const dir = join(root, id);
      try {
        await Deno.mkdir(dir);
      } catch (error: unknown) {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw AuditWriteError.from(dir, error);
        if (given === undefined && attempt < GENERATED_ID_ATTEMPTS) continue;
        throw new Deno.errors.AlreadyExists(
          `Cannot create run folder "${dir}": a run with id "${id}" already exists`,
        );
      }
      const folder = new RunFolder(id, dir);
      try {
        await folder.#createLayout();
      } catch (error: unknown) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
        throw AuditWriteError.from(dir, error);
      }
      return folder;
    }
  }

  /**
   * Opens an existing run folder to continue it (`kagent-run resume`): nothing is created or
   * changed; the next segment's records are appended to its logs.
   *
   * @param runDir The run folder (`runs/<id>`), absolute or relative to the current directory.
   * @returns The folder, its id being the folder's name.
   * @throws {TypeError} When `runDir` is not a run folder: its name is not a run id, or it has no
   *   `events.jsonl`, `logs/tools.jsonl` or `logs/errors.jsonl`.
   * @example
   * ```ts
   * import { RunFolder } from "./run_folder.ts";
   * const runsDir = await Deno.makeTempDir();
   * const created = await RunFolder.create(runsDir);
   * const opened = await RunFolder.open(created.dir);
   * console.assert(opened.id === created.id);
   * await Deno.remove(runsDir, { recursive: true });
   * ```
   */
  static async open(runDir: string): Promise<RunFolder> {
    const dir = resolve(runDir);
    const id = basename(dir);
    if (!SAFE_ID.test(id)) {
      throw new TypeError(`Cannot open run folder "${dir}": its name is not a run id`);
    }
    const folder = new RunFolder(id, dir);
    for (const file of [folder.paths.events, folder.paths.toolsLog, folder.paths.errorsLog]) {
      const info = await Deno.lstat(file).catch(() => null);
      if (info === null || !info.isFile) {
        throw new TypeError(`Cannot open run folder "${dir}": it has no file "${file}"`);
      }
    }
    return folder;
  }

  /**
   * Makes the layout's folders that are missing, as a workflow artifact drops empty folders:
   * `workspace/`, `deliverables/`, `archive/`, `artifacts/` (files are never touched).
   *
   * @throws {AuditWriteError} When the file system refuses.
   */
  async restoreFolders(): Promise<void> {
    const { paths } = this;
    for (const dir of [paths.workspace, paths.deliverables, paths.archive, paths.artifacts]) {
      try {
        await Deno.mkdir(dir, { recursive: true });
      } catch (error: unknown) {
        throw AuditWriteError.from(dir, error);
      }
    }
  }

  async #createLayout(): Promise<void> {
    const { paths } = this;
    for (const dir of [paths.workspace, paths.deliverables, paths.archive, paths.artifacts]) {
      await Deno.mkdir(dir);
    }
    await Deno.mkdir(join(this.dir, "logs"));
    for (const file of [paths.events, paths.toolsLog, paths.errorsLog]) {
      await Deno.writeFile(file, new Uint8Array(), { createNew: true });
    }
  }
}
