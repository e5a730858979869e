/**
 * Scheduling one model turn: the turn's calls run through the runtime in the model's order, with
 * consecutive readonly calls in parallel (bounded), every other call alone, and every call answered
 * by exactly one {@linkcode ToolResult}, paired by id.
 *
 * @module
 */

import type { AuditRecorder } from "../audit/mod.ts";
import { DEFAULT_MAX_PARALLEL_TOOLS } from "../config/base/mod.ts";
import { failure, readDisplayBlocks, type ToolResult } from "../result/mod.ts";
import { eventTypeOf, recordNotRun } from "./record.ts";
import type { ToolCall } from "./tool_call.ts";
import type { ToolRuntime } from "./tool_runtime.ts";

/** Options of {@linkcode runTurn}. */
export interface RunTurnOptions {
  /** Runs one call through the pipeline; never rejects. */
  runtime: Pick<ToolRuntime, "call">;
  /** Where calls that never ran (`skipped`, `aborted` before starting) are recorded. */
  recorder: Pick<AuditRecorder, "event" | "error">;
  /**
   * Tells whether a tool only reads. Consecutive readonly calls run in parallel; any other call
   * (a write tool, an unknown name) is a boundary and runs alone.
   */
  isReadonly: (toolName: string) => boolean;
  /**
   * Tells whether a call starts a child agent (`agent.create_sub_agent`, `agent.fork_agent`,
   * `agent.dispatch_worker`). Consecutive such calls are their own class: they start in parallel
   * (at most `childConcurrency` at once) and all run to their end (`wait_all`): a sibling that
   * fails or is denied never skips the others; a denial stops the turn's later calls once the
   * group is done. @default () => false
   */
  startsChild?: (toolName: string) => boolean;
  /** How many calls of a child group run at once; at least 1. @default 4 */
  childConcurrency?: number;
  /**
   * How many readonly calls may run at once; at least 1.
   * @default DEFAULT_MAX_PARALLEL_TOOLS (4)
   */
  concurrency?: number;
  /** Aborts running calls (through the runtime) and answers calls not yet started `aborted`. */
  signal?: AbortSignal;
  /** Called once per call as soon as its result is known (completion order, not model order). */
  onResult?: (result: ToolResult) => void;
}

/** Why the rest of a turn is not run. */
interface Stop {
  call: ToolCall;
  verb: "failed" | "was denied";
}

/**
 * Runs the calls of one model turn.
 *
 * Calls are grouped in the model's order: a run of consecutive readonly calls forms one group whose
 * calls run in parallel (at most `concurrency` at once); any other call forms a group of its own.
 * Groups run one after the other. A readonly call that fails does not stop the others, and
 * neither does a call to an unknown tool (`tool_not_available`: not registered, or not in the
 * run's tool set): it ran nothing, so it is a readonly failure. A non-readonly call that fails, or
 * any other denial (`tool.denied`: policy, approval, hook, path), stops the turn: every call not
 * yet started is answered `skipped` with
 * `details.skipped_because` naming the stopping call, and recorded as a `tool.skipped` event and
 * an `errors.jsonl` line. When `signal` aborts, running calls are aborted by the runtime and calls
 * not yet started are answered `aborted` (`details: { aborted: true, partial: false,
 * abort_reason }`), recorded the same way.
 *
 * @param calls The model's tool calls, in the model's order.
 * @param options See {@linkcode RunTurnOptions}.
 * @returns One result per call, in the order of `calls`. Never rejects for tool failures.
 * @throws {RangeError} (as a rejection) When `concurrency` is not a positive integer.
 * @example
 * ```ts ignore
 * const results = await runTurn(turn.tool_calls, {
 *   runtime: session.runtime,
 *   recorder: session.recorder,
 *   isReadonly: (name) => session.registry.get(name)?.definition.permission === "readonly",
 * });
 * ```
 */
export async function runTurn(
  calls: readonly ToolCall[],
  options: RunTurnOptions,
): Promise<ToolResult[]> {
  const concurrency = options.concurrency ?? DEFAULT_MAX_PARALLEL_TOOLS;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(
      `Cannot schedule a turn with concurrency "${concurrency}": it must be a positive integer`,
    );
  }
  const results = new Map<number, ToolResult>();
  let stop: Stop | null = null;

  const settle = (index: number, result: ToolResult) => {
    results.set(index, result);
    options.onResult?.(result);
  };

  /** Answers a call that will not run, or returns false when it may run. */
  const answerUnrun = async (index: number, call: ToolCall): Promise<boolean> => {
    if (options.signal?.aborted) {
      settle(index, await recordUnrun(options.recorder, abortedResult(call, options.signal), call));
      return true;
    }
    if (stop !== null) {
      settle(index, await recordUnrun(options.recorder, skippedResult(call, stop), call));
      return true;
    }
    return false;
  };

  const startsChild = options.startsChild ?? (() => false);
  for (const group of groupCalls(calls, options.isReadonly, startsChild)) {
    if (group.kind === "child") {
      // wait_all: every call of the group runs; a denial stops only what comes after the group.
      let next = 0;
      let denied: Stop | null = null;
      const lane = async () => {
        while (next < group.calls.length) {
          const index = group.start + next;
          const call = group.calls[next++] as ToolCall;
          if (await answerUnrun(index, call)) continue;
          const result = await options.runtime.call(call, options.signal);
          if (denied === null && stops(result) === "was denied") {
            denied = { call, verb: "was denied" };
          }
          settle(index, result);
        }
      };
      const lanes = Math.min(options.childConcurrency ?? 4, group.calls.length);
      await Promise.all(Array.from({ length: Math.max(1, lanes) }, lane));
      stop ??= denied;
    } else if (group.kind === "readonly") {
      let next = 0;
      const lane = async () => {
        while (next < group.calls.length) {
          const index = group.start + next;
          const call = group.calls[next++] as ToolCall;
          if (await answerUnrun(index, call)) continue;
          const result = await options.runtime.call(call, options.signal);
          if (stop === null && stops(result) === "was denied") stop = { call, verb: "was denied" };
          settle(index, result);
        }
      };
      const lanes = Math.min(concurrency, group.calls.length);
      await Promise.all(Array.from({ length: lanes }, lane));
    } else {
      const call = group.calls[0] as ToolCall;
      if (await answerUnrun(group.start, call)) continue;
      const result = await options.runtime.call(call, options.signal);
      const verb = stops(result);
      if (verb !== null) stop = { call, verb };
      settle(group.start, result);
    }
  }
  return calls.map((call, index) => {
    const result = results.get(index);
    if (result === undefined) throw new Error(`Bug: no result for call "${call.id}"`);
    return result;
  });
}

