/**
 * The agent loop of an assembled run: the system prompt recorded, the dynamic system built, the
 * current tool set, the spans, and `runAgent` with what every agent shares (the runtime, the
 * recorder, the tool permissions, the parallel calls' bound).
 *
 * @module
 */

import {
  type AgentOutcome,
  type ModelMessage,
  type ModelProvider,
  type ResumeStart,
  runAgent,
  type RunContext,
} from "../agent/mod.ts";
import { Redactor } from "../audit/mod.ts";
import type { LoadedConfig } from "../config/mod.ts";
import type { ToolResult } from "../result/mod.ts";
import { recordStartFailure, type RunSession } from "../session/mod.ts";
import { describeTool } from "../tools/mod.ts";
import { dynamicSystemFor } from "./dynamic_system.ts";
import { recordSystemPrompt } from "./run_records.ts";
import { type RunServices, tracerOf } from "./run_services.ts";

/** How an agent's loop runs: the parts that differ between the main agent, children, workers. */
export interface LoopOptions {
  /** The agent its spans name: `main`, or a child's or worker's definition id. */
  agent: { id: string; name: string };
  /** The system prompt's instructions section (`agent.instructions`, a definition's), or null. */
  instructions: { path: string; text: string } | null;
  /** Model turns before the run ends `max_turns`. */
  maxTurns: number;
  /** The conversation before the task: a fork's copy of its parent's. @default none */
  history?: readonly ModelMessage[];
  /** Retry a turn cut at the output limit once (`model.retry_truncated`). @default false */
  retryTruncated?: boolean;
  /** How many child agents a turn starts at once. @default the loop's */
  childConcurrency?: number;
  /**
   * Build the dynamic system: memory_context recalled for the task and the instruction files the
   * agent reads (the main agent's). @default false
   */
  dynamicSystem?: boolean;
  /** Aborts the loop: running tools are aborted, the turn's results recorded. */
  signal?: AbortSignal;
  /** Called after each tool call (progress lines). */
  onToolResult?: (result: ToolResult) => void;
  /** Called once the start is recorded, just before the first request. */
  onStart?: () => Promise<void> | void;
}

/** What the assembly gives the loop. */
export interface LoopParts {
  config: LoadedConfig;
  services: RunServices;
  session: RunSession;
  provider: ModelProvider;
  context: RunContext;
  conversation: ModelMessage[];
  task: string;
  resume: ResumeStart | null;
}

/**
 * Runs the agent loop of an open run to its end. A failure to record the start (the system
 * prompt, the dynamic system) is recorded in `logs/errors.jsonl` and thrown; the loop itself never
 * rejects for model or tool failures.
 */
export async function runLoop(parts: LoopParts, options: LoopOptions): Promise<AgentOutcome> {
  const { config, session, services } = parts;
  const startFailure = async (error: unknown): Promise<never> => {
    throw await recordStartFailure(session.folder, config, error, services.env);
  };
  const system = await recordSystemPrompt(session, parts.context, options.instructions)
    .catch(startFailure);
  const dynamicSystem = options.dynamicSystem === true
    ? await dynamicSystemFor(session, config, parts.task, services.env, services.gateway)
      .catch(startFailure)
    : null;
  const currentTools = () =>
    session.registry.list()
      .map((registered) => describeTool(registered.definition))
      .filter((tool) => session.runtime.policy.isAvailable(tool.name));
  const model = config.model ?? { provider: "script" as const };
  const tracing = tracerOf(services)({
    enabled: session.telemetry.enabled,
    runId: session.folder.id,
    agent: options.agent,
    model,
    // With audit.trace_content, span content is redacted with every secret of the run.
    content: config.audit.trace_content ? new Redactor({ secrets: session.secrets }) : null,
  });
  await options.onStart?.();
  return await runAgent({
    provider: parts.provider,
    runtime: session.runtime,
    recorder: session.recorder,
    tools: currentTools(),
    currentTools,
    system: system.text,
    ...(dynamicSystem === null ? {} : { dynamicSystem }),
    task: parts.task,
    run: parts.context,
    conversation: parts.conversation,
    maxTurns: options.maxTurns,
    ...(parts.resume === null ? {} : { resume: parts.resume }),
    ...(options.history === undefined ? {} : { history: options.history }),
    // One budget for the whole run tree: a child's turns spend from the root's.
    tokenBudget: services.tokenBudget ?? null,
    retryTruncated: options.retryTruncated === true,
    concurrency: config.agent.max_parallel_tools,
    ...(options.childConcurrency === undefined
      ? {}
      : { childConcurrency: options.childConcurrency }),
    toolPermission: (name) => session.registry.get(name)?.definition.permission,
    tracing,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onToolResult === undefined ? {} : { onToolResult: options.onToolResult }),
  });
}
