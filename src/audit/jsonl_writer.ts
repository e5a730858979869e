/**
 * Appends JSON records to a JSONL file, one complete line a record.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * Appends records to a JSONL file: each {@linkcode JsonlWriter.write} adds exactly one complete line,
 * even with many writes in flight at once. Writes are serialised through an internal promise chain
 * and each line is written in full (looping over partial writes) before the next starts, so lines
 * never interleave. The file is opened for appending (created when missing) on the first write.
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
  #file: Deno.FsFile | null = null;
  #tail: Promise<void> = Promise.resolve();
  #closing: Promise<void> | null = null;

  /**
   * @param path The JSONL file; created on the first write when missing, appended to otherwise.
   */
  constructor(path: string) {
    this.path = path;
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
    this.#file ??= await Deno.open(this.path, { append: true, create: true });
    let offset = 0;
    while (offset < bytes.length) {
      offset += await this.#file.write(bytes.subarray(offset));
    }
  }
}
