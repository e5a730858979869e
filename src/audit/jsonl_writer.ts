/**
 * Appends JSON records to a JSONL file, one complete line a record.
 *
 * @module
 */

import { AuditWriteError } from "./audit_write_error.ts";

const encoder = new TextEncoder();

/**
 * What {@linkcode JsonlWriter} needs of an open file; `Deno.FsFile` has it. Tests pass fakes that
 * fail part-way through a write.
 */
export interface JsonlFile {
  /** Writes some of `bytes` at the end of the file; resolves with how many were written. */
  write(bytes: Uint8Array): Promise<number>;
  /** Cuts the file to `length` bytes. */
  truncate(length: number): Promise<void>;
  /** The file's size in bytes. */
  stat(): Promise<{ size: number }>;
  close(): void;
}

/** Options of {@linkcode JsonlWriter}. */
export interface JsonlWriterOptions {
  /**
   * Opens the file for appending, creating it when missing.
   * @default Deno.open(path, { append: true, create: true })
   */
  open?: (path: string) => Promise<JsonlFile>;
}

/**
 * Appends records to a JSONL file: each {@linkcode JsonlWriter.write} adds exactly one complete line,
 * even with many writes in flight at once. Writes are serialised through an internal promise chain
 * and each line is written in full (looping over partial writes) before the next starts, so lines
 * never interleave. The file is opened for appending (created when missing) on the first write.
 *
 * A record is written whole or not at all: when the file system refuses part of a line (a full
 * disk, an I/O error), the file is cut back to where the line began, so a reader never meets half a
 * line. If even the cut fails, the writer repairs the file before the next write and refuses to
 * append until it can. File-system failures reject with an {@linkcode AuditWriteError} that names
 * the file and what to change; later writes are still attempted (space may come back).
 *
 * Use one writer a file: two writers (or processes) on the same file could interleave partial writes.
 *
 * @example
 * ```ts
 * import { JsonlWriter } from "./jsonl_writer.ts";
 * const path = await Deno.makeTempFile({ suffix: ".jsonl" });
 * const writer = new JsonlWriter(path);
 * await Promise.all([writer.write({ n: 1 }), writer.write({ n: 2 })]);
 * await writer.close();
 * console.assert((await Deno.readTextFile(path)) === '{"n":1}\n{"n":2}\n');
 * await Deno.remove(path);
 * ```
 */
export class JsonlWriter {
  /** Absolute or relative path of the file, as given. */
  readonly path: string;
  readonly #open: (path: string) => Promise<JsonlFile>;
  #file: JsonlFile | null = null;
  /** Bytes of whole lines in the file: where the next line starts. */
  #size = 0;
  /** True while the file may end with part of a line that could not be cut off. */
  #damaged = false;
  #tail: Promise<void> = Promise.resolve();
  #closing: Promise<void> | null = null;

  /**
   * @param path The JSONL file; created on the first write when missing, appended to otherwise.
   * @param options See {@linkcode JsonlWriterOptions}.
   */
  constructor(path: string, options: JsonlWriterOptions = {}) {
    this.path = path;
    this.#open = options.open ?? ((file) => Deno.open(file, { append: true, create: true }));
  }

  /**
   * Appends one record as one line. The record is serialised when called, so later changes to it do
   * not reach the file. Lines end with `\n`; U+2028 and U+2029 are escaped, so that no line splitter
   * breaks a record in two.
   *
   * @param record Any JSON-serialisable object.
   * @returns Resolves once the whole line is in the file (not fsync'd).
   * @throws {TypeError} (as a rejection) After {@linkcode JsonlWriter.close}, or when `record`
   *   cannot be serialised (cycles, BigInt).
   * @throws {AuditWriteError} (as a rejection) When the file system refused the line; nothing of
   *   it stays in the file.
   */
  write(record: Record<string, unknown>): Promise<void> {
    if (this.#closing !== null) {
      return Promise.reject(
        new TypeError(`Cannot write to "${this.path}": the writer is closed`),
      );
    }
    let line: string;
    try {
      line = JSON.stringify(record).replaceAll("\u2028", "\\u2028").replaceAll("\u2029", "\\u2029");
    } catch (error: unknown) {
      const reason = error instanceof Error ? error.message : String(error);
      return Promise.reject(
        new TypeError(`Cannot write to "${this.path}": the record is not serialisable: ${reason}`),
      );
    }
    const bytes = encoder.encode(`${line}\n`);
    const written = this.#tail.then(() => this.#writeAll(bytes));
    // The chain continues after a failed write; the failure reaches this write's caller.
    this.#tail = written.catch(() => {});
    return written;
  }

  /**
   * Waits for every pending write, then closes the file. Later writes reject with a TypeError.
   * Calling it again returns the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= this.#tail.then(() => {
      this.#file?.close();
      this.#file = null;
    });
    return this.#closing;
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    let file: JsonlFile;
    try {
      if (this.#file === null) {
        const opened = await this.#open(this.path);
        try {
          this.#size = (await opened.stat()).size;
        } catch (error: unknown) {
          opened.close();
          throw error;
        }
        this.#file = opened;
      }
      file = this.#file;
      // A line cut short earlier must go before anything is appended after it.
      if (this.#damaged) {
        await file.truncate(this.#size);
        this.#damaged = false;
      }
    } catch (error: unknown) {
      throw AuditWriteError.from(this.path, error);
    }
    let offset = 0;
    try {
      while (offset < bytes.length) {
        const written = await file.write(bytes.subarray(offset));
        if (written <= 0) throw new Error("the file took no bytes");
        offset += written;
      }
    } catch (error: unknown) {
      if (offset > 0) await this.#cutBack(file);
      throw AuditWriteError.from(this.path, error);
    }
    this.#size += bytes.length;
  }

  /** Removes the part of a line a failed write left; marks the file damaged when it cannot. */
  async #cutBack(file: JsonlFile): Promise<void> {
    try {
      await file.truncate(this.#size);
    } catch {
      this.#damaged = true;
    }
  }
}
