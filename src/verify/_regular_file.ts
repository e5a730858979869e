/**
 * Reading a run folder that may be hostile: only regular files are read, and a link is never
 * followed (a link to `/dev/zero` or a FIFO in place of a log would never end, and a link out of
 * the folder would make verify judge a file the run never wrote).
 *
 * @module
 */

/** The path is a link, a folder or a special file, not a regular file. */
export class NotRegularFileError extends Error {}

/**
 * The bytes of the regular file at `path`, or null when nothing is there.
 *
 * @throws {NotRegularFileError} when `path` is a symbolic link, a folder, a FIFO, a socket or a
 *   device (checked before opening, and again on the open file).
 * @throws whatever else the file system throws (no permission).
 */
export async function readRegularFile(path: string): Promise<Uint8Array | null> {
  try {
    const info = await Deno.lstat(path);
    if (!info.isFile) throw new NotRegularFileError(`"${path}" is not a regular file`);
    using file = await Deno.open(path, { read: true });
    const opened = await file.stat();
    if (!opened.isFile) throw new NotRegularFileError(`"${path}" is not a regular file`);
    const chunks: Uint8Array[] = [];
    let total = 0;
    const buffer = new Uint8Array(1 << 16);
    for (;;) {
      const read = await file.read(buffer);
      if (read === null) break;
      chunks.push(buffer.slice(0, read));
      total += read;
    }
    const bytes = new Uint8Array(total);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return bytes;
  } catch (error: unknown) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** The text of the regular file at `path`; null when it is missing or not a regular file. */
export async function readRegularText(path: string): Promise<string | null> {
  try {
    const bytes = await readRegularFile(path);
    return bytes === null ? null : new TextDecoder().decode(bytes);
  } catch (error: unknown) {
    if (error instanceof NotRegularFileError) return null;
    throw error;
  }
}
