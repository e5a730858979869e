/**
 * Pipeline step 7: shape an outcome into what the model and the logs see. Secrets are redacted
 * first; an output above the inline cap is kept whole (redacted) as an artifact and cut inline.
 *
 * @module
 */

import { type ArtifactStore, AuditWriteError, type Redactor } from "../audit/mod.ts";
import { type ArtifactRef, failure, type ToolOutcome } from "../result/mod.ts";

/** What shaping produces: the redacted outcome and any artifacts written. */
export interface ShapedOutcome {
  outcome: ToolOutcome;
  artifacts: ArtifactRef[];
}

/**
 * Redacts and caps an outcome.
 *
 * @param maxOutputBytes Largest inline output in UTF-8 bytes; beyond it the head is kept inline
 * with a note naming the artifact.
 */
export async function shape(
  outcome: ToolOutcome,
  redactor: Redactor,
  artifacts: ArtifactStore,
  maxOutputBytes: number,
): Promise<ShapedOutcome> {
  const output = redactor.redactText(outcome.output);
  const shaped: ToolOutcome = {
    ok: outcome.ok,
    summary: redactor.redactText(outcome.summary),
    output,
    data: redactor.redactValue(outcome.data),
    error: outcome.error === null ? null : {
      type: outcome.error.type,
      message: redactor.redactText(outcome.error.message),
      details: redactor.redactValue(outcome.error.details) as Record<string, unknown>,
    },
  };
  const bytes = new TextEncoder().encode(output);
  // An interrupted call keeps what it had produced, whatever its size (issue 4, abort).
  const aborted = outcome.error?.type === "aborted" && bytes.byteLength > 0 &&
    (outcome.artifacts ?? []).length === 0;
  if (aborted) {
    const kept = await artifacts.store(bytes, "text/plain; charset=utf-8");
    const { ref, sha256, bytes: storedBytes, media_type } = kept;
    if (bytes.byteLength <= maxOutputBytes) {
      return { outcome: shaped, artifacts: [{ ref, sha256, bytes: storedBytes, media_type }] };
    }
  }
  if (bytes.byteLength <= maxOutputBytes) return { outcome: shaped, artifacts: [] };
  const stored = outcome.artifacts ?? [];
  if (stored.length > 0) {
    // The handler already keeps the full output (command streams): cut, never store it twice.
    const head = new TextDecoder().decode(bytes.subarray(0, maxOutputBytes)).replace(
      /\uFFFD+$/,
      "",
    );
    shaped.output =
      `${head}\n… [output cut at ${maxOutputBytes} of ${bytes.byteLength} bytes; full ` +
      `streams in ${stored.map((artifact) => artifact.ref).join(", ")}]`;
    return { outcome: shaped, artifacts: [] };
  }
  const kept = await artifacts.store(bytes, "text/plain; charset=utf-8");
  const head = new TextDecoder().decode(bytes.subarray(0, maxOutputBytes)).replace(/\uFFFD+$/, "");
  shaped.output =
    `${head}\n… [output cut at ${maxOutputBytes} of ${bytes.byteLength} bytes; full output in ${kept.ref}]`;
  const { ref, sha256, bytes: storedBytes, media_type } = kept;
  return { outcome: shaped, artifacts: [{ ref, sha256, bytes: storedBytes, media_type }] };
}

/**
 * The outcome of a call whose output could not be kept: `io_error` (`details: {failure, path}`)
 * when the file system refused it (a full disk, a read-only file system: {@linkcode
 * AuditWriteError}), `internal_error` for anything else.
 *
 * @param tool The call's tool name, for the message.
 * @param error What {@linkcode shape} threw.
 * @example
 * ```ts
 * import { AuditWriteError } from "../audit/mod.ts";
 * import { keepingFailure } from "./shape.ts";
 * const full = Object.assign(new Error("No space left on device"), { code: "ENOSPC" });
 * const outcome = keepingFailure("fs.read_file", AuditWriteError.from("/runs/r/artifacts", full));
 * console.assert(outcome.error?.type === "io_error");
 * ```
 */
export function keepingFailure(tool: string, error: unknown): ToolOutcome {
  if (error instanceof AuditWriteError) {
    return failure("io_error", `Cannot keep the output of "${tool}": ${error.message}`, {
      failure: error.failure,
      path: error.path,
    });
  }
  return failure("internal_error", `Cannot keep the output of "${tool}": ${String(error)}`);
}
