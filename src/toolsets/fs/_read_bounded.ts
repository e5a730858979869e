/**
 * Reading an open file whole, with a cap: the size from `stat` may be stale, so the loop stops
 * at `maxBytes + 1` whatever the file claims. Private to the folder.
 *
 * @module
 */

/**
 * Reads `file` from its current position to the end.
 *
 * @param sizeHint The size reported by `stat`, in bytes; only sizes the first buffer.
 * @param maxBytes Most bytes accepted.
 * @returns the bytes, or `"too_large"` once more than `maxBytes` were seen.
 */
export async function readAllBounded(
  file: Deno.FsFile,
  sizeHint: number,
  maxBytes: number,
): Promise<Uint8Array | "too_large"> {
  let buffer = new Uint8Array(Math.min(Math.max(sizeHint, 0), maxBytes) + 1);
  let length = 0;
  while (true) {
    if (length === buffer.byteLength) {
      if (length > maxBytes) return "too_large";
      const larger = new Uint8Array(Math.min(buffer.byteLength * 2, maxBytes + 1));
      larger.set(buffer);
      buffer = larger;
    }
    const read = await file.read(buffer.subarray(length));
    if (read === null) break;
    length += read;
    if (length > maxBytes) return "too_large";
  }
  return buffer.subarray(0, length);
}
