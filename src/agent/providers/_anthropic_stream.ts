/**
 * Assembles a streamed Messages API answer (private to this folder) into the shape of a
 * non-streamed one: content blocks by `index` from `content_block_start` and their deltas (text,
 * `input_json_delta` joined and parsed when the block stops, thinking and its signature,
 * citations), `stop_reason` from `message_delta`, and usage from `message_start` overlaid by
 * `message_delta`. A stream that stops before `message_stop` without a `stop_reason` is refused
 * whole; an `error` event (e.g. `overloaded_error` mid-stream) ends the call with its message.
 *
 * @module
 */

import { ModelError } from "../model_provider.ts";
import type { Attempt } from "./_http.ts";
import { eventData, readServerSentEvents, streamStoppedError } from "./_server_sent_events.ts";

/** A streamed answer rebuilt as a Messages API response, with its first-token time. */
export interface AssembledMessage {
  /** `{content, stop_reason, stop_sequence, usage}` as a non-streamed answer has them. */
  response: Record<string, unknown>;
  /** Milliseconds from sending the request to the first content delta. */
  first_token_ms: number | null;
}

type Block = Record<string, unknown>;

/**
 * Reads `response`'s events into one answer. A `tool_use` whose joined input is not JSON keeps
 * the text as its `input` (a string): only a turn cut at `max_tokens` can hold one, and the loop
 * never runs that turn's calls.
 *
 * @throws {ModelError} `provider_failed` on an `error` event or a stream that stops early
 *   (details: `stream_events`, `cause`, `incomplete_tool_calls` [{index, id, name,
 *   input_characters}]).
 */
export async function assembleAnthropicStream(
  response: Response,
  attempt: Attempt,
  model: string,
): Promise<AssembledMessage> {
  const blocks = new Map<number, Block>();
  const partialInputs = new Map<number, string>();
  const open = new Set<number>();
  let stopReason: unknown = undefined;
  let stopSequence: unknown = null;
  let usage: Record<string, unknown> = {};
  let events = 0;
  let firstToken: number | null = null;
  let stopped = false;
  const sawToken = () => {
    if (firstToken === null) firstToken = Math.round(performance.now() - attempt.startedAt);
  };

  const cause = await readServerSentEvents(response, attempt, (event) => {
    events += 1;
    const data = eventData(event);
    if (data === null) return false;
    const index = typeof data.index === "number" ? data.index : -1;
    switch (data.type ?? event.event) {
      case "message_start": {
        const message = asRecord(data.message);
        usage = { ...usage, ...asRecord(message?.usage) };
        return false;
      }
      case "content_block_start": {
        const block = { ...asRecord(data.content_block) };
        if (block.type === "tool_use" || block.type === "server_tool_use") {
          sawToken();
          partialInputs.set(index, "");
        }
        blocks.set(index, block);
        open.add(index);
        return false;
      }
      case "content_block_delta": {
        const block = blocks.get(index);
        const delta = asRecord(data.delta);
        if (block === undefined || delta === null) return false;
        sawToken();
        if (delta.type === "text_delta" && typeof delta.text === "string") {
          block.text = `${typeof block.text === "string" ? block.text : ""}${delta.text}`;
        } else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
          partialInputs.set(index, `${partialInputs.get(index) ?? ""}${delta.partial_json}`);
        } else if (delta.type === "thinking_delta" && typeof delta.thinking === "string") {
          block.thinking = `${
            typeof block.thinking === "string" ? block.thinking : ""
          }${delta.thinking}`;
        } else if (delta.type === "signature_delta" && typeof delta.signature === "string") {
          block.signature = delta.signature;
        } else if (delta.type === "citations_delta" && delta.citation !== undefined) {
          block.citations = [...(Array.isArray(block.citations) ? block.citations : []), {
            ...asRecord(delta.citation),
          }];
        }
        return false;
      }
      case "content_block_stop": {
        const block = blocks.get(index);
        const partial = partialInputs.get(index);
        if (block !== undefined && partial !== undefined) block.input = parseInput(partial);
        open.delete(index);
        return false;
      }
      case "message_delta": {
        const delta = asRecord(data.delta);
        if (delta?.stop_reason !== undefined && delta.stop_reason !== null) {
          stopReason = delta.stop_reason;
        }
        if (delta?.stop_sequence !== undefined) stopSequence = delta.stop_sequence;
        const update = asRecord(data.usage) ?? {};
        for (const [key, value] of Object.entries(update)) {
          if (value !== null && value !== undefined) usage[key] = value;
        }
        return false;
      }
      case "message_stop":
        stopped = true;
        return true;
      case "error": {
        const error = asRecord(data.error);
        const kind = typeof error?.type === "string" ? error.type : "error";
        const message = typeof error?.message === "string" ? error.message : "no message";
        throw new ModelError(
          "provider_failed",
          `Cannot read the streamed answer of "${model}": the server sent ${kind}: ${message}`,
          { status: response.status, attempts: attempt.attempts, stream_events: events, error },
        );
      }
      default:
        return false;
    }
  });

  if (!stopped && (cause !== null || stopReason === undefined || open.size > 0)) {
    const incomplete = [...partialInputs.entries()]
      .filter(([index]) => open.has(index))
      .map(([index, input]) => {
        const block = blocks.get(index) ?? {};
        return {
          index,
          id: typeof block.id === "string" ? block.id : null,
          name: typeof block.name === "string" ? block.name : "",
          input_characters: input.length,
        };
      });
    throw streamStoppedError(
      model,
      cause,
      "the server closed it without message_stop",
      events,
      response.status,
      attempt,
      incomplete,
    );
  }
  for (const [index, partial] of partialInputs) {
    const block = blocks.get(index);
    if (block !== undefined && open.has(index)) block.input = parseInput(partial);
  }
  const content = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
  return {
    response: { content, stop_reason: stopReason ?? null, stop_sequence: stopSequence, usage },
    first_token_ms: firstToken,
  };
}

/** The joined `input_json_delta` text as an object; `{}` when empty; the text when not JSON. */
function parseInput(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : null;
}
