/**
 * The `anthropic` model provider: the Anthropic Messages API over HTTP. Canonical dotted tool
 * names are mangled for the provider with {@linkcode ToolNameMap} and mapped back; a name the
 * provider invents is passed through unchanged, so the runtime answers `tool_not_available` and
 * the audit log shows what the model asked for. Every call keeps the raw name and id the model
 * sent (`ToolCall.provider`).
 *
 * With `stream: true` (the default) the answer comes as server-sent events, assembled by
 * `_anthropic_stream.ts` into the same turn a non-streamed answer gives, with the first-token
 * time. The system prompt and the tool list are marked for prompt caching
 * (`cache_control: {type: "ephemeral"}` on the system block and on the last tool): every turn of a
 * run sends them unchanged, so from the second turn on they are read from the cache. Models that
 * refuse `temperature` (`rejectsTemperature` of `anthropic_temperature.ts`) never get it.
 *
 * @module
 */

import type {
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelTurn,
  TurnStop,
} from "../model_provider.ts";
import type { ToolCall } from "../../runtime/mod.ts";
import type { ToolDescriptor } from "../../tools/mod.ts";
import { DEFAULT_MODEL } from "../../config/base/mod.ts";
import { ToolNameMap } from "../tool_names.ts";
import { postWithRetries, readJson } from "./_http.ts";
import { requestIdOf } from "./_request_id.ts";
import { assembleAnthropicStream } from "./_anthropic_stream.ts";
import { isEventStream } from "./_server_sent_events.ts";
import { finishTurn } from "./_model_turn.ts";
import { checkToolSet, rootObjectProblems } from "./_tool_checks.ts";
import type {
  AnthropicContentBlock,
  AnthropicMessagesBody,
  AnthropicWireMessage,
} from "./_wire_types.ts";
import {
  ANTHROPIC_VERSION,
  type AnthropicApiVersion,
  anthropicTemperatureWarning,
} from "./anthropic_temperature.ts";

/** Options of {@linkcode AnthropicProvider}. */
export interface AnthropicProviderOptions {
  model: string;
  /**
   * `/messages` is appended.
   * @default DEFAULT_MODEL.base_urls.anthropic ("https://api.anthropic.com/v1")
   */
  base_url?: string;
  /** Read by the caller from the environment variable the config names; `null` sends none. */
  api_key: string | null;
  /** Required by the API, in tokens. @default DEFAULT_MODEL.anthropic_max_tokens (4096) */
  max_tokens?: number;
  /**
   * Sent only with `api_version` 2023-06-01 and to a model that takes it
   * (`rejectsTemperature` of `anthropic_temperature.ts`); see {@linkcode anthropicTemperatureWarning}.
   */
  temperature?: number;
  /** The `anthropic-version` header. @default ANTHROPIC_VERSION ("2026-10-21") */
  api_version?: AnthropicApiVersion;
  /** Ask for a streamed answer (`stream: true`). @default DEFAULT_MODEL.stream (true) */
  stream?: boolean;
  /** Per-attempt timeout in milliseconds (streamed: until the answer starts, then per chunk). */
  timeout_ms: number;
  /** Retries after the first attempt on 429, 5xx, timeouts and connection errors. */
  retries: number;
  /** For tests. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** For tests: the backoff wait. @default a timer */
  sleep?: (ms: number) => Promise<void>;
  /** For tests: the first backoff wait in ms (see `_http.ts`). @default 500 */
  backoff_ms?: number;
}

type ContentBlock = AnthropicContentBlock;
type WireMessage = AnthropicWireMessage;

/**
 * Calls the Messages API once per turn.
 *
 * @example
 * ```ts
 * import { AnthropicProvider } from "./anthropic_provider.ts";
 * const provider = new AnthropicProvider({
 *   model: "claude-sonnet-5-5",
 *   api_key: null,
 *   timeout_ms: 60_000,
 *   retries: 3,
 * });
 * console.assert(provider.name === "anthropic");
 * ```
 */
export class AnthropicProvider implements ModelProvider {
  readonly name = "anthropic";
  readonly #options: AnthropicProviderOptions;
  #generatedIds = 0;

  constructor(options: AnthropicProviderOptions) {
    this.#options = options;
  }

  /**
   * Checks the tool set: distinct provider names, and each `input_schema` an object schema
   * (`"type": "object"`, as the Messages API requires of custom tools).
   *
   * @returns `Cannot send tool "x" to anthropic: …` sentences; `[]` when all can go.
   */
  checkTools(tools: readonly ToolDescriptor[]): string[] {
    return checkToolSet(
      tools,
      "anthropic",
      (tool) => rootObjectProblems(tool.input_schema, `"input_schema" must have "type": "object"`),
    );
  }

