/**
 * Content-addressed storage of large outputs in the run's `artifacts/` folder.
 *
 * @module
 */

import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ArtifactRef } from "../result/mod.ts";
import { AuditWriteError } from "./audit_write_error.ts";
import { sha256Hex as sha256HexNow } from "./sha256.ts";

/** Options of {@linkcode ArtifactStore}. */
export interface ArtifactStoreOptions {
  /** The folder artifacts go to, inside `runDir` (normally `<runDir>/artifacts`). */
  artifactsDir: string;
  /** The run folder; refs are relative to it. */
  runDir: string;
  /** Largest artifact stored, in bytes; content above it is cut (config `limits.max_artifact_bytes`). */
  maxBytes: number;
}

/** What {@linkcode ArtifactStore.store} returns: the ref, and whether the content was cut. */
export type StoredArtifact = ArtifactRef & {
  /** True when the content was longer than `maxBytes` and only its start was stored. */
  truncated: boolean;
  /** Size of the content given, in bytes (UTF-8 for strings). */
  original_bytes: number;
};

const encoder = new TextEncoder();

/**
 * Stores artifacts as `artifacts/<sha256><extension>`: content-addressed, so the same content (with
 * the same media type) is stored once. Files appear complete or not at all (written to a temporary
 * name, then renamed).
 *
 * Extensions by media type: `.json` for `application/json` and `*+json`, `.txt` for `text/*`,
 * `.bin` for anything else.
 *
 * @example
 * ```ts
 * import { ArtifactStore } from "./artifact_store.ts";
 * const runDir = await Deno.makeTempDir();
 * const store = new ArtifactStore({ artifactsDir: `${runDir}/artifacts`, runDir, maxBytes: 1024 });
 * const artifact = await store.store("hello", "text/plain; charset=utf-8");
 * console.assert(artifact.ref === `artifacts/${artifact.sha256}.txt`);
 * await Deno.remove(runDir, { recursive: true });
 * ```
 */
export class ArtifactStore {
  readonly #artifactsDir: string;
  readonly #runDir: string;
  readonly #maxBytes: number;

  /**
   * @param options See {@linkcode ArtifactStoreOptions}. The artifacts folder is created on the first
   *   store when missing.
   * @throws {RangeError} When `maxBytes` is not a non-negative integer, or `artifactsDir` is not
   *   inside `runDir`.
   */
  constructor(options: ArtifactStoreOptions) {
    if (!Number.isSafeInteger(options.maxBytes) || options.maxBytes < 0) {
      throw new RangeError(
        `Cannot create an artifact store: maxBytes must be a non-negative integer, got "${options.maxBytes}"`,
      );
    }
    this.#artifactsDir = resolve(options.artifactsDir);
    this.#runDir = resolve(options.runDir);
    const inside = relative(this.#runDir, this.#artifactsDir);
    if (inside === "" || isAbsolute(inside) || inside.split(sep)[0] === "..") {
      throw new RangeError(
        `Cannot create an artifact store: "${this.#artifactsDir}" must be a folder inside the run ` +
          `folder "${this.#runDir}"`,
      );
    }
    this.#maxBytes = options.maxBytes;
  }

  /**
   * Stores `content`, cut to `maxBytes` when longer (a string is cut on a character boundary, so the
   * stored text stays valid UTF-8).
   *
   * @param content Text (stored as UTF-8) or bytes.
   * @param mediaType IANA media type, e.g. `text/plain; charset=utf-8`; decides the extension.
   * @returns The ref (relative to the run folder, `/`-separated), the sha256 and size of the stored
   *   bytes, the media type as given, `truncated`, and `original_bytes`.
   * @throws {AuditWriteError} When the file system refuses the artifact (a full disk, a read-only
   *   runs folder); no partial artifact stays.
   */
  async store(content: string | Uint8Array, mediaType: string): Promise<StoredArtifact> {
    const original = typeof content === "string" ? encoder.encode(content) : content;
    let length = Math.min(original.length, this.#maxBytes);
    if (typeof content === "string") {
      // Back up over UTF-8 continuation bytes (10xxxxxx) so no character is split.
      while (length > 0 && length < original.length && ((original[length] ?? 0) & 0xc0) === 0x80) {
        length--;
      }
    }
    const stored = original.subarray(0, length);
    const sha256 = await sha256Hex(stored);
    const name = `${sha256}${extensionFor(mediaType)}`;
    const path = join(this.#artifactsDir, name);
    try {
      await this.#writeOnce(path, stored);
    } catch (error: unknown) {
      throw AuditWriteError.from(path, error);
    }
    return {
      ref: relative(this.#runDir, path).split(sep).join("/"),
      sha256,
      bytes: stored.length,
      media_type: mediaType,
      truncated: stored.length < original.length,
      original_bytes: original.length,
    };
  }

  async #writeOnce(path: string, bytes: Uint8Array): Promise<void> {
    try {
      // Synchronous: a stat of the local run folder costs µs, a trip to the blocking pool far more
      // (the same content, kept before, is the common case: an output repeated call after call).
      const existing = Deno.statSync(path);
      if (existing.isFile && existing.size === bytes.length) return;
    } catch (error: unknown) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    await Deno.mkdir(this.#artifactsDir, { recursive: true });
    const temporary = `${path}.${crypto.randomUUID()}.tmp`;
    try {
      await Deno.writeFile(temporary, bytes, { createNew: true });
      await Deno.rename(temporary, path);
    } catch (error: unknown) {
      await Deno.remove(temporary).catch(() => {});
      throw error;
    }
  }
}

function extensionFor(mediaType: string): ".json" | ".txt" | ".bin" {
  const essence = (mediaType.split(";", 1)[0] ?? "").trim().toLowerCase();
  if (essence === "application/json" || essence.endsWith("+json")) return ".json";
  if (essence.startsWith("text/")) return ".txt";
  return ".bin";
}

/**
 * Largest content hashed on the calling thread, in bytes. Below it `sha256Hex` (`sha256.ts`)
 * hashes here (about 0.15 ms for 17 KB), less than the round trip to the blocking thread pool
 * that `crypto.subtle.digest` takes on a loaded machine (about 0.5 ms a call, issue 16: every
 * output above the inline size is stored); above it the digest runs off the event loop.
 */
const HASH_NOW_BYTES = 1024 * 1024;

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  if (bytes.byteLength <= HASH_NOW_BYTES) return sha256HexNow(bytes);
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
