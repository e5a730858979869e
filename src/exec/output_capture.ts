/**
 * Bounded capture of one output stream of a command: a head and a tail kept inline, and the whole
 * stream (redacted, capped) written to an artifact as it arrives.
 *
 * @module
 */

import { ArtifactFile, type ArtifactTarget, type WrittenArtifact } from "./_artifact_file.ts";
import { ByteRing } from "./_byte_ring.ts";
import { LineRedactor } from "./_line_redactor.ts";
import { leadingContinuationBytes, utf8PrefixLength } from "./_utf8.ts";

export type { ArtifactTarget, WrittenArtifact } from "./_artifact_file.ts";

/**
 * Extra bytes kept on the inner side of the head and of the tail, beyond what is shown, so that a
 * secret across the cut is redacted whole before the cut is made (16 KiB: longer than a PEM
 * private key).
 */
export const REDACTION_MARGIN_BYTES = 16 * 1024;

/** What the model sees of one stream. */
export interface StreamResult {
  /** The start of the stream (at most half the limit, in UTF-8 bytes), redacted; all of it when not truncated. */
  head: string;
  /** The end of the stream (at most the other half of the limit), redacted; `""` when not truncated. */
  tail: string;
  /** Bytes the program wrote on the stream, before redaction. */
  bytes: number;
  /** True when `bytes` exceeded the inline limit and the middle was left out. */
  truncated: boolean;
  /** `head + "\n… [N bytes omitted] …\n" + tail`, or the whole text when not truncated. */
  text: string;
}

/** Options of {@linkcode OutputCapture}. */
export interface OutputCaptureOptions {
  /** Inline cap, in bytes: half kept as the head, half as the tail. */
  limitBytes: number;
  /** Where the full stream goes when it exceeds `limitBytes`; `null` keeps no artifact. */
  artifact: ArtifactTarget | null;
  /** Applied to the inline texts and, line by line, to the artifact content. */
  redact?: (text: string) => string;
}

/** What {@linkcode OutputCapture.finish} returns. */
export interface CapturedOutput {
  /** The inline view. */
  result: StreamResult;
  /** The stored stream, or `null` when the stream fit inline or no artifact was asked for. */
  artifact: WrittenArtifact | null;
}

const encoder = new TextEncoder();

/**
 * Captures one stream in bounded memory, whatever its volume: the first and last bytes inline,
 * and, once the stream exceeds `limitBytes`, the whole stream written incrementally to an
 * artifact capped at `maxBytes` (redacted per line, hashed as written). A stream that fits inline
 * writes no artifact. Memory held: about `limitBytes + 2 × REDACTION_MARGIN_BYTES` for the head
 * and tail, up to `limitBytes` more until the artifact starts, and one held line (at most
 * 64 Ki characters) for redaction.
 *
 * Call {@linkcode OutputCapture.write} for each chunk in order (await each; the chunk's buffer
 * may be reused once the call resolves), then {@linkcode OutputCapture.finish} once; or
 * {@linkcode OutputCapture.discard} to give up.
 *
 * @example
 * ```ts
 * import { OutputCapture } from "./output_capture.ts";
 * const capture = new OutputCapture({ limitBytes: 8, artifact: null });
 * await capture.write(new TextEncoder().encode("0123456789"));
 * const { result } = await capture.finish();
 * console.assert(result.text === "0123\n… [2 bytes omitted] …\n6789");
 * ```
 */
export class OutputCapture {
  readonly #limit: number;
  readonly #headShown: number;
  readonly #tailShown: number;
  readonly #head: Uint8Array;
  #headLength = 0;
  readonly #tail: ByteRing;
  readonly #redact: (text: string) => string;
  readonly #target: ArtifactTarget | null;
  readonly #lineRedactor: LineRedactor | null;
  /** Chunks seen while the stream still fits inline (an artifact is not yet known to be needed). */
  #pending: Uint8Array[] = [];
  #file: ArtifactFile | null = null;
  #artifactError: unknown = null;
  #bytes = 0;

