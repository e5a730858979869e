/**
 * Text helpers of the fs tools: numbered lines, cut lines, line endings. Private to the folder.
 *
 * @module
 */

/** Width of the line-number column: at least 5 characters, wider for large line numbers. */
export function lineNumberWidth(lastLine: number): number {
  return Math.max(5, String(lastLine).length);
}

/** One output line: the number right-aligned to `width`, a tab, the text (`   12\ttext`). */
export function numberedLine(line: number, text: string, width: number): string {
  return `${String(line).padStart(width)}\t${text}`;
}

/** The marker appended to a line cut at the length limit: ` […cut 120 bytes]`. */
export function cutMarker(cutBytes: number, unit = "bytes"): string {
  return ` […cut ${cutBytes} ${unit}]`;
}

/**
 * The length (≤ `limit`) at which `bytes` can be cut without splitting a UTF-8 character: the
 * byte at the cut must not be a continuation byte (`10xxxxxx`).
 */
export function utf8CutLength(bytes: Uint8Array, limit: number): number {
  if (bytes.byteLength <= limit) return bytes.byteLength;
  let cut = limit;
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut -= 1;
  return cut;
}

/**
 * Cuts a line of text longer than `limit` characters, keeping the match at `matchIndex` visible
 * when it lies beyond the limit. Cut parts are marked with `…`.
 */
export function cutAround(text: string, limit: number, matchIndex = 0): string {
  if (text.length <= limit) return text;
  const lead = Math.min(100, Math.floor(limit / 4)); // Characters kept before a late match.
  const wanted = matchIndex < limit - lead ? 0 : matchIndex - lead;
  const start = Math.max(0, Math.min(wanted, text.length - limit));
  const head = start > 0 ? "…" : "";
  const tail = start + limit < text.length
    ? `…${cutMarker(text.length - limit, "characters")}`
    : "";
  return `${head}${text.slice(start, start + limit)}${tail}`;
}

/** The line ending style of a text: `crlf` only when every line feed is preceded by a CR. */
export function lineEnding(text: string): "lf" | "crlf" | "none" {
  const lineFeeds = countOccurrences(text, "\n");
  if (lineFeeds === 0) return "none";
  return countOccurrences(text, "\r\n") === lineFeeds ? "crlf" : "lf";
}

/** Rewrites bare LF line feeds (and existing CRLFs, unchanged) to CRLF. */
export function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}

/** Counts non-overlapping occurrences of a non-empty `needle`. */
export function countOccurrences(text: string, needle: string): number {
  if (needle.length === 0) return 0;
  let count = 0;
  for (
    let index = text.indexOf(needle);
    index !== -1;
    index = text.indexOf(needle, index + needle.length)
  ) {
    count += 1;
  }
  return count;
}

/** The 1-based line number of character `index` in `text`. */
export function lineOfIndex(text: string, index: number): number {
  let line = 1;
  for (
    let position = text.indexOf("\n");
    position !== -1 && position < index;
    position = text.indexOf("\n", position + 1)
  ) {
    line += 1;
  }
  return line;
}

/** A count with its noun: `1 line`, `2 lines`, `1 byte`. */
export function plural(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`;
}
