/**
 * UTF-8 boundaries: where a byte array can be cut without splitting a character.
 *
 * @module
 */

/** Tells whether `byte` continues a multi-byte UTF-8 sequence (`10xxxxxx`). */
function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** Length of the sequence a lead byte starts: 1 to 4, or 1 for a byte that cannot lead one. */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc2) return 2;
  return 1;
}

/**
 * The largest `length <= end` such that `bytes[0, length)` does not end inside a multi-byte
 * character: an incomplete sequence at the cut is left out. Invalid bytes are kept as they are.
 *
 * @param bytes The bytes to cut.
 * @param end The wanted cut, in bytes; clamped to `[0, bytes.length]`.
 * @returns The cut, in bytes: `end` or up to 3 bytes less.
 */
export function utf8PrefixLength(bytes: Uint8Array, end: number): number {
  const cut = Math.max(0, Math.min(end, bytes.length));
  let start = cut;
  while (start > 0 && cut - start < 3 && isContinuation(bytes[start - 1] ?? 0)) start--;
  if (start === 0) return cut;
  const lead = start - 1;
  const length = sequenceLength(bytes[lead] ?? 0);
  return length > 1 && lead + length > cut ? lead : cut;
}

/**
 * The number of continuation bytes (at most 3) that open `bytes`: the rest of a character whose
 * start was cut off.
 *
 * @param bytes The bytes to look at.
 * @returns How many bytes to skip, 0 to 3.
 */
export function leadingContinuationBytes(bytes: Uint8Array): number {
  let count = 0;
  while (count < 3 && count < bytes.length && isContinuation(bytes[count] ?? 0)) count++;
  return count;
}
