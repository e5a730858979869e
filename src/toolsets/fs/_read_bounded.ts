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

/**
 * {@linkcode readAllBounded}, synchronously, into a caller's buffer (reused from file to file):
 * the buffer grows when the file needs more room, never past `maxBytes + 1`.
 *
 * @returns the bytes read (a view into the buffer, valid until the next read into it) or
 * `"too_large"`, and the buffer to keep for the next read.
 */
export function readAllBoundedSync(
  file: Deno.FsFile,
  sizeHint: number,
  maxBytes: number,
  buffer: Uint8Array,
): { bytes: Uint8Array | "too_large"; buffer: Uint8Array } {
  // One byte past the size shows whether the file grew since its stat.
  const wanted = Math.min(Math.max(sizeHint, 0), maxBytes) + 1;
  if (buffer.byteLength < wanted) buffer = new Uint8Array(wanted);
  let length = 0;
  while (true) {
    if (length === buffer.byteLength) {
      if (length > maxBytes) return { bytes: "too_large", buffer };
      const larger = new Uint8Array(Math.min(buffer.byteLength * 2, maxBytes + 1));
      larger.set(buffer);
      buffer = larger;
    }
    const room = buffer.byteLength - length;
    const read = file.readSync(buffer.subarray(length));
    if (read === null) break;
    length += read;
    if (length > maxBytes) return { bytes: "too_large", buffer };
    // A regular file reads short only at its end: once the size from the stat is in, a short
    // read saves the call that would return nothing.
    if (read < room && length >= sizeHint) break;
  }
  return { bytes: buffer.subarray(0, length), buffer };
}
