/**
 * Streaming redaction with an overlap: a stream of UTF-8 chunks comes out redacted exactly as if
 * it had been redacted in one piece, whatever the chunk and line boundaries.
 *
 * @module
 */

import { PieceRedactor, type TextRedaction } from "./_piece_redactor.ts";

/**
 * Text redacted at least at once, beyond the overlap, in UTF-16 code units: fewer, larger pieces
 * cost fewer scans of the overlap.
 */
export const BATCH_CHARS = 64 * 1024;

/**
 * Turns a stream of UTF-8 chunks into redacted UTF-8 pieces. The text is held until there is
 * more than twice the redaction's longest match ({@linkcode PieceRedactor.maxMatchChars}) plus
 * {@linkcode BATCH_CHARS}; then everything but the last longest-match's worth is redacted and
 * given out, cut where no secret crosses (moved back to the start of a secret that would). So a
 * secret split by a pipe read, a line cap or any other boundary is redacted whole, and a piece
 * never ends inside a secret whose end has not arrived yet. Memory held: at most about
 * `2 × maxMatchChars + BATCH_CHARS` code units plus one chunk. Invalid UTF-8 becomes U+FFFD.
 *
 * @example
 * ```ts
 * import { StreamRedactor } from "./_stream_redactor.ts";
 * import { Redactor } from "../audit/redactor.ts";
 * const stream = new StreamRedactor(new Redactor({ secrets: ["hunter2-but-longer"] }).forStreams());
 * const bytes = new TextEncoder().encode("pw hunter2-but-longer\n");
 * const out = [stream.push(bytes.subarray(0, 8)), stream.push(bytes.subarray(8)), stream.flush()];
 * const text = out.map((piece) => new TextDecoder().decode(piece)).join("");
 * console.assert(text === "pw [REDACTED:secret_env]\n");
 * ```
 */
export class StreamRedactor {
  readonly #pieces: PieceRedactor;
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  readonly #encoder = new TextEncoder();
  /** Code units already given out, as redaction sees them before `#held` (replaced ones NUL). */
  #context = "";
  /** Text not yet given out. */
  #held = "";

  /** @param redaction Applied to the stream; a {@linkcode StreamRedaction} cuts exactly. */
  constructor(redaction: TextRedaction) {
    this.#pieces = new PieceRedactor(redaction);
  }

  /** Code units held back now (for tests of the memory bound). */
  get heldChars(): number {
    return this.#held.length;
  }

  /**
   * Adds a chunk of the stream.
   *
   * @returns The redacted bytes that are ready, possibly empty.
   */
  push(chunk: Uint8Array): Uint8Array {
    this.#held += this.#decoder.decode(chunk, { stream: true });
    const overlap = this.#pieces.maxMatchChars;
    if (this.#held.length < 2 * overlap + BATCH_CHARS) return new Uint8Array(0);
    const text = this.#context + this.#held;
    const piece = this.#pieces.prefix(text, text.length - overlap, this.#context.length);
    this.#held = text.slice(piece.cut);
    this.#context = piece.context;
    return this.#encoder.encode(piece.text);
  }

  /**
   * Ends the stream.
   *
   * @returns The redacted bytes of everything still held, possibly empty.
   */
  flush(): Uint8Array {
    const rest = this.#held + this.#decoder.decode();
    this.#held = "";
    if (rest === "") return new Uint8Array(0);
    const text = this.#context + rest;
    this.#context = "";
    return this.#encoder.encode(this.#pieces.rest(text, text.length - rest.length));
  }
}
