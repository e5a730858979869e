/**
 * Assembles a streamed Chat Completions answer (private to this folder) into the shape of a
 * non-streamed one, so that the provider reads both the same way: text and refusal deltas joined,
 * tool calls gathered by `index` (id, type and name as last sent, `arguments` concatenated, as
 * the official SDK's stream helper does), `finish_reason`, and the usage of the final chunk
 * (`stream_options: {include_usage: true}`). A stream that stops before `data: [DONE]` and
 * without a `finish_reason` is refused whole: no half-read tool call ever reaches the loop.
 *
 * @module
 */

import { ModelError } from "../model_provider.ts";
import type { Attempt } from "./_http.ts";
import { eventData, readServerSentEvents, streamStoppedError } from "./_server_sent_events.ts";

/** A streamed answer rebuilt as a Chat Completions response, with its first-token time. */
export interface AssembledCompletion {
  /** `{choices: [{message, finish_reason}], usage}` as a non-streamed answer has them. */
  response: Record<string, unknown>;
  /** Milliseconds from sending the request to the first text, refusal or tool-call delta. */
  first_token_ms: number | null;
}

interface PartialCall {
  id: string | null;
  type: string | null;
  name: string;
  arguments: string;
}

/**
 * Reads `response`'s events into one answer.
 *
 * @throws {ModelError} `provider_failed` when the stream carries an error object, or stops early
 *   (details: `stream_events`, `cause`, `incomplete_tool_calls` [{index, id, name,
 *   arguments_characters}]).
 */
export async function assembleOpenAiStream(
  response: Response,
  attempt: Attempt,
  model: string,
): Promise<AssembledCompletion> {
  let content = "";
  let refusal = "";
  let finishReason: unknown = undefined;
  let usage: unknown = undefined;
  let events = 0;
  let firstToken: number | null = null;
  let done = false;
  const calls = new Map<number, PartialCall>();
  const sawToken = () => {
    if (firstToken === null) firstToken = Math.round(performance.now() - attempt.startedAt);
  };

  const cause = await readServerSentEvents(response, attempt, (event) => {
    events += 1;
    if (event.data.trim() === "[DONE]") {
      done = true;
      return true;
    }
    const chunk = eventData(event);
    if (chunk === null) return false;
    if (chunk.error !== undefined && chunk.error !== null) {
      const error = asRecord(chunk.error);
      const message = typeof error?.message === "string" ? error.message : JSON.stringify(error);
      throw new ModelError(
        "provider_failed",
        `Cannot read the streamed answer of "${model}": the server sent an error: ${message}`,
        { status: response.status, attempts: attempt.attempts, stream_events: events, error },
      );
    }
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = asRecord(choices[0]);
    if (choice === null) return false;
    const delta = asRecord(choice.delta);
    if (typeof delta?.content === "string" && delta.content !== "") {
      sawToken();
      content += delta.content;
    }
    if (typeof delta?.refusal === "string" && delta.refusal !== "") {
      sawToken();
      refusal += delta.refusal;
    }
    for (const raw of Array.isArray(delta?.tool_calls) ? delta.tool_calls : []) {
      const piece = asRecord(raw);
      if (piece === null) continue;
      sawToken();
      const index = typeof piece.index === "number" ? piece.index : calls.size;
      const call = calls.get(index) ?? { id: null, type: null, name: "", arguments: "" };
      calls.set(index, call);
      if (typeof piece.id === "string" && piece.id !== "") call.id = piece.id;
      if (typeof piece.type === "string") call.type = piece.type;
      const fn = asRecord(piece.function);
      if (typeof fn?.name === "string" && fn.name !== "") call.name = fn.name;
      if (typeof fn?.arguments === "string") call.arguments += fn.arguments;
    }
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) {
      finishReason = choice.finish_reason;
    }
    return false;
  });

  // Some compatible servers close the stream after the finish_reason without `[DONE]`.
  if (!done && (cause !== null || finishReason === undefined)) {
    const incomplete = [...calls.entries()].map(([index, call]) => ({
      index,
      id: call.id,
      name: call.name,
      arguments_characters: call.arguments.length,
    }));
    throw streamStoppedError(
      model,
      cause,
      "the server closed it without a finish_reason",
      events,
      response.status,
      attempt,
      incomplete,
    );
  }
  const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => ({
    id: call.id,
    type: call.type ?? "function",
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    response: {
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: content === "" ? null : content,
          ...(refusal === "" ? {} : { refusal }),
          ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
        },
        finish_reason: finishReason ?? null,
      }],
      ...(usage === undefined ? {} : { usage }),
    },
    first_token_ms: firstToken,
  };
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : null;
}
