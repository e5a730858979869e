/**
 * Redaction of pieces of a longer text (a stream seen in chunks, a head or tail window): where a
 * piece may be cut so that no secret crosses the cut, and the redacted text on one side of it.
 *
 * @module
 */

import { applySpans, type RedactionSpan, type StreamRedaction } from "../audit/mod.ts";

/**
 * The stretch assumed for a plain redaction function, which cannot say where its replacements
 * fall or how long they are, in UTF-16 code units.
 */
export const PLAIN_FUNCTION_MATCH_CHARS = 16 * 1024;

/** A redaction as a plain function, or one that knows its spans ({@linkcode StreamRedaction}). */
export type TextRedaction = ((text: string) => string) | StreamRedaction;

/** What {@linkcode PieceRedactor.prefix} returns. */
export interface RedactedPrefix {
  /** The redacted text before `cut`. */
  text: string;
  /** Where the text was cut, in code units: at most the wanted cut. */
  cut: number;
  /** Code units before `cut` as later redaction should see them: replaced ones are NUL. */
  context: string;
}

/** Code units of context kept before a cut: more than any look-behind of a token pattern. */
export const CONTEXT_CHARS = 16;

/**
 * Cuts and redacts pieces of a text. With a {@linkcode StreamRedaction} the cuts are exact: a cut
 * never falls inside a replaced stretch, and a piece that ends
 * {@linkcode PieceRedactor.maxMatchChars} before the end of what is known cannot end inside an
 * unfinished secret. With a plain function the cut prefers a line end within that distance (best
 * effort: a secret longer than a line's remainder can still be cut). Without a redaction, text is
 * kept as it is and cuts fall where asked.
 *
 * @example
 * ```ts
 * import { PieceRedactor } from "./_piece_redactor.ts";
 * import { Redactor } from "../audit/redactor.ts";
 * const pieces = new PieceRedactor(new Redactor({ secrets: ["hunter2-but-longer"] }).forStreams());
 * const { text, cut } = pieces.prefix("a hunter2-but-longer b", 5);
 * console.assert(text === "a " && cut === 2);
 * ```
 */
export class PieceRedactor {
  readonly #redaction: TextRedaction | null;

  /** @param redaction The redaction, or null for none. */
  constructor(redaction: TextRedaction | null) {
    this.#redaction = redaction;
  }

  /** Longest stretch one replacement covers, in code units; 0 without a redaction. */
  get maxMatchChars(): number {
    const redaction = this.#redaction;
    if (redaction === null) return 0;
    return isStreamRedaction(redaction) ? redaction.maxMatchChars : PLAIN_FUNCTION_MATCH_CHARS;
  }

  /** `text` redacted whole. */
  whole(text: string): string {
    return this.#redaction === null ? text : this.#redaction(text);
  }

  /**
   * The redacted end of `text` after its first `contextLength` code units (already written, given
   * for look-behinds; see {@linkcode RedactedPrefix.context}).
   */
  rest(text: string, contextLength: number): string {
    const redaction = this.#redaction;
    if (redaction === null) return text.slice(contextLength);
    if (!isStreamRedaction(redaction)) return redaction(text.slice(contextLength));
    return applySpans(text, redaction.spans(text), contextLength);
  }

  /**
   * The redacted start of `text`, cut at the largest safe position at most `wanted` (never inside
   * a replaced stretch nor between the two halves of a surrogate pair).
   *
   * @param text What is known: `contextLength` code units already written (context for
   *   look-behinds, not returned), then the text to redact.
   * @param wanted The cut asked for, in code units of `text`.
   * @param contextLength Code units at the start of `text` that were already written; default 0.
   * @returns The redacted text between the context and the cut, the cut, and the context the
   *   next piece needs.
   */
  prefix(text: string, wanted: number, contextLength = 0): RedactedPrefix {
    const redaction = this.#redaction;
    let cut = Math.max(contextLength, Math.min(wanted, text.length));
    if (redaction === null) {
      cut = pairSafe(text, cut, contextLength);
      return { text: text.slice(contextLength, cut), cut, context: "" };
    }
    if (!isStreamRedaction(redaction)) {
      const lineEnd = text.lastIndexOf("\n", cut - 1) + 1;
      if (lineEnd > contextLength && cut - lineEnd < PLAIN_FUNCTION_MATCH_CHARS) cut = lineEnd;
      cut = pairSafe(text, cut, contextLength);
      return { text: redaction(text.slice(contextLength, cut)), cut, context: "" };
    }
    const spans = redaction.spans(text);
    for (let moved = true; moved;) {
      moved = false;
      const crossing = spans.find((span) => span.start < cut && cut < span.end);
      if (crossing !== undefined) {
        cut = Math.max(contextLength, crossing.start);
        moved = true;
      }
      const paired = pairSafe(text, cut, contextLength);
      if (paired !== cut) {
        cut = paired;
        moved = true;
      }
    }
    return {
      text: applySpans(text, spans, contextLength, cut),
      cut,
      context: maskedContext(text, spans, cut),
    };
  }

  /**
   * The redacted end of `text` from the smallest safe position at least `wanted`: the part before
   * it is dropped, so a secret whose start was cut off the window is never shown in part.
   *
   * @param text A window ending where the stream ends.
   * @param wanted Where to start at the earliest, in code units.
   */
  suffix(text: string, wanted: number): string {
    const redaction = this.#redaction;
    let start = Math.min(Math.max(0, wanted), text.length);
    if (redaction === null) return text.slice(pairSafe(text, start, 0));
    if (!isStreamRedaction(redaction)) {
      const lineStart = text.indexOf("\n", start) + 1;
      if (lineStart > 0 && lineStart - start < PLAIN_FUNCTION_MATCH_CHARS) start = lineStart;
      return redaction(text.slice(pairSafe(text, start, 0)));
    }
    const spans = redaction.spans(text);
    const crossing = spans.find((span) => span.start < start && start < span.end);
    if (crossing !== undefined) start = crossing.start;
    return applySpans(text, spans, pairSafe(text, start, 0));
  }
}

/** Tells whether `redaction` says where its replacements fall. */
export function isStreamRedaction(redaction: TextRedaction): redaction is StreamRedaction {
  const candidate = redaction as Partial<StreamRedaction>;
  return typeof candidate.spans === "function" && typeof candidate.maxMatchChars === "number";
}

/** `cut`, or one less when it falls between the two halves of a surrogate pair (not below `floor`). */
function pairSafe(text: string, cut: number, floor: number): number {
  if (cut <= floor || cut >= text.length) return cut;
  const before = text.charCodeAt(cut - 1);
  const after = text.charCodeAt(cut);
  const splits = before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
  return splits ? cut - 1 : cut;
}

/** The {@linkcode CONTEXT_CHARS} code units before `cut`, with replaced ones as NUL. */
function maskedContext(text: string, spans: readonly RedactionSpan[], cut: number): string {
  const from = Math.max(0, cut - CONTEXT_CHARS);
  let context = "";
  for (let index = from; index < cut; index++) {
    const replaced = spans.some((span) => span.start <= index && index < span.end);
    context += replaced ? "\0" : text[index];
  }
  return context;
}
