/**
 * `fs.read_file`: a bounded window of a text file's lines, numbered.
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "../../tools/mod.ts";
import { failure, success, type ToolOutcome } from "../../result/mod.ts";
import {
  ioFailure,
  isGitConfigPath,
  openVerifiedForRead,
  scrubGitConfig,
} from "../../sandbox/mod.ts";
import { guessMediaType, looksBinary } from "./_binary.ts";
import { checkPath, isOutcome } from "./_check.ts";
import { BINARY_SNIFF_BYTES, formatBytes } from "./_limits.ts";
import { cutMarker, lineNumberWidth, numberedLine, plural, utf8CutLength } from "./_text.ts";

/** Default number of lines returned. */
export const DEFAULT_MAX_LINES = 200;
/** Most lines one call returns. */
export const MAX_LINES_LIMIT = 1000;
/** Longest line returned whole, in bytes; longer lines are cut at a UTF-8 boundary. */
export const MAX_LINE_BYTES = 4096;
/** Bytes read from the file at a time. */
const CHUNK_BYTES = 64 * 1024;

const parameters = z.strictObject({
  path: z.string().min(1).max(4096).describe(
    "File to read, relative to the workspace (absolute paths are checked the same way)",
  ),
  start_line: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(1).describe(
    "First line to return, 1-based",
  ),
  max_lines: z.number().int().min(1).max(MAX_LINES_LIMIT).default(DEFAULT_MAX_LINES).describe(
    `Most lines to return (1 to ${MAX_LINES_LIMIT})`,
  ),
});

/** Structured result of `fs.read_file`. */
export interface ReadFileData {
  /** The file, relative to the workspace. */
  path: string;
  start_line: number;
  /** Last line returned (`start_line - 1` when none). */
  end_line: number;
  /** The whole file was scanned, so `total_lines` is known. */
  total_lines_known: boolean;
  /** Lines in the file, or null when the read stopped before the end. */
  total_lines: number | null;
  /** More lines follow `end_line`. */
  truncated: boolean;
  /** Where the next call should start, or null at the end of the file. */
  next_start_line: number | null;
  /** Line numbers cut at {@linkcode MAX_LINE_BYTES}. */
  truncated_lines: number[];
  /** File size in bytes. */
  bytes: number;
}

/**
 * `fs.read_file(path, start_line = 1, max_lines = 200)`: returns up to `max_lines` lines from
 * `start_line`, each prefixed with its number (`   12\ttext`). The file is streamed: at most the
 * window (plus one byte) is kept, whatever the file's size. Lines over 4,096 bytes are cut with a
 * ` […cut N bytes]` marker; a trailing CR is not shown.
 *
 * Errors: the guard's refusals (`path_outside_sandbox`, `not_a_regular_file`, `invalid_arguments`),
 * `file_not_found`, `not_a_regular_file` (a folder), `binary_file` (a NUL byte in the first 8 KiB
 * or invalid UTF-8; details carry `bytes` and a guessed `media_type`), `aborted`, `io_error`,
 * `sandbox_violation`.
 */
export const readFileTool = defineTool({
  name: "fs.read_file",
  description: "Read a text file as numbered lines: up to max_lines (default 200, at most " +
    "1000) from start_line. Long lines are cut at 4096 bytes. Binary files are refused. Use " +
    "next_start_line from the result to read on.",
  parameters,
  permission: "readonly",
  tags: ["filesystem", "read"],
  annotations: { category: "filesystem" },
  targets: (args) => [{ kind: "path", path: args.path, access: "read" }],
  handler: async (args, context): Promise<ToolOutcome> => {
    const path = await checkPath(context.guard, args.path, "read", "read file");
    if (isOutcome(path)) return path;
    const startLine = args.start_line ?? 1;
    const maxLines = args.max_lines ?? DEFAULT_MAX_LINES;

    const opened = await openVerifiedForRead(path, { signal: context.signal }).catch((error) =>
      ioFailure("read file", path, error)
    );
    if ("ok" in opened) return opened;
    try {
      // A repository's config is shown without the credentials a checkout left in it.
      const source = isGitConfigPath(path.real) ? scrubbedReader(opened.file) : null;
      return readWindow(
        source ?? opened.file,
        source?.size ?? opened.size,
        path.display,
        startLine,
        maxLines,
        context.signal,
      );
    } catch (error) {
      return ioFailure("read file", path, error);
    } finally {
      opened.file.close();
    }
  },
});

