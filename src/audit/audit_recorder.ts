/**
 * The run's recorder: events, tool records, errors and the policy snapshot, all redacted.
 *
 * @module
 */

import { chainAnchor, type ChainLink } from "./audit_chain.ts";
import type { AuditEventFields, AuditEventType } from "./audit_event.ts";
import { AuditWriteError } from "./audit_write_error.ts";
import { type JsonlFile, JsonlWriter } from "./jsonl_writer.ts";
import { type EventObserver, ObservedJsonlWriter } from "./event_observers.ts";
import type { Redactor } from "./redactor.ts";
import type { RunFolder } from "./run_folder.ts";
import { type RunManifest, sealRun, SIGNATURE_ALGORITHM, type SigningKey } from "./run_manifest.ts";

/** Options of {@linkcode AuditRecorder}. */
export interface AuditRecorderOptions {
  /** The run folder to write into. */
  folder: RunFolder;
  /** Applied to every field written. */
  redactor: Redactor;
  /**
   * The clock for `ts` fields.
   * @default () => new Date()
   */
  now?: () => Date;
  /**
   * Opens a log for appending (tests pass files that fail part-way).
   * @default Deno.open(path, { append: true, create: true })
   */
  openLog?: (path: string) => Promise<JsonlFile>;
  /**
   * The run's policy hash (`policy.json`'s `hash`), part of each log's chain anchor
   * (`chainAnchor`); null for a run without a policy.
   * @default null
   */
  policyHash?: string | null;
  /**
   * Signs `manifest.json` with HMAC-SHA256 under this key (`audit.signing_key_env`); the key is
   * never written anywhere.
   * @default null: the manifest is not signed
   */
  signing?: SigningKey | null;
}

/** Receives each record the file system refused; see {@linkcode AuditRecorder.reportWriteFailuresTo}. */
export type WriteFailureHandler = (error: AuditWriteError) => void;

/**
 * Writes the run's audit trail into its {@linkcode RunFolder}: `events.jsonl`, `logs/tools.jsonl`,
 * `logs/errors.jsonl` and `policy.json`. Every value passes through the {@linkcode Redactor} first.
 * Each log has one {@linkcode JsonlWriter}, so concurrent records never interleave, and each is
 * hash-chained (`seq`, `prev`; see `audit_chain.ts`).
 *
 * Sealing: the `run.completed` event carries the end of the tools and errors chains (`chains`) and
 * is fsynced; {@linkcode AuditRecorder.close} then writes `manifest.json` (see `run_manifest.ts`),
 * last, atomically and fsynced, signed when a key was given. A run that never records
 * `run.completed` (killed, failed to start) gets no manifest.
 *
 * The recorder lives on the main thread only: tool handlers run in a Worker without write access to
 * the run folder's logs, so a handler cannot rewrite the trail.
 *
 * When the file system refuses a record (a full disk, a read-only runs folder), the record is left
 * out whole (never half a line) and the write rejects with an {@linkcode AuditWriteError}. Once a
 * run is under way, {@linkcode AuditRecorder.reportWriteFailuresTo} turns those rejections into
 * reports, so that every call still open can end and be recorded wherever a record still fits.
 *
 * @example
 * ```ts
 * import { AuditRecorder } from "./audit_recorder.ts";
 * import { Redactor } from "./redactor.ts";
 * import { RunFolder } from "./run_folder.ts";
 * const runsDir = await Deno.makeTempDir();
 * const folder = await RunFolder.create(runsDir);
 * const recorder = new AuditRecorder({ folder, redactor: new Redactor({ secrets: [] }) });
 * await recorder.event("tool.started", { tool_call_id: "call-1", tool: "fs.read_file" });
 * await recorder.close();
 * await Deno.remove(runsDir, { recursive: true });
 * ```
 */
