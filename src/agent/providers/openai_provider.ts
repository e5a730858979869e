/**
 * The `openai` model provider: OpenAI Chat Completions (and compatible servers) over HTTP.
 * Canonical dotted tool names are mangled for the provider with {@linkcode ToolNameMap} and mapped
 * back; a name the provider invents is passed through unchanged, so the runtime answers
 * `tool_not_available` and the audit log shows what the model asked for. Every call keeps the raw
 * name and id the model sent (`ToolCall.provider`).
 *
 * With `strict: true`, function definitions carry `strict: true` and their schemas go through the
 * strict transform (`_strict_schema.ts`): optional properties become required and nullable, every
 * object closed; the nulls of omitted optional properties are removed from the model's arguments
 * before the runtime sees them.
 *
 * With `stream: true` (the default) the answer comes as server-sent events, assembled by
 * `_openai_stream.ts` into the same turn a non-streamed answer gives, with the first-token time;
 * a server that ignores `stream` and answers JSON is read as JSON. The output limit goes out as
 * `max_completion_tokens` (`max_tokens` is deprecated, and reasoning models refuse it).
 *
 * @module
 */

import {
  ModelError,
  type ModelMessage,
  type ModelProvider,
  type ModelRequest,
  type ModelTurn,
  type TurnStop,
} from "../model_provider.ts";
import type { ToolCall } from "../../runtime/mod.ts";
import type { JsonSchema, ToolDescriptor } from "../../tools/mod.ts";
import { ToolNameMap } from "../tool_names.ts";
import { DEFAULT_MODEL } from "../../config/base/mod.ts";
import { postWithRetries, readJson } from "./_http.ts";
import { requestIdOf } from "./_request_id.ts";
import { assembleOpenAiStream } from "./_openai_stream.ts";
import { isEventStream } from "./_server_sent_events.ts";
import { sha256Hex } from "../../audit/mod.ts";
import { finishTurn } from "./_model_turn.ts";
import { removeOptionalNulls, toStrictSchema } from "./_strict_schema.ts";
import type { OpenAiChatBody, OpenAiWireMessage, ReasoningEffort } from "./_wire_types.ts";
import { checkToolSet, rootObjectProblems } from "./_tool_checks.ts";

/** Options of {@linkcode OpenAiProvider}. */
export interface OpenAiProviderOptions {
  model: string;
  /** E.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  base_url: string;
  /** Read by the caller from the environment variable the config names; `null` sends none. */
  api_key: string | null;
  temperature?: number;
  /** The output limit in tokens, sent as `max_completion_tokens`. @default the server's */
  max_tokens?: number;
  /**
   * `reasoning_effort` for reasoning models (e.g. `"low"`, `"medium"`, `"high"`); not sent when
   * absent. @default the server's
   */
  reasoning_effort?: ReasoningEffort;
  /**
   * Ask for a streamed answer (`stream: true` with `stream_options: {include_usage: true}`).
   * @default DEFAULT_MODEL.stream (true)
   */
  stream?: boolean;
  /** Per-attempt timeout in milliseconds (streamed: until the answer starts, then per chunk). */
  timeout_ms: number;
  /** Retries after the first attempt on 429, 5xx, timeouts and connection errors. */
  retries: number;
  /**
   * OpenAI strict mode (Structured Outputs for function calling): the model's arguments always
   * match the sent schema. Tools whose schema strict mode cannot express are refused by
   * {@linkcode OpenAiProvider.checkTools} before the run. `parallel_tool_calls` is left to the
   * server: OpenAI documents that calls made in parallel may not match strict schemas, and the
   * runtime validates every call against the tool's own schema either way. @default false
   */
  strict?: boolean;
  /** For tests. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** For tests: the backoff wait. @default a timer */
  sleep?: (ms: number) => Promise<void>;
  /** For tests: the first backoff wait in ms (see `_http.ts`). @default 500 */
  backoff_ms?: number;
}

/**
 * Calls Chat Completions once per turn.
 *
 * @example
 * ```ts
 * import { OpenAiProvider } from "./openai_provider.ts";
 * const provider = new OpenAiProvider({
 *   model: "gpt-5.4-mini",
 *   base_url: "https://api.openai.com/v1",
 *   api_key: null,
 *   timeout_ms: 60_000,
 *   retries: 3,
 * });
 * console.assert(provider.name === "openai");
 * ```
 */
export class OpenAiProvider implements ModelProvider {
  readonly name = "openai";
  readonly #options: OpenAiProviderOptions;
  #generatedIds = 0;

