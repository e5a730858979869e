/**
 * The agent loop: check the tool set against the provider, ask the model, run its tool calls
 * through the runtime (scheduled by {@linkcode runTurn}), answer every call with its result paired
 * by id, repeat until a final message, the turn limit, an abort, or a model error.
 *
 * @module
 */

import type { AuditRecorder } from "../audit/mod.ts";
import { DEFAULT_CHILD_AGENTS, DEFAULT_MAX_PARALLEL_TOOLS } from "../config/base/mod.ts";
import { CHILD_STARTING_TOOLS } from "../policy/mod.ts";
import type { ToolRuntime } from "../runtime/mod.ts";
import { runTurn } from "../runtime/mod.ts";
import { changesTaskStore } from "../tasks/mod.ts";
import type { Permission, ToolDescriptor } from "../tools/mod.ts";
import type { ToolResult } from "../result/mod.ts";
import type { ToolCall } from "../runtime/mod.ts";
import {
  ModelError,
  type ModelMessage,
  type ModelProvider,
  type ModelTurn,
  type RunContext,
  type TokenUsage,
  type TurnStop,
} from "./model_provider.ts";
import type { AgentTracing } from "../telemetry/mod.ts";
import { tracedProvider } from "./traced_provider.ts";
import type { DynamicSystem } from "./dynamic_system.ts";
import { UniqueCallIds } from "./unique_call_ids.ts";
import { addUsage } from "./_add_usage.ts";
import type { TokenBudget } from "./token_budget.ts";
import { type ResumeStart, startResumed } from "./resume_start.ts";
import {
  describeUnusableTurn,
  isUnusable,
  recordNotExecuted,
  truncatedRetryLimit,
  unusableTurnDetails,
} from "./unusable_turn.ts";

/**
 * Why a run ended. `completed` is the only success. `aborted`: the signal aborted before (or
 * during) a model request. `aborted_tools`: it aborted while a turn's tools ran; the loop stopped
 * after that turn's results were all collected.
 */
export type EndReason =
  | "completed"
  | "max_turns"
  | "max_total_tokens"
  | "model_error"
  | "aborted"
  | "aborted_tools";

/** Options of {@linkcode runAgent}. */
export interface AgentOptions {
  provider: ModelProvider;
  runtime: ToolRuntime;
  recorder: AuditRecorder;
  /** The run's effective tool set, sent to the model. */
  tools: ToolDescriptor[];
  /**
   * The tool set for the next request, when it can change during the run (a loaded skill narrows
   * it). @default () => tools
   */
  currentTools?: () => ToolDescriptor[];
  system: string;
  task: string;
  run: RunContext;
  /** Model turns before the run stops with `max_turns` (a paused turn's continuation counts). */
  maxTurns: number;
  /**
   * The run tree's token budget (`limits.max_total_tokens`), shared with its child agents: each
   * turn's reported tokens are spent into it; once it is spent, the run ends `max_total_tokens`
   * after that turn's calls. @default no budget
   */
  tokenBudget?: TokenBudget | null;
  /**
   * Retry a turn cut off at the output limit once, at twice the limit
   * ({@linkcode truncatedRetryLimit}), instead of ending the run (`model.retry_truncated`).
   * @default false
   */
  retryTruncated?: boolean;
  /** Aborts the run: running tools are aborted, calls not yet started are answered `aborted`. */
  signal?: AbortSignal;
  /** Called after each tool call (progress lines), in completion order. */
  onToolResult?: (result: ToolResult) => void;
  /**
   * How many consecutive readonly calls of a turn may run at once.
   * @default DEFAULT_MAX_PARALLEL_TOOLS (4)
   */
  concurrency?: number;
  /**
   * The permission of a registered tool, or undefined when unknown. Consecutive readonly calls
   * run in parallel; others (unknown names included) run alone.
   * @default the `permission` of the same-named entry of `tools`
   */
  toolPermission?: (toolName: string) => Permission | undefined;
  /** @default () => new Date() */
  now?: () => Date;
  /**
   * The conversation before the task: a fork's copy of its parent's conversation (complete turns
   * only: every tool call answered). The task follows it as a user message. @default none
   */
  history?: readonly ModelMessage[];
  /**
   * The array the loop keeps the conversation in, for a caller that reads it while the run goes
   * (the agent tools copy it for a fork). Given empty; the loop appends. @default a new array
   */
  conversation?: ModelMessage[];
  /**
   * How many calls that start a child agent (adjacent in a turn) run at once: they are their own
   * class, started in parallel and all waited for (`wait_all`: one failing never skips the
   * others). @default DEFAULT_CHILD_AGENTS.max_concurrent_children (4)
   */
  childConcurrency?: number;
  /**
   * The agent's spans (`invoke_agent` around the loop, `chat` around each request); tool calls
   * made meanwhile nest under it. @default null: no spans
   */
  tracing?: AgentTracing | null;
  /**
   * Text the run adds to `system` as it goes (memory_context, instruction files): told each
   * turn's results before the next request, asked for each request's system text. @default none
   */
  dynamicSystem?: DynamicSystem;
  /** Continue a recorded run instead of starting with `task` (ignored then). @default none */
  resume?: ResumeStart;
}

