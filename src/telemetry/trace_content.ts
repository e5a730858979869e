/**
 * What a span may carry of a call's arguments, a result or an answer, with `audit.trace_content`:
 * the text redacted by the run's redactor (the same secrets and token shapes as the logs), then cut
 * to a bounded size (Deno's exporter does not honour `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`).
 *
 * @module
 */

import type { Redactor } from "../audit/mod.ts";

/** Largest content attribute a span carries, in UTF-8 bytes (16 KiB); the rest is cut. */
export const MAX_TRACE_CONTENT_BYTES = 16 * 1024;

/**
 * Redacts `text`, then cuts it to `maxBytes` UTF-8 bytes (never inside a character), ending a cut
 * text with `…[cut N bytes]` (N: the bytes left out). Redaction comes first, so a cut can never
 * leave the start of a secret that the whole text would have hidden.
 *
 * @param maxBytes @default MAX_TRACE_CONTENT_BYTES
 * @example
 * ```ts
 * import { Redactor } from "../audit/mod.ts";
 * import { traceContent } from "./trace_content.ts";
 * const redactor = Redactor.fromEnvironment(["MY_TOKEN"], () => "s3cr3t-value-123");
 * console.assert(!traceContent("token s3cr3t-value-123", redactor).includes("s3cr3t"));
 * console.assert(traceContent("x".repeat(100), redactor, 10).startsWith("xxxxxxxxxx…[cut 90 bytes]"));
 * ```
 */
export function traceContent(
  text: string,
  redactor: Redactor,
  maxBytes: number = MAX_TRACE_CONTENT_BYTES,
): string {
  const redacted = redactor.redactText(text);
  const bytes = new TextEncoder().encode(redacted);
  if (bytes.byteLength <= maxBytes) return redacted;
  // Back up to the first byte of a character: continuation bytes are 10xxxxxx.
  let end = maxBytes;
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end -= 1;
  const kept = new TextDecoder().decode(bytes.subarray(0, end));
  return `${kept}…[cut ${bytes.byteLength - end} bytes]`;
}