/**
 * Whether a finished call stops the rest of its turn, and how it is said: a denial does, a
 * failure does (readonly groups ignore it); a call to an unknown tool never does, since nothing
 * of it ran.
 */
function stops(result: ToolResult): Stop["verb"] | null {
  if (result.error?.type === "tool_not_available") return null;
  const type = eventTypeOf(result);
  return type === "tool.denied" ? "was denied" : type === "tool.failed" ? "failed" : null;
}

interface Group {
  /** `readonly`: parallel, bounded; `child`: child agents, parallel, wait_all; `alone`. */
  kind: "readonly" | "child" | "alone";
  /** Index of the first call in the turn. */
  start: number;
  calls: ToolCall[];
}

function groupCalls(
  calls: readonly ToolCall[],
  isReadonly: (name: string) => boolean,
  startsChild: (name: string) => boolean,
): Group[] {
  const groups: Group[] = [];
  calls.forEach((call, index) => {
    const kind = startsChild(call.name) ? "child" : isReadonly(call.name) ? "readonly" : "alone";
    const last = groups.at(-1);
    if (kind !== "alone" && last?.kind === kind) last.calls.push(call);
    else groups.push({ kind, start: index, calls: [call] });
  });
  return groups;
}

/**
 * The result of a call that never ran (skipped, aborted before it started, cut off with its turn):
 * the outcome's failure, no data, no artifacts, 0 ms, and its brief as the only display block.
 *
 * @example
 * ```ts
 * import { failure } from "../result/mod.ts";
 * import { unrunResult } from "./scheduler.ts";
 * const result = unrunResult(
 *   { id: "c1", name: "fs.read_file", arguments: "{}" },
 *   failure("skipped", "Cannot run tool \"fs.read_file\": an earlier call was denied"),
 * );
 * console.assert(result.ok === false && result.error?.type === "skipped");
 * ```
 */
export function unrunResult(call: ToolCall, outcome: ReturnType<typeof failure>): ToolResult {
  return {
    tool_call_id: call.id,
    tool: call.name,
    ok: false,
    summary: outcome.summary,
    output: outcome.output,
    data: null,
    artifacts: [],
    error: outcome.error,
    duration_ms: 0,
    display: readDisplayBlocks([{ type: "brief", text: outcome.summary }]),
  };
}

function skippedResult(call: ToolCall, stop: Stop): ToolResult {
  return unrunResult(
    call,
    failure(
      "skipped",
      `Cannot run tool "${call.name}": skipped because call "${stop.call.id}" (${stop.call.name}) ${stop.verb}`,
      { skipped_because: stop.call.id },
    ),
  );
}

function abortedResult(call: ToolCall, signal: AbortSignal): ToolResult {
  const reason = String(signal.reason ?? "aborted");
  return unrunResult(
    call,
    failure("aborted", `Cannot run tool "${call.name}": the run was aborted (${reason})`, {
      aborted: true,
      partial: false,
      abort_reason: reason,
    }),
  );
}

/**
 * Records a call that never reached the runtime: a `tool.skipped` event, an error line and (with a
 * recorder that keeps them) its `logs/tools.jsonl` record, `executed: false`.
 */
async function recordUnrun(
  recorder: Pick<AuditRecorder, "event" | "error">,
  result: ToolResult,
  call: ToolCall,
): Promise<ToolResult> {
  const error = result.error;
  const event = await recorder.event("tool.skipped", {
    tool_call_id: result.tool_call_id,
    tool: result.tool,
    ok: false,
    summary: result.summary,
    error_type: error?.type ?? null,
    duration_ms: 0,
    details: error?.details ?? {},
  });
  await recorder.error({
    source: "tool",
    tool: result.tool,
    tool_call_id: result.tool_call_id,
    event: event ?? null,
    error_type: error?.type ?? null,
    message: error?.message ?? result.summary,
    details: error?.details ?? {},
    policy: null,
  });
  // The model receives this result too: its arguments and output belong in tools.jsonl.
  if ("toolRecord" in recorder) {
    await recordNotRun(recorder as AuditRecorder, call, result, new Date(), event ?? null);
  }
  return result;
}
