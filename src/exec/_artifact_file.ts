/**
 * One artifact written as it streams in: a temporary file, an incremental sha256, a size cap,
 * and a rename to `<sha256>.txt` at the end.
 *
 * @module
 */

import { createSha256, type Sha256 } from "../audit/mod.ts";
import { join, relative, sep } from "node:path";
import { utf8PrefixLength } from "./_utf8.ts";

/** Where full streams are stored, and how much of each. */
export interface ArtifactTarget {
  /** Absolute folder the artifacts go to, inside `runDir` (normally `<runDir>/artifacts`). */
  artifactsDir: string;
  /** Absolute run folder; refs are relative to it. */
  runDir: string;
  /** Largest artifact stored, in bytes; the stream beyond is counted, not stored. */
  maxBytes: number;
}

/** A stored stream: the {@linkcode ArtifactRef} fields plus whether it was cut. */
export interface WrittenArtifact {
  /** Path relative to the run folder, `/`-separated: `artifacts/<sha256>.txt`. */
  ref: string;
  /** Lower-case hex sha256 of the stored bytes. */
  sha256: string;
  /** Size of the stored bytes. */
  bytes: number;
  /** Always `text/plain; charset=utf-8`. */
  media_type: string;
  /** True when the stream was longer than `maxBytes` and only its start was stored. */
  truncated: boolean;
  /** Bytes the program wrote on the stream, counted before redaction and the cap. */
  original_bytes: number;
}

/** Media type of every stream artifact. */
export const STREAM_MEDIA_TYPE = "text/plain; charset=utf-8";

/**
 * A stream artifact being written. Create with {@linkcode ArtifactFile.create}, then
 * {@linkcode ArtifactFile.write} chunks, then {@linkcode ArtifactFile.finish} (or
 * {@linkcode ArtifactFile.discard} on failure). Files appear complete or not at all.
 */
export class ArtifactFile {
  readonly #target: ArtifactTarget;
  readonly #temporary: string;
  readonly #file: Deno.FsFile;
  readonly #hash: Sha256 = createSha256();
  #written = 0;
  #truncated = false;
  #full = false;
  #closed = false;

  private constructor(target: ArtifactTarget, temporary: string, file: Deno.FsFile) {
    this.#target = target;
    this.#temporary = temporary;
    this.#file = file;
  }

  /**
   * Creates the artifacts folder when missing and a temporary file in it.
   *
   * @throws Whatever the file system throws.
   */
  static async create(target: ArtifactTarget): Promise<ArtifactFile> {
    await Deno.mkdir(target.artifactsDir, { recursive: true });
    const temporary = join(target.artifactsDir, `stream-${crypto.randomUUID()}.tmp`);
    const file = await Deno.open(temporary, { write: true, createNew: true });
    return new ArtifactFile(target, temporary, file);
  }

  /** True once the cap is reached: further writes are dropped (and mark the artifact truncated). */
  get full(): boolean {
    return this.#full;
  }

  /**
   * Appends `bytes`, cut at `maxBytes` on a UTF-8 character boundary; bytes beyond are dropped
   * and mark the artifact truncated.
   *
   * @throws Whatever the file system throws.
   */
  async write(bytes: Uint8Array): Promise<void> {
    if (bytes.length === 0) return;
    if (this.#full) {
      this.#truncated = true;
      return;
    }
    const room = this.#target.maxBytes - this.#written;
    let kept = bytes;
    if (bytes.length >= room) {
      // At the cap: a character cut here could not be completed by a later write.
      kept = bytes.subarray(0, utf8PrefixLength(bytes, room));
      this.#full = true;
      if (kept.length < bytes.length) this.#truncated = true;
    }
    if (kept.length === 0) return;
    this.#hash.update(kept);
    let offset = 0;
    while (offset < kept.length) offset += await this.#file.write(kept.subarray(offset));
    this.#written += kept.length;
  }

  /**
   * Closes the file and renames it to `<sha256>.txt` (replacing an identical earlier one).
   *
   * @param originalBytes The stream's size as the program wrote it, in bytes.
   * @throws Whatever the file system throws; the temporary file is removed then.
   */
  async finish(originalBytes: number): Promise<WrittenArtifact> {
    try {
      this.#close();
      const sha256 = this.#hash.digest("hex");
      const path = join(this.#target.artifactsDir, `${sha256}.txt`);
      await Deno.rename(this.#temporary, path);
      return {
        ref: relative(this.#target.runDir, path).split(sep).join("/"),
        sha256,
        bytes: this.#written,
        media_type: STREAM_MEDIA_TYPE,
        truncated: this.#truncated,
        original_bytes: originalBytes,
      };
    } catch (error: unknown) {
      await this.discard();
      throw error;
    }
  }

  /** Closes and removes the temporary file; never throws. */
  async discard(): Promise<void> {
    try {
      this.#close();
    } catch {
      // Already closed or broken: removing the file is what matters.
    }
    await Deno.remove(this.#temporary).catch(() => {});
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#file.close();
  }
}
