/**
 * Reads a Vercel AI SDK `doStream` result (private to this folder) into one answer: text and
 * reasoning joined per part id, tool calls from their final `tool-call` parts (the package has
 * joined the input pieces), the `finish` part's reason and usage, the first-token time, and the
 * parts to keep when the turn carries reasoning or provider metadata. A stream that ends without
 * `finish`, stalls longer than the idle timeout, or sends an `error` part is refused whole: no
 * half-read tool call reaches the loop.
 *
 * @module
 */

import type {
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { ModelError } from "../model_provider.ts";
import type { KeptPart } from "./_ai_sdk_prompt.ts";

type TextPart = Exclude<KeptPart, { type: "tool-call" }>;

/** A streamed answer, assembled. */
export interface AssembledStream {
  /** Text, reasoning and tool-call parts in the order they started. */
  parts: KeptPart[];
  finishReason: LanguageModelV4FinishReason;
  usage: LanguageModelV4Usage | null;
  /** Milliseconds from the request to the first text, reasoning or tool-input part. */
  first_token_ms: number | null;
  /** Whether a part carried reasoning or provider metadata (the turn must go back as is). */
  keep: boolean;
}

/** What {@linkcode readAiSdkStream} needs besides the stream. */
export interface StreamReading {
  model: string;
  /** `performance.now()` when the request was sent. */
  startedAt: number;
  /** The longest wait for the next part, in ms. */
  idleTimeoutMs: number;
  /** Aborts the request (the package's fetch) when the stream stalls. */
  abort: (reason: string) => void;
}

/**
 * Reads `stream` to its `finish` part.
 *
 * @throws {ModelError} `provider_failed` on an `error` part, a stream that ends without `finish`
 *   or stalls (details: `stream_parts`, `cause`, `incomplete_tool_calls` [{id, name}]).
 */
export async function readAiSdkStream(
  stream: ReadableStream<LanguageModelV4StreamPart>,
  reading: StreamReading,
): Promise<AssembledStream> {
  const parts: KeptPart[] = [];
  const open = new Map<string, KeptPart>();
  const started = new Map<string, string>();
  let finish: Extract<LanguageModelV4StreamPart, { type: "finish" }> | null = null;
  let firstToken: number | null = null;
  let keep = false;
  let count = 0;
  const sawToken = () => {
    firstToken ??= Math.round(performance.now() - reading.startedAt);
  };
  const reader = stream.getReader();
  try {
    for (;;) {
      const next = await readWithin(reader, reading);
      if (typeof next === "string") throw stopped(reading.model, next, count, started);
      if (next.done) break;
      count += 1;
      const part = next.value;
      switch (part.type) {
        case "text-start":
        case "reasoning-start": {
          const kept: KeptPart = {
            type: part.type === "text-start" ? "text" : "reasoning",
            text: "",
            ...metadata(part.providerMetadata),
          };
          keep ||= kept.type === "reasoning" || kept.providerMetadata !== undefined;
          open.set(`${kept.type}:${part.id}`, kept);
          parts.push(kept);
          break;
        }
        case "text-delta":
        case "reasoning-delta": {
          sawToken();
          const kind = part.type === "text-delta" ? "text" : "reasoning";
          const found = open.get(`${kind}:${part.id}`);
          const kept: TextPart = found === undefined || found.type === "tool-call"
            ? { type: kind, text: "" }
            : found;
          if (kept !== found) {
            open.set(`${kind}:${part.id}`, kept);
            parts.push(kept);
          }
          kept.text += part.delta;
          // A signature or redacted data can come on a delta (Bedrock): kept with its part.
          if (part.providerMetadata !== undefined) {
            kept.providerMetadata = { ...kept.providerMetadata, ...part.providerMetadata };
            keep = true;
          }
          break;
        }
        case "text-end":
        case "reasoning-end": {
          const kind = part.type === "text-end" ? "text" : "reasoning";
          const kept = open.get(`${kind}:${part.id}`);
          if (kept !== undefined && part.providerMetadata !== undefined) {
            kept.providerMetadata = { ...kept.providerMetadata, ...part.providerMetadata };
            keep = true;
          }
          break;
        }
        case "tool-input-start":
          sawToken();
          started.set(part.id, part.toolName);
          break;
        case "tool-call":
          sawToken();
          if (part.providerExecuted === true) break;
          started.delete(part.toolCallId);
          keep ||= part.providerMetadata !== undefined;
          parts.push({
            type: "tool-call",
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: part.input,
            ...metadata(part.providerMetadata),
          });
          break;
        case "finish":
          finish = part;
          break;
        case "error":
          throw new ModelError(
            "provider_failed",
            `Cannot read the streamed answer of "${reading.model}": the server sent an error: ${
              describeError(part.error)
            }`,
            { status: null, stream_parts: count, error: describeError(part.error) },
          );
        default:
          break;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  if (finish === null) {
    throw stopped(reading.model, "the stream ended without a finish", count, started);
  }
  if (finish.finishReason.unified === "interrupted") {
    throw stopped(reading.model, "the provider reported it interrupted", count, started);
  }
  return {
    // Reasoning stays even without text: its metadata (encrypted content) must go back.
    parts: parts.filter((part) => part.type !== "text" || part.text !== ""),
    finishReason: finish.finishReason,
    usage: finish.usage,
    first_token_ms: firstToken,
    keep,
  };
}

/** The next part, or why none came: the idle timeout (the request is aborted then). */
async function readWithin(
  reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>,
  reading: StreamReading,
): Promise<ReadableStreamReadResult<LanguageModelV4StreamPart> | string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`no data for ${reading.idleTimeoutMs} ms`),
      reading.idleTimeoutMs,
    );
  });
  try {
    const result = await Promise.race([reader.read(), idle]);
    if (typeof result === "string") reading.abort(result);
    return result;
  } catch (error) {
    if (error instanceof ModelError) throw error;
    return `connection lost (${describeError(error)})`;
  } finally {
    clearTimeout(timer);
  }
}

function stopped(
  model: string,
  cause: string,
  parts: number,
  started: ReadonlyMap<string, string>,
): ModelError {
  const incomplete = [...started].map(([id, name]) => ({ id, name }));
  const calling = incomplete.length === 0
    ? ""
    : `; its tool calls (${
      incomplete.map((call) => `${call.id} ${call.name}`).join(", ")
    }) never ran`;
  return new ModelError(
    "provider_failed",
    `Cannot use the streamed answer of "${model}": the stream stopped before the answer ended (${cause}, after ${parts} parts)${calling}`,
    { status: null, stream_parts: parts, cause, incomplete_tool_calls: incomplete },
  );
}

function metadata(
  value: KeptPart["providerMetadata"],
): { providerMetadata?: NonNullable<KeptPart["providerMetadata"]> } {
  return value === undefined || Object.keys(value).length === 0 ? {} : { providerMetadata: value };
}

/** An error's message, or its JSON. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null) {
    const message = (error as { message?: unknown }).message;
    if (typeof message === "string") return message;
    return JSON.stringify(error);
  }
  return String(error);
}