/** A line of the window: its number, where its kept bytes are in the window buffer, what was cut. */
interface WindowLine {
  number: number;
  start: number;
  length: number;
  cutBytes: number;
}

/**
 * Reads the window with synchronous reads: the handler runs in the tool Worker, where blocking
 * holds up nothing the user waits for, and a synchronous read costs a few µs instead of a round
 * trip to Deno's blocking thread pool. The abort signal is looked at between chunks.
 */
function readWindow(
  file: SyncReader,
  size: number,
  display: string,
  startLine: number,
  maxLines: number,
  signal: AbortSignal,
): ToolOutcome {
  const sample = readUpTo(file, Math.min(size, BINARY_SNIFF_BYTES));
  if (looksBinary(sample)) {
    const mediaType = guessMediaType(sample);
    return failure(
      "binary_file",
      `Cannot read file "${display}": it is binary (${mediaType}, ${formatBytes(size)})`,
      { path: display, bytes: size, media_type: mediaType },
    );
  }

  const lastWanted = startLine + maxLines - 1;
  const lines: WindowLine[] = [];
  // The line the next byte belongs to. The window's kept bytes go into one buffer, line after
  // line, each followed by a newline: `windowLength` bytes of finished lines, then `keptLength`
  // bytes kept of the current one (at most MAX_LINE_BYTES + 1).
  let line = 1;
  let windowBytes = new Uint8Array(Math.min(size + 1, 1 << 20) + MAX_LINE_BYTES + 2);
  let windowLength = 0;
  let keptLength = 0;
  let lineBytes = 0;
  let lastByte = -1;
  let more = false;

  const ensure = (extra: number) => {
    const needed = windowLength + keptLength + extra;
    if (needed <= windowBytes.byteLength) return;
    const larger = new Uint8Array(Math.max(needed, windowBytes.byteLength * 2));
    larger.set(windowBytes.subarray(0, windowLength + keptLength));
    windowBytes = larger;
  };

  const finishLine = () => {
    if (line >= startLine) {
      let total = lineBytes;
      if (lastByte === 0x0d) total -= 1; // CRLF: the CR is not part of the text.
      const length = total > MAX_LINE_BYTES
        ? utf8CutLength(
          windowBytes.subarray(windowLength, windowLength + Math.min(keptLength, total)),
          MAX_LINE_BYTES,
        )
        : total;
      lines.push({ number: line, start: windowLength, length, cutBytes: total - length });
      windowLength += length;
      keptLength = 0;
      ensure(1);
      windowBytes[windowLength++] = 0x0a;
    }
    line += 1;
    keptLength = 0;
    lineBytes = 0;
    lastByte = -1;
  };

  const scan = (bytes: Uint8Array): boolean => {
    let position = 0;
    while (position < bytes.byteLength) {
      if (line > lastWanted) return true; // A byte after the window: there is more.
      const newline = bytes.indexOf(0x0a, position);
      const end = newline === -1 ? bytes.byteLength : newline;
      if (line >= startLine && end > position) {
        const count = Math.min(end - position, MAX_LINE_BYTES + 1 - keptLength);
        if (count > 0) {
          ensure(count);
          windowBytes.set(bytes.subarray(position, position + count), windowLength + keptLength);
          keptLength += count;
        }
      }
      if (end > position) lastByte = bytes[end - 1] ?? -1;
      lineBytes += end - position;
      if (newline === -1) return false;
      finishLine();
      position = newline + 1;
    }
    return false;
  };

  more = scan(sample);
  // Sized for what the stat says is left (a file that grew since is still read to its end).
  const buffer = new Uint8Array(
    Math.min(CHUNK_BYTES, Math.max(size - sample.byteLength, 0) + 4096),
  );
  while (!more) {
    if (signal.aborted) {
      return failure("aborted", `Cannot read file "${display}": the run was interrupted`, {
        path: display,
      });
    }
    const read = file.readSync(buffer);
    if (read === null) break;
    more = scan(buffer.subarray(0, read));
  }
  let totalLines: number | null = null;
  if (!more) {
    if (lineBytes > 0) finishLine(); // A last line without a final newline.
    totalLines = line - 1;
  }

  const decoder = new TextDecoder("utf-8", { fatal: true });
  const window = windowBytes.subarray(0, windowLength);
  const texts = decodeAll(lines, window, decoder);
  // Invalid UTF-8 somewhere: decode line by line to name the line.
  if (texts === null) return invalidLine(lines, window, decoder, display, size);

  const endLine = texts.at(-1)?.number ?? startLine - 1;
  const width = lineNumberWidth(Math.max(endLine, 1));
  const output = texts.map(({ number, text, cutBytes }) =>
    numberedLine(number, cutBytes > 0 ? text + cutMarker(cutBytes) : text, width)
  ).join("\n");
  const data: ReadFileData = {
    path: display,
    start_line: startLine,
    end_line: endLine,
    total_lines_known: totalLines !== null,
    total_lines: totalLines,
    truncated: more,
    next_start_line: more ? endLine + 1 : null,
    truncated_lines: texts.filter((entry) => entry.cutBytes > 0).map((entry) => entry.number),
    bytes: size,
  };
  return success(summarize(display, data, texts.length), output, data);
}

