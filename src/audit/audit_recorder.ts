/**
 * The run's recorder: events, tool records, errors and the policy snapshot, all redacted.
 *
 * @module
 */

import { JsonlWriter } from "./jsonl_writer.ts";
import type { Redactor } from "./redactor.ts";
import type { RunFolder } from "./run_folder.ts";

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
}

/**
 * Writes the run's audit trail into its {@linkcode RunFolder}: `events.jsonl`, `logs/tools.jsonl`,
 * `logs/errors.jsonl` and `policy.json`. Every value passes through the {@linkcode Redactor} first.
 * Each log has one {@linkcode JsonlWriter}, so concurrent records never interleave.
 *
 * The recorder lives on the main thread only: tool handlers run in a Worker without write access to
 * the run folder's logs, so a handler cannot rewrite the trail.
 *
 * @example
 * ```ts
 * import { AuditRecorder } from "./audit_recorder.ts";
 * import { Redactor } from "./redactor.ts";
 * import { RunFolder } from "./run_folder.ts";
 * const runsDir = await Deno.makeTempDir();
 * const folder = await RunFolder.create(runsDir);
 * const recorder = new AuditRecorder({ folder, redactor: new Redactor({ secrets: [] }) });
 * await recorder.event("run.started", { task: "Summarise the README" });
 * await recorder.close();
 * await Deno.remove(runsDir, { recursive: true });
 * ```
 */
export class AuditRecorder {
  readonly #folder: RunFolder;
  readonly #redactor: Redactor;
  readonly #now: () => Date;
  readonly #events: JsonlWriter;
  readonly #tools: JsonlWriter;
  readonly #errors: JsonlWriter;
  #fileWrites: Promise<void> = Promise.resolve();
  #closing: Promise<void> | null = null;

  /** @param options See {@linkcode AuditRecorderOptions}. */
  constructor(options: AuditRecorderOptions) {
    this.#folder = options.folder;
    this.#redactor = options.redactor;
    this.#now = options.now ?? (() => new Date());
    this.#events = new JsonlWriter(options.folder.paths.events);
    this.#tools = new JsonlWriter(options.folder.paths.toolsLog);
    this.#errors = new JsonlWriter(options.folder.paths.errorsLog);
  }

  /**
   * Appends an event to `events.jsonl`: `{ "ts", "type", "run_id", ...fields }`, `ts` being
   * ISO-8601 UTC with milliseconds.
   *
   * @param type Dotted event type, e.g. `tool.started`, `tool.completed`, `tool.denied`.
   * @param fields Event data, redacted; may not use the keys `ts`, `type` or `run_id`.
   * @throws {TypeError} (as a rejection) When `fields` uses a reserved key, a field cannot be
   *   serialised, or the recorder is closed.
   */
  event(type: string, fields: Record<string, unknown>): Promise<void> {
    return this.#append(this.#events, "event", fields, ["ts", "type", "run_id"], (redacted) => ({
      ts: this.#timestamp(),
      type,
      run_id: this.#folder.id,
      ...redacted,
    }));
  }

  /**
   * Appends a tool call record to `logs/tools.jsonl`: `{ "run_id", ...record }`, redacted.
   *
   * @param record The call's record (e.g. a ToolResult with timing); may not use the key `run_id`.
   * @throws {TypeError} (as a rejection) As {@linkcode AuditRecorder.event}.
   */
  toolRecord(record: Record<string, unknown>): Promise<void> {
    return this.#append(this.#tools, "tool record", record, ["run_id"], (redacted) => ({
      run_id: this.#folder.id,
      ...redacted,
    }));
  }

  /**
   * Appends an error record to `logs/errors.jsonl`: `{ "ts", "run_id", ...record }`, redacted.
   *
   * @param record What failed (e.g. `{ "error_type", "message", "details" }`); may not use the keys
   *   `ts` or `run_id`.
   * @throws {TypeError} (as a rejection) As {@linkcode AuditRecorder.event}.
   */
  error(record: Record<string, unknown>): Promise<void> {
    return this.#append(this.#errors, "error record", record, ["ts", "run_id"], (redacted) => ({
      ts: this.#timestamp(),
      run_id: this.#folder.id,
      ...redacted,
    }));
  }

  /**
   * Writes the effective policy snapshot to `policy.json`, redacted, pretty printed (2 spaces,
   * final newline). Replaces an earlier snapshot; the file is replaced whole (written to a temporary
   * name, then renamed), so readers never see half a policy.
   *
   * @param snapshot Any JSON-serialisable value.
   * @throws {TypeError} (as a rejection) When the recorder is closed or the snapshot cannot be
   *   serialised.
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
        throw error;
      }
    });
    this.#fileWrites = written.catch(() => {});
    return written;
  }

  /**
   * Waits for every pending write, then closes the logs. Later writes reject with a TypeError.
   * Calling it again returns the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= Promise.all([
      this.#events.close(),
      this.#tools.close(),
      this.#errors.close(),
      this.#fileWrites,
    ]).then(() => {});
    return this.#closing;
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
  ): Promise<void> {
    const clash = reserved.find((key) => Object.hasOwn(fields, key));
    if (clash !== undefined) {
      return Promise.reject(
        new TypeError(`Cannot record the ${what}: key "${clash}" is set by the recorder`),
      );
    }
    const redacted = this.#redactor.redactValue(fields) as Record<string, unknown>;
    return writer.write(build(redacted));
  }
}
