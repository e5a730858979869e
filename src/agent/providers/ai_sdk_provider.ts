/**
 * One adapter from the Vercel AI SDK provider specification (`@ai-sdk/provider`,
 * `LanguageModelV4`) to the agent loop's model turn, so that every provider package that
 * implements it (Azure OpenAI, Bedrock, Vertex, Gemini, Mistral, Groq, the OpenAI Responses API;
 * built by `cloud_models.ts`) drives a run with the same contract as the own clients: canonical
 * tool names mangled ({@linkcode ToolNameMap}), each turn streamed (`doStream`), its stop mapped
 * onto {@linkcode TurnStop} (`length` truncated, `content-filter` refused, a context-window stop
 * by its raw reason), reasoning and provider metadata kept and sent back unmodified, and the
 * request id of each answer kept for the audit.
 *
 * @module
 */

import type {
  JSONSchema7,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import {
  ModelError,
  type ModelProvider,
  type ModelRequest,
  type ModelTurn,
  type TokenUsage,
  type TurnStop,
} from "../model_provider.ts";
import type { ToolCall } from "../../runtime/mod.ts";
import type { ToolDescriptor } from "../../tools/mod.ts";
import { ToolNameMap } from "../tool_names.ts";
import { toAiSdkPrompt } from "./_ai_sdk_prompt.ts";
import { describeError, readAiSdkStream } from "./_ai_sdk_stream.ts";
import { finishTurn } from "./_model_turn.ts";
import { requestIdOf } from "./_request_id.ts";
import { checkToolSet, rootObjectProblems } from "./_tool_checks.ts";

/** Options of {@linkcode AiSdkProvider}. */
export interface AiSdkProviderOptions {
  /** The provider's name in events and messages, e.g. `bedrock`. */
  name: string;
  /** The language model, built with the gateway's fetch (see `cloud_models.ts`). */
  model: LanguageModelV4;
  /** The output limit in tokens (`maxOutputTokens`). @default the provider's */
  max_tokens?: number;
  /** @default the provider's */
  temperature?: number;
  /** `reasoning` of the call options. @default the provider's */
  reasoning?: LanguageModelV4CallOptions["reasoning"];
  /** Passed to every call, e.g. `{openai: {store: false}}`. @default none */
  provider_options?: SharedV4ProviderOptions;
  /** The longest wait for the answer to start and then for each next stream part, in ms. */
  timeout_ms: number;
}

/** Raw finish reasons that mean the conversation no longer fits the model. */
const CONTEXT_WINDOW_REASONS: ReadonlySet<string> = new Set([
  "model_context_window_exceeded",
  "context_window_exceeded",
]);

/**
 * A {@linkcode ModelProvider} over a `LanguageModelV4`.
 *
 * @example
 * ```ts
 * import { AiSdkProvider } from "./ai_sdk_provider.ts";
 * import type { LanguageModelV4 } from "@ai-sdk/provider";
 * const model = { specificationVersion: "v4", provider: "fake", modelId: "m" } as LanguageModelV4;
 * const provider = new AiSdkProvider({ name: "bedrock", model, timeout_ms: 60_000 });
 * console.assert(provider.name === "bedrock");
 * ```
 */
export class AiSdkProvider implements ModelProvider {
  readonly name: string;
  readonly #options: AiSdkProviderOptions;
  #generatedIds = 0;

  constructor(options: AiSdkProviderOptions) {
    this.name = options.name;
    this.#options = options;
  }

  /** Distinct provider names, and each input schema an object schema. */
  checkTools(tools: readonly ToolDescriptor[]): string[] {
    return checkToolSet(
      tools,
      this.name,
      (tool) =>
        rootObjectProblems(tool.input_schema, `the input schema must have "type": "object"`),
    );
  }

  /**
   * Streams one turn. A turn cut off at the output limit, refused by the provider's filter, or
   * out of context window is returned with its {@linkcode TurnStop}; the loop decides.
   *
   * @throws {ModelError} `provider_failed` on HTTP failure (after the retries of the gateway
   *   fetch), an `error` part, a stream that stops early, a finish reason `error` or `other`,
   *   or an empty answer.
   */
  async complete(request: ModelRequest, signal?: AbortSignal): Promise<ModelTurn> {
    const options = this.#options;
    const model = options.model.modelId;
    const names = new ToolNameMap(request.tools.map((tool) => tool.name));
    const maxTokens = request.max_tokens ?? options.max_tokens;
    const stall = new AbortController();
    const abortSignal = signal === undefined
      ? stall.signal
      : AbortSignal.any([signal, stall.signal]);
    const call: LanguageModelV4CallOptions = {
      prompt: toAiSdkPrompt(request.system, request.messages, names),
      ...(request.tools.length === 0 ? {} : {
        tools: request.tools.map((tool) => ({
          type: "function" as const,
          name: names.toProvider(tool.name),
          description: tool.description,
          inputSchema: tool.input_schema as JSONSchema7,
        })),
        toolChoice: { type: "auto" as const },
      }),
      ...(maxTokens === undefined ? {} : { maxOutputTokens: maxTokens }),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.reasoning === undefined ? {} : { reasoning: options.reasoning }),
      ...(options.provider_options === undefined
        ? {}
        : { providerOptions: options.provider_options }),
      abortSignal,
    };
    const startedAt = performance.now();
    let result: LanguageModelV4StreamResult;
    try {
      result = await options.model.doStream(call);
    } catch (error) {
      throw asModelError(error, model, signal);
    }
    const requestId = requestIdOf(result.response?.headers ?? {});
    let answer;
    try {
      answer = await readAiSdkStream(result.stream, {
        model,
        startedAt,
        idleTimeoutMs: options.timeout_ms,
        abort: (reason) => stall.abort(new DOMException(reason, "TimeoutError")),
      });
    } catch (error) {
      throw asModelError(error, model, signal);
    }
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    const seen = new Set<string>();
    for (const part of answer.parts) {
      if (part.type === "text") texts.push(part.text);
      if (part.type !== "tool-call") continue;
      const sentId = part.toolCallId === "" ? null : part.toolCallId;
      const id = sentId === null || seen.has(sentId) ? this.#newId() : sentId;
      seen.add(id);
      toolCalls.push({
        id,
        name: names.toCanonical(part.toolName) ?? part.toolName,
        arguments: part.input.trim() === "" ? "{}" : part.input,
        provider: { name: part.toolName, id: sentId },
      });
    }
    const joined = texts.join("");
    const text = joined === "" ? null : joined;
    const stop = readStop(answer.finishReason, text, maxTokens ?? null, model);
    const turn = finishTurn(
      model,
      text,
      toolCalls,
      readUsage(answer.usage),
      stop,
      answer.keep ? answer.parts : undefined,
    );
    return {
      ...turn,
      ...(answer.first_token_ms === null ? {} : { first_token_ms: answer.first_token_ms }),
      ...(requestId === null ? {} : { request_id: requestId }),
    };
  }

  #newId(): string {
    this.#generatedIds += 1;
    return `call-${this.#generatedIds}`;
  }
}

