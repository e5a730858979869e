/**
 * Status and `error.type` of a span that ended badly, the same way for every kagent-run span.
 *
 * @module
 */

import { type Span, SpanStatusCode } from "@opentelemetry/api";
import { GEN_AI } from "./gen_ai_names.ts";

/** Sets status error and `error.type` (a low-cardinality code: an error type, an end reason). */
export function markError(span: Span, type: string): void {
  span.setAttribute(GEN_AI.errorType, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/**
 * Marks a span failed by a thrown error: `error.type` is the error's `code` when it has a text one
 * (`ModelError`), else its name, else `_OTHER`.
 */
export function markThrown(span: Span, error: unknown): void {
  const code = typeof error === "object" && error !== null && "code" in error &&
      typeof error.code === "string"
    ? error.code
    : error instanceof Error
    ? error.name
    : "_OTHER";
  markError(span, code);
}