/**
 * The window's lines decoded in one call (the buffer holds each line followed by a newline, and a
 * line holds no newline, so splitting the text gives each line back), or null when the bytes are
 * not valid UTF-8.
 */
function decodeAll(
  lines: readonly WindowLine[],
  window: Uint8Array,
  decoder: TextDecoder,
): { number: number; text: string; cutBytes: number }[] | null {
  let text: string;
  try {
    text = decoder.decode(window);
  } catch {
    return null;
  }
  const parts = text.split("\n");
  return lines.map((entry, index) => ({
    number: entry.number,
    text: parts[index] as string,
    cutBytes: entry.cutBytes,
  }));
}

/** `binary_file` naming the first line of the window that is not valid UTF-8. */
function invalidLine(
  lines: readonly WindowLine[],
  window: Uint8Array,
  decoder: TextDecoder,
  display: string,
  size: number,
): ToolOutcome {
  const bad = lines.find((entry) => {
    try {
      decoder.decode(window.subarray(entry.start, entry.start + entry.length));
      return false;
    } catch {
      return true;
    }
  });
  const number = bad?.number ?? lines[0]?.number ?? 1;
  return failure(
    "binary_file",
    `Cannot read file "${display}": line ${number} is not valid UTF-8 (${formatBytes(size)})`,
    { path: display, bytes: size, media_type: "application/octet-stream", line: number },
  );
}

function summarize(display: string, data: ReadFileData, count: number): string {
  if (data.total_lines === 0) return `Read file "${display}": it is empty`;
  if (count === 0) {
    return `Read nothing from "${display}": the file has ${
      plural(data.total_lines ?? 0, "line")
    }, ` +
      `start_line ${data.start_line} is past the end`;
  }
  if (data.start_line === 1 && !data.truncated) {
    return `Read ${plural(count, "line")} of "${display}"`;
  }
  const rest = data.truncated ? `; more from line ${data.next_start_line}` : " (end of file)";
  return `Read lines ${data.start_line}-${data.end_line} of "${display}"${rest}`;
}

/** Reads exactly `length` bytes, or fewer at the end of the file. */
function readUpTo(file: SyncReader, length: number): Uint8Array {
  const buffer = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const read = file.readSync(buffer.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
}

/** What the window reads from: an open file, or text held in memory. */
type SyncReader = Pick<Deno.FsFile, "readSync">;

/** Most bytes of a repository config read to scrub it (configs are a few KiB). */
const MAX_GIT_CONFIG_BYTES = 1_048_576;

/**
 * The config file's text without credentials (`scrubGitConfig`), as a reader of its bytes; the
 * file's first {@linkcode MAX_GIT_CONFIG_BYTES} bytes only.
 */
function scrubbedReader(file: Deno.FsFile): SyncReader & { size: number } {
  const raw = readUpTo(file, MAX_GIT_CONFIG_BYTES);
  const bytes = new TextEncoder().encode(scrubGitConfig(new TextDecoder().decode(raw)).text);
  let offset = 0;
  return {
    size: bytes.length,
    readSync(buffer: Uint8Array): number | null {
      if (offset >= bytes.length) return null;
      const count = Math.min(buffer.length, bytes.length - offset);
      buffer.set(bytes.subarray(offset, offset + count));
      offset += count;
      return count;
    },
  };
}