  constructor(options: OpenAiProviderOptions) {
    this.#options = options;
  }

  /**
   * Checks the tool set for the configured mode. Both modes: distinct provider names and a root
   * object schema. Strict mode: everything `_strict_schema.ts` reports (keywords, formats, nesting,
   * property and enum limits).
   *
   * @returns `Cannot send tool "x" to openai (strict mode): …` sentences; `[]` when all can go.
   */
  checkTools(tools: readonly ToolDescriptor[]): string[] {
    if (this.#options.strict === true) {
      return checkToolSet(
        tools,
        "openai (strict mode)",
        (tool) => toStrictSchema(tool.input_schema).problems,
      );
    }
    return checkToolSet(
      tools,
      "openai",
      (tool) =>
        rootObjectProblems(
          tool.input_schema,
          `function parameters must be a JSON Schema object ("type": "object")`,
        ),
    );
  }

  /**
   * A turn cut off at `max_tokens` (`finish_reason: "length"`) or refused (`message.refusal`,
   * `finish_reason: "content_filter"`) is returned with its {@linkcode TurnStop}; the loop never
   * runs its calls.
   *
   * @throws {ModelError} `provider_failed` on HTTP failure or an empty answer;
   *   `tools_unsupported` (before any request) when strict mode cannot express a tool's schema.
   */
  async complete(request: ModelRequest, signal?: AbortSignal): Promise<ModelTurn> {
    const options = this.#options;
    const strict = options.strict === true;
    const names = new ToolNameMap(request.tools.map((tool) => tool.name));
    const body = this.#body(request, names);
    const maxTokens = body.max_completion_tokens;
    const stream = body.stream === true;

    const headers: Record<string, string> = {};
    if (options.api_key !== null) headers.authorization = `Bearer ${options.api_key}`;
    const url = `${options.base_url.replace(/\/+$/, "")}/chat/completions`;
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
          ? await assembleOpenAiStream(response, attempt, options.model)
          : { response: await readJson(response, attempt), first_token_ms: null }),
        request_id: requestIdOf(response.headers),
      }),
    );
    const schemas = new Map(request.tools.map((tool) => [tool.name, tool.input_schema]));
    const turn = this.#toTurn(answer.response, names, strict ? schemas : null, maxTokens ?? null);
    return {
      ...turn,
      ...(answer.first_token_ms === null ? {} : { first_token_ms: answer.first_token_ms }),
      ...(answer.request_id === null ? {} : { request_id: answer.request_id }),
    };
  }

  /**
   * The Chat Completions body {@linkcode complete} sends for `request` (typed by
   * `_wire_types.ts`, checked against the official SDK's types in `wire_types_test.ts`).
   *
   * @throws {ModelError} `tools_unsupported` when strict mode cannot express a tool's schema.
   */
  requestBody(request: ModelRequest): OpenAiChatBody {
    return this.#body(request, new ToolNameMap(request.tools.map((tool) => tool.name)));
  }

  #body(request: ModelRequest, names: ToolNameMap): OpenAiChatBody {
    const options = this.#options;
    const strict = options.strict === true;
    const body: OpenAiChatBody = {
      model: options.model,
      messages: [
        { role: "system", content: request.system },
        ...request.messages.map((message) => toWireMessage(message, names)),
      ],
    };
    if (request.tools.length > 0) {
      body.tools = request.tools.map((tool) => ({
        type: "function",
        function: {
          name: names.toProvider(tool.name),
          description: tool.description,
          parameters: strict ? this.#strictSchema(tool) : tool.input_schema,
          ...(strict ? { strict: true } : {}),
        },
      }));
    }
    if (options.temperature !== undefined) body.temperature = options.temperature;
    const maxTokens = request.max_tokens ?? options.max_tokens;
    if (maxTokens !== undefined) body.max_completion_tokens = maxTokens;
    if (options.reasoning_effort !== undefined) body.reasoning_effort = options.reasoning_effort;
    if (options.stream ?? DEFAULT_MODEL.stream) {
      body.stream = true;
      body.stream_options = { include_usage: true };
    }
    return body;
  }

  /** The strict form of a tool's schema; fails closed when strict mode cannot express it. */
  #strictSchema(tool: ToolDescriptor): JsonSchema {
    const { schema, problems } = toStrictSchema(tool.input_schema);
    if (problems.length > 0) {
      const messages = problems.map((problem) =>
        `Cannot send tool "${tool.name}" to openai (strict mode): ${problem}`
      );
      throw new ModelError("tools_unsupported", messages[0] as string, { problems: messages });
    }
    return schema;
  }

  /**
   * @param strictSchemas In strict mode, the original schema of each tool by canonical name, to
   *   remove the nulls of omitted optional properties; `null` otherwise.
   * @param maxTokens The output limit the request carried, `null` when it sent none.
   */
  #toTurn(
    response: unknown,
    names: ToolNameMap,
    strictSchemas: Map<string, JsonSchema> | null,
    maxTokens: number | null,
  ): ModelTurn {
    const record = asRecord(response);
    const choices = record?.choices;
    const choice = Array.isArray(choices) ? asRecord(choices[0]) : null;
    const message = asRecord(choice?.message);
    if (message === null) {
      throw new ModelError(
        "provider_failed",
        `Cannot read model answer from "${this.#options.model}": empty response (no choices)`,
      );
    }
    const text = typeof message.content === "string" && message.content !== ""
      ? message.content
      : null;
    const seen = new Set<string>();
    const rawCalls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
    const toolCalls: ToolCall[] = rawCalls.map((raw) => {
      const call = asRecord(raw);
      const fn = asRecord(call?.function);
      const providerName = typeof fn?.name === "string" ? fn.name : "";
      const sentId = typeof call?.id === "string" && call.id !== "" ? call.id : null;
      const id = sentId === null || seen.has(sentId) ? this.#newId() : sentId;
      seen.add(id);
      const name = names.toCanonical(providerName) ?? providerName;
      const args = fn?.arguments;
      const text = typeof args === "string"
        ? args
        : args === undefined || args === null
        ? "{}"
        : JSON.stringify(args);
      const schema = strictSchemas?.get(name);
      const checked = schema === undefined ? text : removeOptionalNulls(text, schema);
      return {
        id,
        name,
        arguments: checked,
        provider: checked === text ? { name: providerName, id: sentId } : {
          name: providerName,
          id: sentId,
          arguments_sha256: sha256Hex(text),
        },
      };
    });
    return finishTurn(
      this.#options.model,
      text,
      toolCalls,
      readUsage(record?.usage),
      readStop(choice?.finish_reason, message.refusal, maxTokens),
    );
  }

  #newId(): string {
    this.#generatedIds += 1;
    return `call-${this.#generatedIds}`;
  }
}