/** What a run produced. */
export interface AgentOutcome {
  end_reason: EndReason;
  /** The model's final message, or null. */
  final_text: string | null;
  turns: number;
  /** Every call answered, those of an unusable turn (not executed, `skipped`) included. */
  results: ToolResult[];
  /** The model error message when `end_reason` is `model_error`. */
  error: string | null;
  /** Tokens over all turns, when the provider reported any; null when it reported none. */
  usage: TokenUsage | null;
  /**
   * Why the model failed when `end_reason` is `model_error`: the {@linkcode ModelError} code —
   * `truncated`, `refused`, `context_window_exceeded` for a turn that ended badly,
   * `provider_failed`, `tools_unsupported`, `script_invalid`, `script_exhausted` otherwise.
   */
  error_code: ModelError["code"] | null;
  /**
   * The details of that error, as in `logs/errors.jsonl`: for a turn that ended badly `turn`,
   * `stop` (the provider's stop fields), `refusal` (the refusal text), `max_tokens`,
   * `not_executed` (the ids of its calls); HTTP `status` and `attempts` for provider failures.
   */
  error_details: Record<string, unknown> | null;
  duration_ms: number;
}

const NORMAL_END: TurnStop = { reason: "end", provider: {} };

/** The user message that asks the model to go on after an empty answer. */
export const EMPTY_RESPONSE_CONTINUATION = "Please continue";

/**
 * Runs the loop. Never rejects for model or tool failures; they end the run with a reason.
 *
 * Before the first request the provider checks the initial tool set
 * ({@linkcode ModelProvider.checkTools}); any problem ends the run with `model_error` before any
 * request is sent, with one `logs/errors.jsonl` line (`code: "tools_unsupported"`, every problem
 * in `problems`) and `error` naming the first problem.
 *
 * A turn is acted on only when it ended normally ({@linkcode TurnStop} `end`). A turn cut off at
 * the output limit, refused, or out of context window ends the run `model_error` (`error_code`
 * `truncated`, `refused`, `context_window_exceeded`) without running any of its calls: each is
 * recorded as not executed ({@linkcode recordNotExecuted}), and the error line holds the
 * provider's stop fields and the refusal text. With `retryTruncated`, a truncated turn is asked
 * again once at twice the limit first. An empty answer that ended normally (`provider_failed`
 * with `details.empty_response`) is answered once with the user message
 * {@linkcode EMPTY_RESPONSE_CONTINUATION} (`model.retried`, reason `empty_response`); empty again,
 * the run ends `model_error`. A paused turn (Anthropic `pause_turn`) without tool calls
 * is sent back as it is and the model continues; each continuation counts as a turn. Tool call ids
 * are made unique across the run ({@linkcode UniqueCallIds}).
 */