  /**
   * A turn cut off at `max_tokens`, refused (`stop_reason: "refusal"`), out of context window
   * (`"model_context_window_exceeded"`) or paused (`"pause_turn"`, its content kept to send back)
   * is returned with its {@linkcode TurnStop}; the loop decides.
   *
   * @throws {ModelError} `provider_failed` on HTTP failure or an empty answer.
   */
  async complete(request: ModelRequest, signal?: AbortSignal): Promise<ModelTurn> {
    const options = this.#options;
    const names = new ToolNameMap(request.tools.map((tool) => tool.name));
    const body = this.#body(request, names);
    const maxTokens = body.max_tokens;
    const stream = body.stream === true;

    const headers: Record<string, string> = {
      "anthropic-version": options.api_version ?? ANTHROPIC_VERSION,
      "content-type": "application/json",
    };
    if (options.api_key !== null) headers["x-api-key"] = options.api_key;
    const baseUrl = options.base_url ?? DEFAULT_MODEL.base_urls.anthropic;
    const url = `${baseUrl.replace(/\/+$/, "")}/messages`;
    const answer = await postWithRetries(
      url,
      body,
      {
        headers,
        timeoutMs: options.timeout_ms,
        retries: options.retries,
        ...(signal === undefined ? {} : { signal }),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
        ...(options.backoff_ms === undefined ? {} : { backoffMs: options.backoff_ms }),
      },
      async (response, attempt) => ({
        ...(stream && isEventStream(response)
          ? await assembleAnthropicStream(response, attempt, options.model)
          : { response: await readJson(response, attempt), first_token_ms: null }),
        request_id: requestIdOf(response.headers),
      }),
    );
    const turn = this.#toTurn(answer.response, names, maxTokens);
    return {
      ...turn,
      ...(answer.first_token_ms === null ? {} : { first_token_ms: answer.first_token_ms }),
      ...(answer.request_id === null ? {} : { request_id: answer.request_id }),
    };
  }

  /**
   * The Messages API body {@linkcode complete} sends for `request` (typed by `_wire_types.ts`,
   * checked against the official SDK's types in `wire_types_test.ts`); with API version
   * 2023-06-01 and a model that takes it, `temperature` too.
   */
  requestBody(request: ModelRequest): AnthropicMessagesBody & { temperature?: number } {
    return this.#body(request, new ToolNameMap(request.tools.map((tool) => tool.name)));
  }

  #body(
    request: ModelRequest,
    names: ToolNameMap,
  ): AnthropicMessagesBody & { temperature?: number } {
    const options = this.#options;
    const cache = { type: "ephemeral" } as const;
    const body: AnthropicMessagesBody & { temperature?: number } = {
      model: options.model,
      max_tokens: request.max_tokens ?? options.max_tokens ?? DEFAULT_MODEL.anthropic_max_tokens,
      system: [{ type: "text", text: request.system, cache_control: cache }],
      messages: toWireMessages(request.messages, names),
    };
    if (request.tools.length > 0) {
      body.tools = request.tools.map((tool, index) => ({
        name: names.toProvider(tool.name),
        description: tool.description,
        // checkTools refused any root that is not an object schema.
        input_schema: tool.input_schema as { type: "object"; [key: string]: unknown },
        ...(index === request.tools.length - 1 ? { cache_control: cache } : {}),
      }));
    }
    if (anthropicTemperatureWarning(options) === null && options.temperature !== undefined) {
      body.temperature = options.temperature;
    }
    if (options.stream ?? DEFAULT_MODEL.stream) body.stream = true;
    return body;
  }

  /** @param maxTokens The output limit the request carried. */
  #toTurn(response: unknown, names: ToolNameMap, maxTokens: number): ModelTurn {
    const record = asRecord(response);
    const blocks = Array.isArray(record?.content) ? record.content : [];
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    const seen = new Set<string>();
    for (const raw of blocks) {
      const block = asRecord(raw);
      if (block?.type === "text" && typeof block.text === "string") {
        texts.push(block.text);
      } else if (block?.type === "tool_use") {
        const providerName = typeof block.name === "string" ? block.name : "";
        const sentId = typeof block.id === "string" && block.id !== "" ? block.id : null;
        const id = sentId === null || seen.has(sentId) ? this.#newId() : sentId;
        seen.add(id);
        const input = block.input;
        toolCalls.push({
          id,
          name: names.toCanonical(providerName) ?? providerName,
          // A string: a streamed input that was not JSON (only a cut-off turn holds one).
          arguments: input === undefined || input === null
            ? "{}"
            : typeof input === "string"
            ? input
            : JSON.stringify(input),
          provider: { name: providerName, id: sentId },
        });
      }
    }
    const joined = texts.join("");
    const text = joined === "" ? null : joined;
    const stop = readStop(record?.stop_reason, text, maxTokens);
    // A paused turn goes back whole; a turn that thought goes back with its thinking blocks
    // complete and unmodified (signatures included), as the API requires when tools are used.
    const thought = blocks.some((block) => REASONING_BLOCKS.has(String(asRecord(block)?.type)));
    return finishTurn(
      this.#options.model,
      text,
      toolCalls,
      readUsage(record?.usage),
      stop,
      stop.reason === "paused" || thought ? blocks : undefined,
    );
  }

  #newId(): string {
    this.#generatedIds += 1;
    return `toolu-${this.#generatedIds}`;
  }
}