/**
 * How a Chat Completions turn ended: a `refusal` text or `finish_reason: "content_filter"` is a
 * refusal (whatever else the message holds), `"length"` a cut-off, anything else a normal end.
 */
function readStop(finishReason: unknown, refusal: unknown, maxTokens: number | null): TurnStop {
  const provider = { finish_reason: finishReason ?? null };
  const refusalText = typeof refusal === "string" && refusal !== "" ? refusal : null;
  if (refusalText !== null || finishReason === "content_filter") {
    return {
      reason: "refused",
      provider,
      ...(refusalText === null ? {} : { refusal: refusalText }),
    };
  }
  if (finishReason === "length") return { reason: "truncated", provider, max_tokens: maxTokens };
  return { reason: "end", provider };
}

function toWireMessage(message: ModelMessage, names: ToolNameMap): OpenAiWireMessage {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content };
    case "assistant": {
      const wire: OpenAiWireMessage = { role: "assistant", content: message.content };
      if (message.tool_calls.length > 0) {
        wire.tool_calls = message.tool_calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: names.toProvider(call.name), arguments: call.arguments },
        }));
      }
      return wire;
    }
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id, content: message.content };
  }
}

/**
 * Chat Completions usage: `prompt_tokens` (cached ones included) and `completion_tokens`
 * (reasoning ones included), with `prompt_tokens_details.cached_tokens` and
 * `completion_tokens_details.reasoning_tokens` when the server sends them.
 */
function readUsage(value: unknown): ModelTurn["usage"] {
  const usage = asRecord(value);
  if (
    usage === null || typeof usage.prompt_tokens !== "number" ||
    typeof usage.completion_tokens !== "number"
  ) {
    return null;
  }
  const cached = asRecord(usage.prompt_tokens_details)?.cached_tokens;
  const reasoning = asRecord(usage.completion_tokens_details)?.reasoning_tokens;
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    ...(typeof cached === "number" ? { cache_read_input_tokens: cached } : {}),
    ...(typeof reasoning === "number" ? { reasoning_tokens: reasoning } : {}),
  };
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : null;
}
