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
import { type Attempt, excerpt } from "./_http.ts";
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

  let lastIndex: number | null = null;
  const cause = await readServerSentEvents(response, attempt, (event) => {
    events += 1;
    if (event.data.trim() === "[DONE]") {
      done = true;
      return true;
    }
    // As the SDK: data that is not JSON is an error, and so is an error object, or any data
    // of an `event: error` (its `error` key, else the whole data).
    const chunk = strictEventData(event, model, response.status, attempt, events);
    const error = chunk.error ?? (event.event === "error" ? chunk : null);
    if (error !== undefined && error !== null) {
      const record = asRecord(error);
      const message = typeof record?.message === "string" ? record.message : JSON.stringify(error);
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
      const fn = asRecord(piece.function);
      const index = pieceIndex(piece, fn, lastIndex, calls);
      lastIndex = index;
      const call = calls.get(index) ?? { id: null, type: null, name: "", arguments: "" };
      calls.set(index, call);
      if (typeof piece.id === "string" && piece.id !== "") call.id = piece.id;
      if (typeof piece.type === "string") call.type = piece.type;
      if (typeof fn?.name === "string" && fn.name !== "") call.name = fn.name;
      if (typeof fn?.arguments === "string") call.arguments += fn.arguments;
      // Ollama-style servers stream the arguments as an object: sent as its JSON text.
      else if (asRecord(fn?.arguments) !== null) call.arguments += JSON.stringify(fn?.arguments);
    }
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) {
      finishReason = choice.finish_reason;
    }
    return false;
  });

  // Some compatible servers close the stream after the finish_reason without `[DONE]`; a
  // `[DONE]` without any finish_reason is no whole answer either (the SDK throws).
  if (cause !== null || finishReason === undefined) {
    const incomplete = [...calls.entries()].map(([index, call]) => ({
      index,
      id: call.id,
      name: call.name,
      arguments_characters: call.arguments.length,
    }));
    throw streamStoppedError(
      model,
      cause,
      done ? "[DONE] came without a finish_reason" : "the server closed it without a finish_reason",
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

/**
 * The call a tool-call piece belongs to: its `index` when it has one; without, a piece that
 * carries neither id nor name continues the last call (servers that send no `index` split one
 * call over pieces that way), and one that does starts a new call.
 */
function pieceIndex(
  piece: Record<string, unknown>,
  fn: Record<string, unknown> | null,
  lastIndex: number | null,
  calls: ReadonlyMap<number, PartialCall>,
): number {
  if (typeof piece.index === "number") return piece.index;
  const starts = (typeof piece.id === "string" && piece.id !== "") ||
    (typeof fn?.name === "string" && fn.name !== "");
  if (!starts && lastIndex !== null) return lastIndex;
  return calls.size === 0 ? 0 : Math.max(...calls.keys()) + 1;
}

/**
 * One event's data as a JSON object.
 *
 * @throws {ModelError} `provider_failed` when it is not JSON (as the official SDKs throw), with
 *   `details.data_excerpt`.
 */
function strictEventData(
  event: { data: string },
  model: string,
  status: number,
  attempt: Attempt,
  events: number,
): Record<string, unknown> {
  const data = eventData(event);
  if (data !== null) return data;
  throw new ModelError(
    "provider_failed",
    `Cannot read the streamed answer of "${model}": an event's data is not a JSON object: ${
      excerpt(event.data)
    }`,
    {
      status,
      attempts: attempt.attempts,
      stream_events: events,
      data_excerpt: excerpt(event.data),
    },
  );
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : null;
}
