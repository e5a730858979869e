/**
 * Bounded capture of one output stream of a command: a head and a tail kept inline, and the whole
 * stream (redacted, capped) written to an artifact as it arrives.
 *
 * @module
 */

import { ArtifactFile, type ArtifactTarget, type WrittenArtifact } from "./_artifact_file.ts";
import { ByteRing } from "./_byte_ring.ts";
import { PieceRedactor, type TextRedaction } from "./_piece_redactor.ts";
import { StreamRedactor } from "./_stream_redactor.ts";
import { leadingContinuationBytes, utf8PrefixLength } from "./_utf8.ts";

export type { ArtifactTarget, WrittenArtifact } from "./_artifact_file.ts";
export type { TextRedaction } from "./_piece_redactor.ts";

/**
 * Extra bytes kept on the inner side of the head and of the tail, beyond what is shown, for a
 * redaction whose longest match is `maxMatchChars` code units: three bytes a code unit (the most
 * UTF-8 spends on one), so that the window always holds that many code units past what is shown.
 * A secret across the window's edge is then never part of what is shown.
 *
 * @param maxMatchChars The redaction's longest match, in UTF-16 code units; 0 without redaction.
 * @returns The margin, in bytes.
 */
export function redactionMarginBytes(maxMatchChars: number): number {
  return maxMatchChars === 0 ? 0 : 3 * maxMatchChars + 4;
}

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
  /**
   * Applied to the inline texts and to the artifact content. A `StreamRedaction` (for
   * example `Redactor.forStreams()`) is applied exactly across every cut: the pipe's chunks, the
   * head and tail windows, the artifact's pieces. A plain function is applied to pieces cut at
   * line ends where it can be (best effort for lines longer than 16 Ki characters).
   */
  redact?: TextRedaction;
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
 * artifact capped at `maxBytes` (redacted with an overlap, hashed as written). A stream that fits
 * inline writes no artifact. Memory held, for a redaction whose longest match is `M` code units
 * (16 Ki or the longest secret): about `limitBytes + 2 × redactionMarginBytes(M)` for the head and
 * tail, up to `limitBytes` more until the artifact starts, and about `2 × M + 64 Ki` code units
 * held back by the artifact's redaction.
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
  readonly #pieces: PieceRedactor;
  readonly #target: ArtifactTarget | null;
  readonly #streamRedactor: StreamRedactor | null;
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
    this.#pieces = new PieceRedactor(options.redact ?? null);
    const margin = redactionMarginBytes(this.#pieces.maxMatchChars);
    this.#head = new Uint8Array(this.#headShown + margin);
    this.#tail = new ByteRing(this.#tailShown + margin);
    this.#target = options.artifact;
    this.#streamRedactor = options.redact === undefined ? null : new StreamRedactor(options.redact);
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
        if (this.#streamRedactor !== null) await this.#file.write(this.#streamRedactor.flush());
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
      const redact = this.#streamRedactor !== null && !file.full;
      await file.write(redact ? this.#streamRedactor.push(chunk) : chunk);
    } catch (error: unknown) {
      this.#artifactError = error;
      await file.discard();
    }
  }

  #inlineView(): StreamResult {
    const head = this.#head.subarray(0, this.#headLength);
    const rest = this.#tail.toBytes();
    const complete = this.#headLength + rest.length === this.#bytes;
    if (this.#bytes <= this.#limit) {
      const text = this.#pieces.whole(new TextDecoder().decode(concat(head, rest)));
      return { head: text, tail: "", bytes: this.#bytes, truncated: false, text };
    }
    let headText: string;
    let tailText: string;
    if (complete) {
      // Head and tail windows hold the whole stream: redact it once, then cut both views from it.
      const redacted = encoder.encode(
        this.#pieces.whole(new TextDecoder().decode(concat(head, rest))),
      );
      headText = firstBytes(redacted, this.#headShown);
      tailText = lastBytes(redacted, this.#tailShown);
    } else {
      const overlap = this.#pieces.maxMatchChars;
      // The head window goes on past what it holds: cut it where no secret can be unfinished.
      const headWindow = new TextDecoder().decode(head, { stream: true });
      const start = this.#pieces.prefix(headWindow, headWindow.length - overlap).text;
      headText = firstBytes(encoder.encode(start), this.#headShown);
      // The tail window starts inside the stream: drop its first stretch, which may hold the end
      // of a secret whose start was cut off.
      const tailWindow = new TextDecoder().decode(rest.subarray(leadingContinuationBytes(rest)));
      tailText = lastBytes(
        encoder.encode(this.#pieces.suffix(tailWindow, overlap)),
        this.#tailShown,
      );
    }
    const omitted = this.#bytes - this.#headShown - this.#tailShown;
    return {
      head: headText,
      tail: tailText,
      bytes: this.#bytes,
      truncated: true,
      text: `${headText}\n… [${omitted} bytes omitted] …\n${tailText}`,
    };
  }
}

/** The first `count` bytes of `bytes` (fewer when a character would be cut), as text. */
function firstBytes(bytes: Uint8Array, count: number): string {
  return new TextDecoder().decode(bytes.subarray(0, utf8PrefixLength(bytes, count)));
}

/** The last `count` bytes of `bytes` (fewer when a character would be cut), as text. */
function lastBytes(bytes: Uint8Array, count: number): string {
  const shown = bytes.subarray(Math.max(0, bytes.length - count));
  return new TextDecoder().decode(shown.subarray(leadingContinuationBytes(shown)));
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