export class AuditRecorder {
  readonly #folder: RunFolder;
  readonly #redactor: Redactor;
  readonly #now: () => Date;
  readonly #events: ObservedJsonlWriter;
  readonly #tools: JsonlWriter;
  readonly #errors: JsonlWriter;
  #fileWrites: Promise<void> = Promise.resolve();
  #closing: Promise<void> | null = null;
  #writeFailure: AuditWriteError | null = null;
  #onWriteFailure: WriteFailureHandler | null = null;
  readonly #policyHash: string | null;
  readonly #signing: SigningKey | null;
  /** Set once `run.completed` is written: the run is sealed when the recorder closes. */
  #completed = false;

  /** @param options See {@linkcode AuditRecorderOptions}. */
  constructor(options: AuditRecorderOptions) {
    this.#folder = options.folder;
    this.#redactor = options.redactor;
    this.#now = options.now ?? (() => new Date());
    this.#policyHash = options.policyHash ?? null;
    this.#signing = options.signing ?? null;
    const writing = (file: string) => ({
      ...(options.openLog === undefined ? {} : { open: options.openLog }),
      chain: { anchor: chainAnchor(options.folder.id, this.#policyHash, file) },
    });
    const { events, toolsLog, errorsLog } = options.folder.paths;
    this.#events = new ObservedJsonlWriter(events, writing("events.jsonl"));
    this.#tools = new JsonlWriter(toolsLog, writing("logs/tools.jsonl"));
    this.#errors = new JsonlWriter(errorsLog, writing("logs/errors.jsonl"));
  }

  /** The first record the file system refused, or null while every record was written. */
  get writeFailure(): AuditWriteError | null {
    return this.#writeFailure;
  }

  /**
   * From now on, a record the file system refuses does not reject: the write resolves (the record
   * is missing from its file, whole) and `handler` receives the {@linkcode AuditWriteError}, once a
   * refused record. Every later record is still attempted, in every file: space may come back,
   * and a small line may fit where a large one did not. {@linkcode AuditRecorder.writeFailure}
   * keeps the first failure, so the run can end saying so.
   *
   * Other rejections (a closed recorder, a record that cannot be serialised) stay rejections.
   *
   * @param handler Called synchronously with each failure; its own exceptions are ignored.
   * @example
   * ```ts ignore
   * const controller = new AbortController();
   * recorder.reportWriteFailuresTo((error) => controller.abort(error.message));
   * ```
   */
  reportWriteFailuresTo(handler: WriteFailureHandler): void {
    this.#onWriteFailure = handler;
  }

  /** Calls `observer` with each event record once written ({@linkcode ObservedJsonlWriter}). */
  observeEvents(observer: EventObserver): void {
    this.#events.observers.push(observer);
  }

  /**
   * Appends an event to `events.jsonl`: `{ "ts", "type", "run_id", ...fields, "seq", "prev" }`,
   * `ts` being ISO-8601 UTC with milliseconds.
   *
   * `run.completed` seals the run: it is written once every tool and error record issued before it
   * is in its file, with `chains: {tools, errors}` (each `{seq, hash}` of that log's last record),
   * then fsynced; {@linkcode AuditRecorder.close} writes the manifest.
   *
   * @param type The event's type, one of {@linkcode AuditEventType} (`noun.verb`, e.g.
   *   `tool.started`); docs/EVENTS.md lists them all.
   * @param fields The fields that type carries ({@linkcode AuditEventFields}), redacted; an
   *   unknown or missing field is a compile error.
   * @returns The event's `seq` in `events.jsonl`; null when the file system refused it and
   *   failures are reported.
   * @throws {TypeError} (as a rejection) When `fields` uses a reserved key, a field cannot be
   *   serialised, or the recorder is closed.
   * @throws {AuditWriteError} (as a rejection) When the file system refused the record, unless
   *   failures are reported ({@linkcode AuditRecorder.reportWriteFailuresTo}).
   */
  event<T extends AuditEventType>(type: T, fields: AuditEventFields<T>): Promise<number | null> {
    const reserved = ["ts", "type", "run_id", "seq", "prev"];
    const build = (extra: Record<string, unknown>) => (redacted: Record<string, unknown>) => ({
      ts: this.#timestamp(),
      type,
      run_id: this.#folder.id,
      ...redacted,
      ...extra,
    });
    const record = fields as Record<string, unknown>;
    if (type !== "run.completed") {
      return this.#append(this.#events, "event", record, reserved, build({}));
    }
    return this.#complete(record, reserved, build);
  }

  /** Writes `run.completed` after the other logs' pending records, with their chains' ends. */
  async #complete(
    fields: Record<string, unknown>,
    reserved: string[],
    build: (
      extra: Record<string, unknown>,
    ) => (redacted: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<number | null> {
    const [tools, errors] = await Promise.all([this.#tools.head(), this.#errors.head()]);
    const chains = { tools: tools as ChainLink, errors: errors as ChainLink };
    const signing = this.#signing && { algorithm: SIGNATURE_ALGORITHM, key_env: this.#signing.env };
    const seq = await this.#append(
      this.#events,
      "event",
      fields,
      [...reserved, "chains", "signing"],
      build({ chains, signing }),
    );
    this.#completed = true;
    await this.#tolerate(this.#events.sync());
    return seq;
  }

  /**
   * Appends a tool call record to `logs/tools.jsonl`: `{ "run_id", ...record }`, redacted.
   *
   * @param record The call's record (e.g. a ToolResult with timing); may not use the keys
   *   `run_id`, `seq`, `prev`.
   * @returns The record's `seq` in `logs/tools.jsonl`; null as {@linkcode AuditRecorder.event}.
   * @throws {TypeError} (as a rejection) As {@linkcode AuditRecorder.event}.
   */
  toolRecord(record: Record<string, unknown>): Promise<number | null> {
    return this.#append(
      this.#tools,
      "tool record",
      record,
      ["run_id", "seq", "prev"],
      (redacted) => ({
        run_id: this.#folder.id,
        ...redacted,
      }),
    );
  }

  /**
   * Appends an error record to `logs/errors.jsonl`: `{ "ts", "run_id", ...record }`, redacted.
   *
   * @param record What failed (e.g. `{ "error_type", "message", "details" }`); may not use the keys
   *   `ts`, `run_id`, `seq` or `prev`.
   * @returns The record's `seq` in `logs/errors.jsonl`; null as {@linkcode AuditRecorder.event}.
   * @throws {TypeError} (as a rejection) As {@linkcode AuditRecorder.event}.
   */
  error(record: Record<string, unknown>): Promise<number | null> {
    return this.#append(
      this.#errors,
      "error record",
      record,
      ["ts", "run_id", "seq", "prev"],
      (redacted) => ({
        ts: this.#timestamp(),
        run_id: this.#folder.id,
        ...redacted,
      }),
    );
  }

  /**
   * Writes the effective policy snapshot to `policy.json`, redacted, pretty printed (2 spaces,
   * final newline). Replaces an earlier snapshot; the file is replaced whole (written to a temporary
   * name, then renamed), so readers never see half a policy.
   *
   * @param snapshot Any JSON-serialisable value.
   * @throws {TypeError} (as a rejection) When the recorder is closed or the snapshot cannot be
   *   serialised.
   * @throws {AuditWriteError} (as a rejection) As {@linkcode AuditRecorder.event}.
   */
  writePolicy(snapshot: unknown): Promise<void> {
    if (this.#closing !== null) {
      return Promise.reject(
        new TypeError("Cannot write the policy snapshot: the recorder is closed"),
      );
    }
    let text: string;
    try {
      text = `${JSON.stringify(this.#redactor.redactValue(snapshot), null, 2)}\n`;
    } catch (error: unknown) {
      const reason = error instanceof Error ? error.message : String(error);
      return Promise.reject(
        new TypeError(`Cannot write the policy snapshot: it is not serialisable: ${reason}`),
      );
    }
    return this.#replaceFile(this.#folder.paths.policy, text);
  }

  /**
   * Writes `system_prompt.md`: the system prompt as the model gets it, redacted like every other
   * record (the `system_prompt.recorded` event carries the sha256 of the text actually sent).
   *
   * @throws {TypeError} (as a rejection) when the recorder is closed.
   * @throws {AuditWriteError} (as a rejection) As {@linkcode AuditRecorder.event}.
   */
  writeSystemPrompt(text: string): Promise<void> {
    if (this.#closing !== null) {
      return Promise.reject(
        new TypeError("Cannot write the system prompt: the recorder is closed"),
      );
    }
    return this.#replaceFile(
      this.#folder.paths.systemPrompt,
      `${this.#redactor.redactText(text)}\n`,
    );
  }

  /** Replaces a file of the run folder atomically (a temporary file, then rename), in order. */
  #replaceFile(path: string, text: string): Promise<void> {
    const written = this.#fileWrites.then(async () => {
      const temporary = `${path}.${crypto.randomUUID()}.tmp`;
      try {
        await Deno.writeTextFile(temporary, text, { createNew: true });
        await Deno.rename(temporary, path);
      } catch (error: unknown) {
        await Deno.remove(temporary).catch(() => {});
        throw AuditWriteError.from(path, error);
      }
    });
    this.#fileWrites = written.catch(() => {});
    return this.#tolerate(written).then(() => {});
  }

  /**
   * Takes a write of the run folder that failed outside the recorder (an artifact a record points
   * to) the way the recorder takes its own: once failures are reported
   * ({@linkcode AuditRecorder.reportWriteFailuresTo}), it is reported and this returns, so the
   * caller can still write the record without it; before that, it is thrown.
   *
   * @param error What the write threw.
   * @throws The error itself, unless it is an {@linkcode AuditWriteError} and failures are reported.
   */
  absorbWriteFailure(error: unknown): void {
    if (!(error instanceof AuditWriteError)) throw error;
    this.#writeFailure ??= error;
    const handler = this.#onWriteFailure;
    if (handler === null) throw error;
    try {
      handler(error);
    } catch {
      // A failing handler must not turn a report back into a rejection.
    }
  }

  /** Notes a refused write; reports it instead of rejecting once a handler is set. */
  #tolerate<T>(written: Promise<T>): Promise<T | null> {
    return written.catch((error: unknown) => {
      this.absorbWriteFailure(error);
      return null;
    });
  }

  /**
   * Waits for every pending write, then closes the logs. Later writes reject with a TypeError.
   * Once `run.completed` was written, then writes `manifest.json`: the seal (see
   * `run_manifest.ts`), signed when the recorder has a key. Calling it again returns the same
   * promise.
   *
   * @throws {AuditWriteError} (as a rejection) When the manifest could not be written, unless
   *   failures are reported ({@linkcode AuditRecorder.reportWriteFailuresTo}).
   */
  close(): Promise<void> {
    this.#closing ??= Promise.all([
      this.#events.head(),
      this.#tools.head(),
      this.#errors.head(),
      this.#fileWrites,
    ]).then(async ([events, tools, errors]) => {
      await Promise.all([this.#events.close(), this.#tools.close(), this.#errors.close()]);
      if (!this.#completed) return;
      const chains = {
        "events.jsonl": events as ChainLink,
        "logs/tools.jsonl": tools as ChainLink,
        "logs/errors.jsonl": errors as ChainLink,
      };
      await this.#tolerate(this.#seal(chains));
    });
    return this.#closing;
  }

  async #seal(chains: RunManifest["chains"]): Promise<void> {
    try {
      await sealRun(this.#folder.dir, {
        runId: this.#folder.id,
        sealedAt: this.#timestamp(),
        policyHash: this.#policyHash,
        chains,
        signing: this.#signing,
      });
    } catch (error: unknown) {
      throw AuditWriteError.from(`${this.#folder.dir}/manifest.json`, error);
    }
  }

  #timestamp(): string {
    return this.#now().toISOString();
  }

  #append(
    writer: JsonlWriter,
    what: string,
    fields: Record<string, unknown>,
    reserved: readonly string[],
    build: (redacted: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<number | null> {
    const clash = reserved.find((key) => Object.hasOwn(fields, key));
    if (clash !== undefined) {
      return Promise.reject(
        new TypeError(`Cannot record the ${what}: key "${clash}" is set by the recorder`),
      );
    }
    const redacted = this.#redactor.redactValue(fields) as Record<string, unknown>;
    return this.#tolerate(writer.write(build(redacted)).then((link) => link?.seq ?? null));
  }
}
