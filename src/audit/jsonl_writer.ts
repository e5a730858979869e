/**
 * Appends JSON records to a JSONL file, one complete line a record.
 *
 * @module
 */

import { chainLine, type ChainLink, lineHash } from "./audit_chain.ts";
import { AuditWriteError } from "./audit_write_error.ts";

const encoder = new TextEncoder();

/**
 * What {@linkcode JsonlWriter} needs of an open file; `Deno.FsFile` has it. Tests pass fakes that
 * fail part-way through a write.
 */
export interface JsonlFile {
  /** Writes some of `bytes` at the end of the file; resolves with how many were written. */
  write(bytes: Uint8Array): Promise<number>;
  /**
   * The same write, synchronous: used instead of `write` when present (`Deno.FsFile` has it), as
   * one small append takes a few microseconds this way against tens through Deno's thread pool.
   */
  writeSync?(bytes: Uint8Array): number;
  /** Cuts the file to `length` bytes. */
  truncate(length: number): Promise<void>;
  /** The file's size in bytes. */
  stat(): Promise<{ size: number }>;
  /** Flushes the file's data to the disk (fsync); files without it are not synced. */
  sync?(): Promise<void>;
  close(): void;
}

/** Options of {@linkcode JsonlWriter}. */
export interface JsonlWriterOptions {
  /**
   * Opens the file for appending, creating it when missing.
   * @default Deno.open(path, { append: true, create: true })
   */
  open?: (path: string) => Promise<JsonlFile>;
  /**
   * Hash-chains the records (see `audit_chain.ts`): each line gets `seq` (1 for the first) and
   * `prev` (the sha256 of the previous line, or `anchor` for the first). A file that already holds
   * records continues from its last whole line.
   * @default no chain: records are written as given
   */
  chain?: { anchor: string };
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
  readonly #anchor: string | null;
  /** The last record written whole; null until the file is opened (or without a chain). */
  #head: ChainLink | null = null;

  /**
   * @param path The JSONL file; created on the first write when missing, appended to otherwise.
   * @param options See {@linkcode JsonlWriterOptions}.
   */
  constructor(path: string, options: JsonlWriterOptions = {}) {
    this.path = path;
    this.#open = options.open ?? ((file) => Deno.open(file, { append: true, create: true }));
    this.#anchor = options.chain?.anchor ?? null;
  }

  /**
   * Waits for every write issued so far, then gives the chain's end: the last record written whole
   * (`{seq: 0, hash: anchor}` while there is none). Null without a chain.
   */
  async head(): Promise<ChainLink | null> {
    await this.#tail;
    if (this.#anchor === null) return null;
    if (this.#head === null) {
      // Not opened yet: the file may hold records from an earlier writer.
      this.#head = await this.#readHead().catch(() => ({ seq: 0, hash: this.#anchor as string }));
    }
    return this.#head;
  }

  /**
   * Waits for every write issued so far, then flushes the file to the disk (fsync), so that what
   * was written survives a power loss. Does nothing before the first write.
   *
   * @throws {AuditWriteError} (as a rejection) When the file system refuses.
   */
  sync(): Promise<void> {
    const synced = this.#tail.then(async () => {
      try {
        await this.#file?.sync?.();
      } catch (error: unknown) {
        throw AuditWriteError.from(this.path, error);
      }
    });
    this.#tail = synced.catch(() => {});
    return synced;
  }

  /**
   * Appends one record as one line. The record is serialised when called, so later changes to it do
   * not reach the file. Lines end with `\n`; U+2028 and U+2029 are escaped, so that no line splitter
   * breaks a record in two.
   *
   * With a chain, `seq` and `prev` are added when the line is written (after every earlier line),
   * and the record may not have members of those names.
   *
   * @param record Any JSON-serialisable object.
   * @returns Resolves once the whole line is in the file (not fsync'd): with a chain, with the
   *   record's `{seq, hash}`; without one, with null.
   * @throws {TypeError} (as a rejection) After {@linkcode JsonlWriter.close}, or when `record`
   *   cannot be serialised (cycles, BigInt).
   * @throws {AuditWriteError} (as a rejection) When the file system refused the line; nothing of
   *   it stays in the file.
   */
  write(record: Record<string, unknown>): Promise<ChainLink | null> {
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
    if (this.#anchor !== null && (Object.hasOwn(record, "seq") || Object.hasOwn(record, "prev"))) {
      return Promise.reject(
        new TypeError(`Cannot write to "${this.path}": "seq" and "prev" are set by the chain`),
      );
    }
    const written = this.#tail.then(() => this.#writeLine(line));
    // The chain continues after a failed write; the failure reaches this write's caller.
    this.#tail = written.then(() => {}, () => {});
    return written;
  }

  /** Writes one line: chained to the head when there is a chain; the head moves once it is whole. */
  async #writeLine(line: string): Promise<ChainLink | null> {
    if (this.#anchor === null) {
      await this.#writeAll(encoder.encode(`${line}\n`));
      return null;
    }
    await this.#ensureOpen();
    const previous = this.#head ?? { seq: 0, hash: this.#anchor };
    const chained = chainLine(line, previous.seq + 1, previous.hash);
    const bytes = encoder.encode(`${chained}\n`);
    await this.#writeAll(bytes);
    this.#head = { seq: previous.seq + 1, hash: lineHash(bytes.subarray(0, bytes.length - 1)) };
    return this.#head;
  }

  /** The last whole line of the file as a chain link; the anchor when there is none. */
  async #readHead(): Promise<ChainLink> {
    const anchor = this.#anchor as string;
    const text = await Deno.readTextFile(this.path).catch(() => "");
    const lines = text.split("\n");
    lines.pop(); // What follows the last "\n": nothing, or a torn line, which is no record.
    const last = lines.at(-1);
    if (last === undefined) return { seq: 0, hash: anchor };
    const seq = (JSON.parse(last) as { seq?: unknown }).seq;
    if (typeof seq !== "number") {
      throw new Error('its last line has no "seq": it is not a chained log');
    }
    return { seq, hash: lineHash(last) };
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

  /** Opens the file on the first write; with a chain, reads where it ends. */
  async #ensureOpen(): Promise<JsonlFile> {
    if (this.#file !== null) return this.#file;
    try {
      const opened = await this.#open(this.path);
      try {
        this.#size = (await opened.stat()).size;
        if (this.#anchor !== null && this.#head === null) {
          this.#head = this.#size === 0 ? { seq: 0, hash: this.#anchor } : await this.#readHead();
        }
      } catch (error: unknown) {
        opened.close();
        throw error;
      }
      this.#file = opened;
      return opened;
    } catch (error: unknown) {
      throw AuditWriteError.from(this.path, error);
    }
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    const file = await this.#ensureOpen();
    try {
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
        const rest = bytes.subarray(offset);
        const written = file.writeSync === undefined
          ? await file.write(rest)
          : file.writeSync(rest);
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