export async function runAgent(options: AgentOptions): Promise<AgentOutcome> {
  const tracing = options.tracing ?? null;
  if (tracing === null) return await runLoop(options);
  return await tracing.invoke(() =>
    runLoop({ ...options, provider: tracedProvider(options.provider, tracing) })
  );
}

/** The loop of {@linkcode runAgent}, without its spans. */
async function runLoop(options: AgentOptions): Promise<AgentOutcome> {
  const now = options.now ?? (() => new Date());
  const started = now();
  const messages: ModelMessage[] = options.conversation ?? [];
  const start = options.resume === undefined ? [...options.history ?? [], user(options.task)] : [];
  messages.push(...start);
  let usage: TokenUsage | null = null;
  const results: ToolResult[] = [];
  const permissions = new Map(options.tools.map((tool) => [tool.name, tool.permission]));
  const toolPermission = options.toolPermission ?? ((name: string) => permissions.get(name));
  const callIds = new UniqueCallIds();
  const provider = options.provider.name;
  let turns = options.resume?.turns ?? 0;
  const lastTurn = turns + options.maxTurns;
  /** Texts of the paused turns the current turn continues; the final message joins them. */
  let pausedTexts: string[] = [];
  const finish = (
    end_reason: EndReason,
    final_text: string | null = null,
    error: { message: string; code: ModelError["code"]; details: Record<string, unknown> } | null =
      null,
  ): AgentOutcome => ({
    end_reason,
    final_text,
    turns,
    results,
    error: error?.message ?? null,
    error_code: error?.code ?? null,
    error_details: error === null ? null : error.details,
    duration_ms: now().getTime() - started.getTime(),
    usage,
  });
  const modelError = async (
    code: ModelError["code"],
    message: string,
    details: Record<string, unknown>,
  ): Promise<AgentOutcome> => {
    await options.recorder.error({ source: "model", provider, code, message, ...details });
    return finish("model_error", null, { message, code, details });
  };

  const problems = checkTools(options.provider, options.currentTools?.() ?? options.tools);
  if (problems.length > 0) {
    const first = problems[0] as string;
    const message = problems.length === 1
      ? first
      : `${first} (and ${problems.length - 1} more: see logs/errors.jsonl)`;
    return await modelError("tools_unsupported", message, { problems });
  }

  const runCalls = (calls: ToolCall[]) =>
    runTurn(calls, {
      runtime: options.runtime,
      recorder: options.recorder,
      // A store-changing task tool keeps the model's order, although its permission is readonly.
      isReadonly: (name) => toolPermission(name) === "readonly" && !changesTaskStore(name),
      startsChild: (name) => CHILD_STARTING_TOOLS.includes(name),
      childConcurrency: options.childConcurrency ?? DEFAULT_CHILD_AGENTS.max_concurrent_children,
      concurrency: options.concurrency ?? DEFAULT_MAX_PARALLEL_TOOLS,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onToolResult === undefined ? {} : { onResult: options.onToolResult }),
    });
  if (options.resume !== undefined) {
    results.push(...await startResumed(messages, options.resume, runCalls, callIds));
    if (options.signal?.aborted) return finish("aborted_tools");
  }
  while (turns < lastTurn) {
    if (options.signal?.aborted) return finish("aborted");
    turns += 1;
    let retriedAt: number | null = null;
    let continuedEmpty = false;
    let turn: ModelTurn;
    let calls: ToolCall[];
    let stop: TurnStop;
    for (;;) {
      try {
        turn = await options.provider.complete(
          {
            system: options.dynamicSystem?.systemFor(options.system) ?? options.system,
            messages,
            tools: options.currentTools?.() ?? options.tools,
            run: options.run,
            ...(retriedAt === null ? {} : { max_tokens: retriedAt }),
          },
          options.signal,
        );
      } catch (error) {
        if (options.signal?.aborted) return finish("aborted");
        const message = error instanceof Error ? error.message : String(error);
        const model = error instanceof ModelError ? error : null;
        if (model?.details.empty_response === true && !continuedEmpty) {
          // An empty normal end (often right after tool results): ask once to continue, in a
          // user message of its own, as Anthropic's stop-reason guidance says.
          continuedEmpty = true;
          await options.recorder.event("model.retried", {
            turn: turns,
            provider,
            reason: "empty_response",
          });
          messages.push({ role: "user", content: EMPTY_RESPONSE_CONTINUATION });
          continue;
        }
        return await modelError(model?.code ?? "provider_failed", message, model?.details ?? {});
      }
      stop = turn.stop ?? NORMAL_END;
      usage = addUsage(usage, turn.usage);
      options.tokenBudget?.spend(turn.usage);
      calls = callIds.claim(turn.tool_calls);
      await options.recorder.event("model.responded", {
        turn: turns,
        provider,
        tool_calls: calls.map((call) => ({
          id: call.id,
          name: call.name,
          ...(call.provider === undefined ? {} : { provider: { ...call.provider } }),
        })),
        text: turn.text,
        usage: turn.usage,
        stop: { reason: stop.reason, ...stop.provider },
        ...(retriedAt === null ? {} : { max_tokens: retriedAt }),
        ...(turn.first_token_ms === undefined ? {} : { first_token_ms: turn.first_token_ms }),
        ...(turn.request_id === undefined ? {} : { request_id: turn.request_id }),
        ...(turn.provider_content === undefined ? {} : { provider_content: turn.provider_content }),
      });
      if (!isUnusable(stop)) break;
      const notExecuted = await recordNotExecuted(options.recorder, turns, stop, calls, now);
      for (const result of notExecuted) {
        results.push(result);
        options.onToolResult?.(result);
      }
      const limit: number | null = stop.reason === "truncated" && options.retryTruncated === true &&
          retriedAt === null
        ? truncatedRetryLimit(stop, turn.usage?.output_tokens ?? null)
        : null;
      if (limit !== null) {
        await options.recorder.event("model.retried", {
          turn: turns,
          provider,
          reason: "truncated",
          max_tokens: limit,
        });
        retriedAt = limit;
        continue;
      }
      return await modelError(
        stop.reason,
        describeUnusableTurn(provider, turns, stop, calls, retriedAt),
        unusableTurnDetails(turns, stop, calls),
      );
    }
    if (stop.reason === "paused" && calls.length === 0) {
      messages.push({
        role: "assistant",
        content: turn.text,
        tool_calls: [],
        provider_content: turn.provider_content,
      });
      if (turn.text !== null) pausedTexts.push(turn.text);
      continue;
    }
    messages.push({
      role: "assistant",
      content: turn.text,
      tool_calls: calls,
      // The turn's reasoning (Anthropic thinking blocks, Responses reasoning items) goes back.
      ...(turn.provider_content === undefined ? {} : { provider_content: turn.provider_content }),
    });
    if (calls.length === 0) {
      const text = [...pausedTexts, ...(turn.text === null ? [] : [turn.text])].join("");
      return finish("completed", text === "" ? null : text);
    }
    pausedTexts = [];
    const turnResults = await runCalls(calls);
    calls.forEach((call, index) => {
      const result = turnResults[index] as ToolResult;
      results.push(result);
      messages.push({
        role: "tool",
        tool_call_id: call.id,
        name: call.name,
        content: result.output,
        result,
      });
    });
    if (options.signal?.aborted) return finish("aborted_tools");
    await options.dynamicSystem?.afterTurn(turnResults);
    // The token budget: checked once the turn's calls are recorded, before another request.
    if (options.tokenBudget?.spent) return finish("max_total_tokens", null);
  }
  return finish("max_turns", null);
}

const user = (content: string): ModelMessage => ({ role: "user", content });

/** The provider's problems with a tool set; a throwing check is a problem too (fail closed). */
function checkTools(provider: ModelProvider, tools: readonly ToolDescriptor[]): string[] {
  try {
    return provider.checkTools(tools);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return [`Cannot check the tools for ${provider.name}: ${reason}`];
  }
}
