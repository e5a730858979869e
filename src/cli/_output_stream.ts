/**
 * Writing to the process's stdout and stderr without letting a closed reader end the run.
 *
 * @module
 */

const encoder = new TextEncoder();

/** What {@linkcode outputWriter} needs of a stream; `Deno.stdout` and `Deno.stderr` have it. */
export interface SyncWritable {
  /** Writes some of `bytes`; returns how many were written. */
  writeSync(bytes: Uint8Array): number;
}

/** A text writer that never throws; see {@linkcode outputWriter}. */
export interface OutputWriter {
  /** Writes `text` whole, or drops it once the stream has failed. Never throws. */
  write(text: string): void;
  /** True once a write failed: the stream is no longer written to. */
  readonly failed: boolean;
}

/**
 * Wraps a process stream so that writing never throws: progress lines and answers are what the
 * run reports, not what it does. When the reader has gone (`kagent-run … | head`: `EPIPE`,
 * Deno's `BrokenPipe`), the terminal closed, or a redirect's disk filled, the first failing write
 * marks the stream failed and every later write to it is dropped; the run goes on, finishes and
 * records its result in the run folder. Partial writes are continued until the text is out.
 *
 * @param stream The stream, e.g. `Deno.stderr`.
 * @returns A writer; `failed` says whether output was lost.
 * @example
 * ```ts
 * import { outputWriter } from "./_output_stream.ts";
 * const closed = { writeSync(): number { throw new Deno.errors.BrokenPipe("Broken pipe") } };
 * const writer = outputWriter(closed);
 * writer.write("progress\n");
 * console.assert(writer.failed);
 * ```
 */
export function outputWriter(stream: SyncWritable): OutputWriter {
  let failed = false;
  return {
    get failed() {
      return failed;
    },
    write(text: string): void {
      if (failed) return;
      const bytes = encoder.encode(text);
      let offset = 0;
      try {
        while (offset < bytes.length) {
          const written = stream.writeSync(bytes.subarray(offset));
          if (written <= 0) throw new Error("the stream took no bytes");
          offset += written;
        }
      } catch {
        // The reader is gone (or the stream cannot take more): stop writing to it, keep running.
        failed = true;
      }
    },
  };
}
