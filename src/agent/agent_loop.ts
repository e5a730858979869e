/**
 * The agent loop: check the tool set against the provider, ask the model, run its tool calls
 * through the runtime (scheduled by {@linkcode runTurn}), answer every call with its result paired
 * by id, repeat until a final message, the turn limit, an abort, or a model error.
 *
 * @module
 */

import type { AuditRecorder } from "../audit/mod.ts";
import type { ToolRuntime } from "../runtime/tool_runtime.ts";
import { runTurn } from "../runtime/scheduler.ts";
import type { Permission, ToolDescriptor } from "../tools/tool_definition.ts";
import type { ToolResult } from "../tools/tool_result.ts";
import { eventTypeOf } from "../runtime/record.ts";
import {
  ModelError,
  type ModelMessage,
  type ModelProvider,
  type RunContext,
} from "./model_provider.ts";

/**
 * Why a run ended. `completed` is the only success. `aborted`: the signal aborted before (or
 * during) a model request. `aborted_tools`: it aborted while a turn's tools ran; the loop stopped
 * after that turn's results were all collected.
 */
export type EndReason = "completed" | "max_turns" | "model_error" | "aborted" | "aborted_tools";

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
  /** Model turns before the run stops with `max_turns`. */
  maxTurns: number;
  /** Aborts the run: running tools are aborted, calls not yet started are answered `aborted`. */
  signal?: AbortSignal;
  /** Called after each tool call (progress lines), in completion order. */
  onToolResult?: (result: ToolResult) => void;
  /** How many consecutive readonly calls of a turn may run at once. @default 4 */
  concurrency?: number;
  /**
   * The permission of a registered tool, or undefined when unknown. Consecutive readonly calls
   * run in parallel; others (unknown names included) run alone.
   * @default the `permission` of the same-named entry of `tools`
   */
  toolPermission?: (toolName: string) => Permission | undefined;
  /** @default () => new Date() */
  now?: () => Date;
}

/** What a run produced. */
export interface AgentOutcome {
  end_reason: EndReason;
  /** The model's final message, or null. */
  final_text: string | null;
  turns: number;
  results: ToolResult[];
  /** The model error message when `end_reason` is `model_error`. */
  error: string | null;
  duration_ms: number;
}

/**
 * Runs the loop. Never rejects for model or tool failures; they end the run with a reason.
 *
 * Before the first request the provider checks the initial tool set
 * ({@linkcode ModelProvider.checkTools}); any problem ends the run with `model_error` before any
 * request is sent, with one `logs/errors.jsonl` line (`code: "tools_unsupported"`, every problem
 * in `problems`) and `error` naming the first problem.
 */
export async function runAgent(options: AgentOptions): Promise<AgentOutcome> {
  const now = options.now ?? (() => new Date());
  const started = now();
  const messages: ModelMessage[] = [{ role: "user", content: options.task }];
  const results: ToolResult[] = [];
  const permissions = new Map(options.tools.map((tool) => [tool.name, tool.permission]));
  const toolPermission = options.toolPermission ?? ((name: string) => permissions.get(name));
  let turns = 0;
  const finish = (
    end_reason: EndReason,
    final_text: string | null,
    error: string | null,
  ): AgentOutcome => ({
    end_reason,
    final_text,
    turns,
    results,
    error,
    duration_ms: now().getTime() - started.getTime(),
  });

  const problems = checkTools(options.provider, options.currentTools?.() ?? options.tools);
  if (problems.length > 0) {
    const first = problems[0] as string;
    const message = problems.length === 1
      ? first
      : `${first} (and ${problems.length - 1} more: see logs/errors.jsonl)`;
    await options.recorder.error({
      source: "model",
      provider: options.provider.name,
      code: "tools_unsupported",
      message,
      problems,
    });
    return finish("model_error", null, message);
  }

  while (turns < options.maxTurns) {
    if (options.signal?.aborted) return finish("aborted", null, null);
    turns += 1;
    let turn;
    try {
      turn = await options.provider.complete(
        {
          system: options.system,
          messages,
          tools: options.currentTools?.() ?? options.tools,
          run: options.run,
        },
        options.signal,
      );
    } catch (error) {
      if (options.signal?.aborted) return finish("aborted", null, null);
      const message = error instanceof Error ? error.message : String(error);
      await options.recorder.error({
        source: "model",
        provider: options.provider.name,
        code: error instanceof ModelError ? error.code : "provider_failed",
        message,
      });
      return finish("model_error", null, message);
    }
    await options.recorder.event("model.turn", {
      turn: turns,
      provider: options.provider.name,
      tool_calls: turn.tool_calls.map((call) => ({
        id: call.id,
        name: call.name,
        ...(call.provider === undefined ? {} : { provider: { ...call.provider } }),
      })),
      text: turn.text,
      usage: turn.usage,
    });
    messages.push({ role: "assistant", content: turn.text, tool_calls: turn.tool_calls });
    if (turn.tool_calls.length === 0) return finish("completed", turn.text, null);
    const turnResults = await runTurn(turn.tool_calls, {
      runtime: options.runtime,
      recorder: options.recorder,
      isReadonly: (name) => toolPermission(name) === "readonly",
      concurrency: options.concurrency ?? 4,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onToolResult === undefined ? {} : { onResult: options.onToolResult }),
    });
    turn.tool_calls.forEach((call, index) => {
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
    if (options.signal?.aborted) return finish("aborted_tools", null, null);
  }
  return finish("max_turns", null, null);
}

/** The provider's problems with a tool set; a throwing check is a problem too (fail closed). */
function checkTools(provider: ModelProvider, tools: readonly ToolDescriptor[]): string[] {
  try {
    return provider.checkTools(tools);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return [`Cannot check the tools for ${provider.name}: ${reason}`];
  }
}

/** How many calls of a run ended which way; see {@linkcode countResults}. */
export interface ResultCounts {
  /** Every call answered, whatever its result. */
  calls: number;
  /** Refused: unknown tool, policy, approval, hook, path (`tool.denied`). */
  denied: number;
  /** Ran (or was about to) and failed: every other error except `skipped`. */
  failed: number;
  /** Never run because an earlier call of its turn was denied or failed (`error.type` `skipped`). */
  skipped: number;
}

/**
 * Counts an outcome's results, for summaries and `run.completed`. Each result counts in `calls`
 * and in at most one of `denied`, `failed` and `skipped`; the rest succeeded.
 *
 * @example
 * ```ts
 * import { countResults } from "./agent_loop.ts";
 * console.assert(countResults([]).skipped === 0);
 * ```
 */
export function countResults(results: readonly ToolResult[]): ResultCounts {
  let denied = 0;
  let failed = 0;
  let skipped = 0;
  for (const result of results) {
    const type = eventTypeOf(result);
    if (type === "tool.denied") denied += 1;
    else if (result.error?.type === "skipped") skipped += 1;
    else if (type === "tool.failed") failed += 1;
  }
  return { calls: results.length, denied, failed, skipped };
}
