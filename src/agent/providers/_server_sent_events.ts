/**
 * Reads a streamed model answer (server-sent events, `text/event-stream`) with the
 * `eventsource-parser` library (private to this folder). Each chunk restarts the attempt's idle
 * timeout; a stream that stops early says why, and the provider's assembler decides whether what
 * it read is a whole answer.
 *
 * @module
 */

import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ModelError } from "../model_provider.ts";
import type { Attempt } from "./_http.ts";

/** Whether a response carries server-sent events (else it is read as one JSON answer). */
export function isEventStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").toLowerCase().includes("text/event-stream");
}

/**
 * Feeds every event of `response` to `onEvent` until it returns `true` (the answer is complete:
 * the rest of the stream is cancelled) or the stream ends.
 *
 * @param onEvent Reads one event; may throw a {@linkcode ModelError} (an error event), which
 *   cancels the stream and passes through.
 * @returns `null` when `onEvent` said complete or the server closed the stream, else why the
 *   stream stopped early (`no data for 120000 ms`, `connection lost (…)`), for the caller's error.
 * @throws {ModelError} `provider_failed` with `aborted: true` when the caller's signal aborted.
 */
export async function readServerSentEvents(
  response: Response,
  attempt: Attempt,
  onEvent: (event: EventSourceMessage) => boolean,
): Promise<string | null> {
  if (response.body === null) return "the answer had no body";
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<string>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (attempt.timedOut()) return `no data for ${attempt.timeoutMs} ms`;
        if (attempt.signal.aborted) {
          throw new ModelError("provider_failed", `Cannot call "${attempt.host}": aborted`, {
            status: null,
            attempts: attempt.attempts,
            aborted: true,
          });
        }
        return `connection lost (${error instanceof Error ? error.message : String(error)})`;
      }
      if (chunk.done) return null;
      attempt.touch();
      parser.feed(chunk.value);
      while (pending.length > 0) {
        if (onEvent(pending.shift() as EventSourceMessage)) return null;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** One event's JSON data as an object; `null` when it is not a JSON object. */
export function eventData(event: EventSourceMessage): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(event.data);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as Record<string, unknown>
      : null;
  } catch {
    return null;
  }
}

/** A tool call of a stream that stopped before it was whole (`index`, `id`, `name`, sizes). */
export interface IncompleteToolCall {
  index: number;
  id: string | null;
  name: string;
  [size: string]: unknown;
}

/**
 * The error of a stream that stopped before the answer ended: names the cause (or `closedCause`
 * when the server just closed it), the events read and the tool calls that never ran.
 */
export function streamStoppedError(
  model: string,
  cause: string | null,
  closedCause: string,
  events: number,
  status: number,
  attempt: Attempt,
  incomplete: readonly IncompleteToolCall[],
): ModelError {
  const calling = incomplete.length === 0
    ? ""
    : `; ${incomplete.length === 1 ? "its tool call" : `its ${incomplete.length} tool calls`} (${
      incomplete.map((call) => `${call.id ?? `#${call.index}`} ${call.name}`).join(", ")
    }) never ran`;
  return new ModelError(
    "provider_failed",
    `Cannot use the streamed answer of "${model}": the stream stopped before the answer ended (${
      cause ?? closedCause
    }, after ${events} events)${calling}`,
    {
      status,
      attempts: attempt.attempts,
      stream_events: events,
      cause: cause ?? "closed",
      incomplete_tool_calls: incomplete,
    },
  );
}