/** The blocks of a turn's reasoning, which the next request must carry back unmodified. */
const REASONING_BLOCKS: ReadonlySet<string> = new Set(["thinking", "redacted_thinking"]);

/**
 * How a Messages API turn ended: `max_tokens` a cut-off, `refusal` a refusal (its text is the
 * turn's text, when any), `model_context_window_exceeded`, `pause_turn` a paused turn to send
 * back; anything else (`end_turn`, `tool_use`, `stop_sequence`) a normal end.
 */
function readStop(stopReason: unknown, text: string | null, maxTokens: number): TurnStop {
  const provider = { stop_reason: stopReason ?? null };
  switch (stopReason) {
    case "max_tokens":
      return { reason: "truncated", provider, max_tokens: maxTokens };
    case "refusal":
      return { reason: "refused", provider, ...(text === null ? {} : { refusal: text }) };
    case "model_context_window_exceeded":
      return { reason: "context_window_exceeded", provider };
    case "pause_turn":
      return { reason: "paused", provider };
    default:
      return { reason: "end", provider };
  }
}

/**
 * Maps the conversation to Messages API turns. Tool results become `tool_result` blocks at the
 * start of one user message; consecutive user-side messages are merged so roles alternate. A
 * paused turn is sent back as the provider's own content, and the turn that continued it is
 * merged into the same assistant message (one turn, as the API sees it).
 */
function toWireMessages(messages: ModelMessage[], names: ToolNameMap): WireMessage[] {
  const wire: WireMessage[] = [];
  const appendUser = (block: ContentBlock) => {
    const last = wire.at(-1);
    if (last?.role === "user") {
      if (typeof last.content === "string") {
        last.content = [{ type: "text", text: last.content }];
      }
      last.content.push(block);
    } else {
      wire.push({ role: "user", content: [block] });
    }
  };
  for (const message of messages) {
    switch (message.role) {
      case "user": {
        const last = wire.at(-1);
        if (last?.role === "user") appendUser({ type: "text", text: message.content });
        else wire.push({ role: "user", content: message.content });
        break;
      }
      case "assistant": {
        const content: ContentBlock[] = [];
        const toolUses: ContentBlock[] = message.tool_calls.map((call) => ({
          type: "tool_use",
          id: call.id,
          name: names.toProvider(call.name),
          input: parseInput(call.arguments),
        }));
        if (isOwnContent(message.provider_content)) {
          // The turn's own blocks (a paused turn, thinking), sent back exactly as the API sent
          // them; each tool_use in its place carries the call's id as the run answered it.
          let next = 0;
          for (const block of message.provider_content) {
            const call = block.type === "tool_use" ? toolUses[next++] : undefined;
            content.push(call ?? block);
          }
        } else {
          if (message.content !== null && message.content !== "") {
            content.push({ type: "text", text: message.content });
          }
          content.push(...toolUses);
        }
        const last = wire.at(-1);
        if (last?.role === "assistant" && Array.isArray(last.content)) {
          last.content.push(...content);
        } else wire.push({ role: "assistant", content });
        break;
      }
      case "tool":
        appendUser({
          type: "tool_result",
          tool_use_id: message.tool_call_id,
          content: message.content,
          is_error: !message.result.ok,
        });
        break;
    }
  }
  return wire;
}

/**
 * Whether a turn's kept content is Messages API blocks (not another provider's parts, as in a
 * fork of a conversation held by a cloud provider): those go back as they came.
 */
function isOwnContent(value: unknown): value is ContentBlock[] {
  return Array.isArray(value) && value.every((block) => {
    const type = asRecord(block)?.type;
    return typeof type === "string" && type !== "reasoning" && type !== "tool-call";
  });
}

/** The arguments as an object; `{}` when they are not a JSON object (already refused). */
function parseInput(text: string): Record<string, unknown> {
  try {
    return asRecord(JSON.parse(text)) ?? {};
  } catch {
    return {};
  }
}

/**
 * Messages API usage. Its `input_tokens` leaves out the tokens read from or written to the
 * prompt cache; they are added back so that `input_tokens` counts every input token, as OpenAI's
 * does, and kept apart as `cache_read_input_tokens` / `cache_creation_input_tokens`.
 */
function readUsage(value: unknown): ModelTurn["usage"] {
  const usage = asRecord(value);
  if (
    usage === null || typeof usage.input_tokens !== "number" ||
    typeof usage.output_tokens !== "number"
  ) {
    return null;
  }
  const read = typeof usage.cache_read_input_tokens === "number"
    ? usage.cache_read_input_tokens
    : null;
  const created = typeof usage.cache_creation_input_tokens === "number"
    ? usage.cache_creation_input_tokens
    : null;
  return {
    input_tokens: usage.input_tokens + (read ?? 0) + (created ?? 0),
    output_tokens: usage.output_tokens,
    ...(read === null ? {} : { cache_read_input_tokens: read }),
    ...(created === null ? {} : { cache_creation_input_tokens: created }),
  };
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : null;
}
