/**
 * Turns a memory provider's throw into a failed tool outcome (tools never throw into the loop).
 *
 * @module
 */

import { MemoryError } from "../../memory/mod.ts";
import { failure, type ToolOutcome } from "../../result/mod.ts";

/**
 * `invalid_*` and `content_too_large` → `invalid_arguments`, `timeout` → `timeout`, the rest
 * (`unavailable`, `invalid_response`, unexpected throws) → `io_error`. Messages go through `redact`.
 */
export function memoryFailure(
  error: unknown,
  action: string,
  redact: (text: string) => string,
): ToolOutcome {
  if (error instanceof MemoryError) {
    const type = error.isInvalidArgument
      ? "invalid_arguments"
      : error.code === "timeout"
      ? "timeout"
      : "io_error";
    return failure(type, redact(error.message), { code: error.code, ...error.details });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return failure("io_error", redact(`Cannot ${action}: ${reason}`));
}