/**
 * How the turn ended: `stop` and `tool-calls` a normal end (unless the raw reason says the
 * context window was exceeded), `length` truncated, `content-filter` refused; `error` and
 * `other` are refused whole (their calls never run).
 */
function readStop(
  reason: { unified: string; raw: string | undefined },
  text: string | null,
  maxTokens: number | null,
  model: string,
): TurnStop {
  const provider = { finish_reason: reason.unified, raw_finish_reason: reason.raw ?? null };
  if (reason.raw !== undefined && CONTEXT_WINDOW_REASONS.has(reason.raw)) {
    return { reason: "context_window_exceeded", provider };
  }
  switch (reason.unified) {
    case "stop":
    case "tool-calls":
      return { reason: "end", provider };
    case "length":
      return { reason: "truncated", provider, max_tokens: maxTokens };
    case "content-filter":
      return { reason: "refused", provider, ...(text === null ? {} : { refusal: text }) };
    default:
      throw new ModelError(
        "provider_failed",
        `Cannot use the answer of "${model}": it ended with finish reason "${reason.unified}" (${
          reason.raw ?? "no raw reason"
        })`,
        provider,
      );
  }
}

/** The package's usage as the run's: every input token, cached ones included. */
function readUsage(usage: LanguageModelV4Usage | null): TokenUsage | null {
  const input = usage?.inputTokens.total;
  const output = usage?.outputTokens.total;
  if (usage === null || input === undefined || output === undefined) return null;
  const { cacheRead, cacheWrite } = usage.inputTokens;
  const reasoning = usage.outputTokens.reasoning;
  return {
    input_tokens: input,
    output_tokens: output,
    ...(cacheRead === undefined ? {} : { cache_read_input_tokens: cacheRead }),
    ...(cacheWrite === undefined ? {} : { cache_creation_input_tokens: cacheWrite }),
    ...(reasoning === undefined ? {} : { reasoning_tokens: reasoning }),
  };
}

/**
 * A failure as a {@linkcode ModelError}: one from the gateway fetch's retries passes as is; the
 * package's own (an `APICallError`, a parse error) becomes `provider_failed` with its status.
 */
function asModelError(error: unknown, model: string, signal?: AbortSignal): ModelError {
  if (error instanceof ModelError) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof ModelError) return cause;
  if (signal?.aborted) {
    return new ModelError("provider_failed", `Cannot call "${model}": aborted`, {
      status: null,
      aborted: true,
    });
  }
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return new ModelError(
    "provider_failed",
    `Cannot call "${model}": ${describeError(error)}`,
    { status: typeof status === "number" ? status : null },
  );
}
