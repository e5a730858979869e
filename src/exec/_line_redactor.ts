/**
 * Streaming redaction that never cuts a line: text is redacted in blocks of whole lines, so a
 * secret split across two chunks of a stream is redacted like one written in a single chunk.
 *
 * @module
 */

/**
 * Longest run of text held back while waiting for a line end, in UTF-16 code units (about 64 KiB
 * of ASCII). A longer line is redacted in pieces, and a secret across such a cut is missed.
 */
export const MAX_HELD_LINE_CHARS = 64 * 1024;

/** On a forced cut, how far back to look for a blank to cut at instead, in code units. */
const FORCED_CUT_LOOKBACK_CHARS = 4096;

/**
 * Turns a stream of UTF-8 chunks into redacted UTF-8 blocks. Each {@linkcode LineRedactor.push}
 * returns the redacted text of the complete lines seen so far (possibly nothing) and keeps the
 * unfinished last line for later; {@linkcode LineRedactor.flush} returns the rest at the end.
 *
 * Two more cuts are avoided: a PEM block (`-----BEGIN …` without its `-----END …` yet) is held
 * back whole, so a private key is redacted as one block; and a line longer than
 * {@linkcode MAX_HELD_LINE_CHARS} is cut at a blank when one is near, to keep memory bounded.
 * Invalid UTF-8 becomes U+FFFD.
 */
export class LineRedactor {
  readonly #redact: (text: string) => string;
  readonly #maxHeldChars: number;
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  readonly #encoder = new TextEncoder();
  #held = "";

  /**
   * Starts an empty stream.
   *
   * @param redact Applied to each block of whole lines.
   * @param maxHeldChars Longest text held back; {@linkcode MAX_HELD_LINE_CHARS} by default.
   */
  constructor(redact: (text: string) => string, maxHeldChars: number = MAX_HELD_LINE_CHARS) {
    this.#redact = redact;
    this.#maxHeldChars = maxHeldChars;
  }

  /**
   * Adds a chunk of the stream.
   *
   * @returns The redacted bytes that are ready, possibly empty.
   */
  push(chunk: Uint8Array): Uint8Array {
    const text = this.#held + this.#decoder.decode(chunk, { stream: true });
    const cut = this.#cutFor(text);
    this.#held = text.slice(cut);
    return cut === 0 ? new Uint8Array(0) : this.#encoder.encode(this.#redact(text.slice(0, cut)));
  }

  /**
   * Ends the stream.
   *
   * @returns The redacted bytes of everything still held, possibly empty.
   */
  flush(): Uint8Array {
    const text = this.#held + this.#decoder.decode();
    this.#held = "";
    return text === "" ? new Uint8Array(0) : this.#encoder.encode(this.#redact(text));
  }

  /** Where to cut `text`: what comes before is redacted now, the rest is held. */
  #cutFor(text: string): number {
    let cut = text.lastIndexOf("\n") + 1;
    if (cut > 0) {
      const begin = text.lastIndexOf("-----BEGIN ", cut - 1);
      if (begin >= 0) {
        const end = text.indexOf("-----END ", begin);
        if (end < 0 || end >= cut) cut = text.lastIndexOf("\n", begin) + 1;
      }
    }
    if (text.length - cut <= this.#maxHeldChars) return cut;
    const blank = lastBlank(text, text.length - FORCED_CUT_LOOKBACK_CHARS);
    return blank > cut ? blank : text.length;
  }
}

/** Index just after the last space, tab or carriage return at or after `from`, or -1. */
function lastBlank(text: string, from: number): number {
  for (let index = text.length - 1; index >= Math.max(0, from); index--) {
    const code = text.charCodeAt(index);
    if (code === 0x20 || code === 0x09 || code === 0x0d) return index + 1;
  }
  return -1;
}