  /**
   * Prepares the capture of one stream; nothing is written until a chunk arrives.
   *
   * @param options See {@linkcode OutputCaptureOptions}.
   * @throws {RangeError} When `limitBytes` or `artifact.maxBytes` is not a non-negative integer.
   */
  constructor(options: OutputCaptureOptions) {
    assertByteCount("limitBytes", options.limitBytes);
    if (options.artifact !== null) assertByteCount("artifact.maxBytes", options.artifact.maxBytes);
    this.#limit = options.limitBytes;
    this.#headShown = Math.floor(options.limitBytes / 2);
    this.#tailShown = options.limitBytes - this.#headShown;
    this.#head = new Uint8Array(this.#headShown + REDACTION_MARGIN_BYTES);
    this.#tail = new ByteRing(this.#tailShown + REDACTION_MARGIN_BYTES);
    this.#redact = options.redact ?? ((text) => text);
    this.#target = options.artifact;
    this.#lineRedactor = options.redact === undefined ? null : new LineRedactor(options.redact);
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Adds the next chunk of the stream. An artifact write failure does not reject here (the stream
   * must keep being read): it stops the artifact and is thrown by {@linkcode OutputCapture.finish}.
   */
  async write(chunk: Uint8Array): Promise<void> {
    if (chunk.length === 0) return;
    this.#bytes += chunk.length;
    const headRoom = this.#head.length - this.#headLength;
    const intoHead = Math.min(headRoom, chunk.length);
    if (intoHead > 0) {
      this.#head.set(chunk.subarray(0, intoHead), this.#headLength);
      this.#headLength += intoHead;
    }
    this.#tail.push(chunk.subarray(intoHead));
    if (this.#target === null || this.#artifactError !== null) return;
    if (this.#file === null) {
      this.#pending.push(chunk.slice());
      if (this.#bytes <= this.#limit) return;
      await this.#startArtifact(this.#target);
    } else {
      await this.#store(chunk);
    }
  }

  /**
   * Ends the stream: builds the inline view and completes the artifact.
   *
   * @throws Whatever the file system threw while writing the artifact (the partial file removed).
   */
  async finish(): Promise<CapturedOutput> {
    let artifact: WrittenArtifact | null = null;
    if (this.#file !== null && this.#artifactError === null) {
      try {
        if (this.#lineRedactor !== null) await this.#file.write(this.#lineRedactor.flush());
        artifact = await this.#file.finish(this.#bytes);
      } catch (error: unknown) {
        this.#artifactError = error;
      }
    }
    if (this.#artifactError !== null) {
      await this.#file?.discard();
      throw this.#artifactError;
    }
    return { result: this.#inlineView(), artifact };
  }

  /** Removes a partial artifact; never throws. */
  async discard(): Promise<void> {
    this.#pending = [];
    await this.#file?.discard();
  }

  async #startArtifact(target: ArtifactTarget): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    try {
      this.#file = await ArtifactFile.create(target);
    } catch (error: unknown) {
      this.#artifactError = error;
      return;
    }
    for (const chunk of pending) await this.#store(chunk);
  }

  async #store(chunk: Uint8Array): Promise<void> {
    const file = this.#file;
    if (file === null || this.#artifactError !== null) return;
    try {
      // Once full, the chunk only marks the artifact truncated: no need to redact it.
      const redact = this.#lineRedactor !== null && !file.full;
      await file.write(redact ? this.#lineRedactor.push(chunk) : chunk);
    } catch (error: unknown) {
      this.#artifactError = error;
      await file.discard();
    }
  }

  #inlineView(): StreamResult {
    const head = this.#head.subarray(0, this.#headLength);
    const rest = this.#tail.toBytes();
    if (this.#bytes <= this.#limit) {
      const text = this.#redact(new TextDecoder().decode(concat(head, rest)));
      return { head: text, tail: "", bytes: this.#bytes, truncated: false, text };
    }
    // The tail window is the last bytes of the whole stream, which may start inside the head.
    const tailWindow = this.#headLength + rest.length === this.#bytes
      ? concat(head, rest).subarray(Math.max(0, this.#bytes - this.#tail.capacity))
      : rest;
    const headText = this.#headText(head);
    const tailText = this.#tailText(tailWindow);
    const omitted = this.#bytes - this.#headShown - this.#tailShown;
    return {
      head: headText,
      tail: tailText,
      bytes: this.#bytes,
      truncated: true,
      text: `${headText}\n… [${omitted} bytes omitted] …\n${tailText}`,
    };
  }

  /** The redacted start of `window`, at most `headShown` bytes, cut on a character boundary. */
  #headText(window: Uint8Array): string {
    const decoded = new TextDecoder().decode(window, { stream: true });
    const redacted = encoder.encode(this.#redact(decoded));
    return new TextDecoder().decode(
      redacted.subarray(0, utf8PrefixLength(redacted, this.#headShown)),
    );
  }

  /** The redacted end of `window`, at most `tailShown` bytes, cut on a character boundary. */
  #tailText(window: Uint8Array): string {
    const decoded = new TextDecoder().decode(window.subarray(leadingContinuationBytes(window)));
    const redacted = encoder.encode(this.#redact(decoded));
    const start = Math.max(0, redacted.length - this.#tailShown);
    const shown = redacted.subarray(start);
    return new TextDecoder().decode(shown.subarray(leadingContinuationBytes(shown)));
  }
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const result = new Uint8Array(first.length + second.length);
  result.set(first, 0);
  result.set(second, first.length);
  return result;
}

function assertByteCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `Cannot capture output: ${name} must be a non-negative integer, got "${value}"`,
    );
  }
}
