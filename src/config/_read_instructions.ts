/**
 * Reads the `agent.instructions` file: a regular file of UTF-8 text, at most
 * {@linkcode MAX_INSTRUCTIONS_BYTES}. Private to the config folder.
 *
 * @module
 */

import { MAX_INSTRUCTIONS_BYTES } from "./defaults.ts";

/** The text, or why there is none as `must be …: "<path>" …` (ready to follow `key "x" `). */
export type ReadInstructionsResult = { ok: true; text: string } | { ok: false; reason: string };

/**
 * Reads an instructions file. The path is checked with `stat` before it is opened (so a FIFO is
 * never opened and cannot block loading) and again with `fstat` on the open file; at most
 * `MAX_INSTRUCTIONS_BYTES + 1` bytes are read whatever the file claims its size is.
 *
 * @param path Absolute path; symlinks are followed.
 * @returns The text (a leading byte order mark removed), or the reason it cannot be used.
 */
export async function readInstructions(path: string): Promise<ReadInstructionsResult> {
  const fail = (reason: string): ReadInstructionsResult => ({ ok: false, reason });
  const unreadable = (error: unknown) =>
    error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory
      ? fail(`must be an existing file: "${path}" does not exist`)
      : fail(`must be a readable file: "${path}" cannot be read (${messageOf(error)})`);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error: unknown) {
    return unreadable(error);
  }
  if (!info.isFile) {
    return fail(
      `must be a regular file: "${path}" is ${
        info.isDirectory ? "a directory" : "a FIFO, socket or device"
      }`,
    );
  }
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error: unknown) {
    return unreadable(error);
  }
  let bytes: Uint8Array;
  try {
    const opened = await file.stat();
    if (!opened.isFile) {
      return fail(`must be a regular file: "${path}" changed into something else while opened`);
    }
    bytes = await readAtMost(file, MAX_INSTRUCTIONS_BYTES + 1);
  } catch (error: unknown) {
    return unreadable(error);
  } finally {
    file.close();
  }
  const limit = `${MAX_INSTRUCTIONS_BYTES} bytes (64 KiB)`;
  if (bytes.length > MAX_INSTRUCTIONS_BYTES) {
    return fail(`must be at most ${limit}: "${path}" is larger`);
  }
  if (bytes.includes(0)) return fail(`must be a text file: "${path}" contains NUL bytes`);
  try {
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return fail(`must be UTF-8 text: "${path}" is not valid UTF-8`);
  }
}

/** Reads until end of file or `limit` bytes, whichever comes first. */
async function readAtMost(file: Deno.FsFile, limit: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(limit);
  let length = 0;
  while (length < limit) {
    const count = await file.read(buffer.subarray(length));
    if (count === null) break;
    length += count;
  }
  return buffer.subarray(0, length);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
