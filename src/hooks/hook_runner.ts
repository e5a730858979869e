/**
 * Runs a run's hooks around a call and records every outcome: PreToolUse hooks in order, the first
 * deny winning (a failure counts as a deny: fail closed), and PostToolUse hooks, which only
 * observe. Each hook gives one `hook.completed` or `hook.failed` event; failures also go to
 * `logs/errors.jsonl`.
 *
 * @module
 */

import picomatch from "picomatch";
import type { AuditRecorder } from "../audit/mod.ts";
import type { TargetScope } from "../policy/mod.ts";
import type { ToolResult } from "../result/mod.ts";
import {
  type HookAnswer,
  type HookEvent,
  HookFailure,
  type HookInput,
  type HookTargetScope,
  type PostToolUseHook,
  type PreToolUseHook,
} from "./hook_types.ts";
import { checkHookAnswer } from "./parse_hook_answer.ts";

/** What {@linkcode HookRunner} is built from. */
export interface HookRunnerOptions {
  /** Run in this order before a call's decision is used. */
  preToolUse: readonly PreToolUseHook[];
  /** Run in this order after a call is recorded. */
  postToolUse: readonly PostToolUseHook[];
  /** Where outcomes are recorded. */
  recorder: AuditRecorder;
  /** The run's id, given to hooks. */
  runId: string;
  /** @default { agent_id: "main", role: "main" } */
  agent?: { agent_id: string; role: string };
}

/** A call as hooks see it, before {@linkcode HookInput} is built. */
export interface HookCall {
  tool: string;
  tool_call_id: string;
  arguments: Record<string, unknown>;
  /** The targets the path guard and the command allowlist resolved. */
  scope: TargetScope;
  /** The run's abort signal: a PreToolUse hook still running when it aborts is stopped. */
  signal?: AbortSignal;
}

/**
 * The verdict of the PreToolUse hooks: `allow` when every matching hook allowed (or none matched),
 * else the first deny, or failing that the first ask. `reason` is a sentence part that names the
 * hook: `PreToolUse hook "x" failed: it timed out after 10000 ms`.
 */
export type PreToolUseVerdict =
  | { decision: "allow" }
  | { decision: "deny" | "ask"; hook: string; reason: string };

/**
 * Runs hooks and records them.
 *
 * @example
 * ```ts ignore
 * const hooks = new HookRunner({ preToolUse: [hook], postToolUse: [], recorder, runId });
 * const verdict = await hooks.beforeCall({ tool, tool_call_id, arguments: args, scope });
 * ```
 */
export class HookRunner {
  readonly #options: HookRunnerOptions;

  /** @param options See {@linkcode HookRunnerOptions}. */
  constructor(options: HookRunnerOptions) {
    this.#options = options;
  }

  /** True when no hook is configured at all. */
  get empty(): boolean {
    return this.#options.preToolUse.length === 0 && this.#options.postToolUse.length === 0;
  }

  /**
   * Runs every PreToolUse hook matching `call.tool`, in order, until one denies. A hook that throws
   * or answers something invalid counts as a deny. Never rejects for a hook's fault; rejects only
   * when the audit cannot be written.
   */
  async beforeCall(call: HookCall): Promise<PreToolUseVerdict> {
    const input = this.#input("PreToolUse", call);
    let ask: PreToolUseVerdict | null = null;
    for (const hook of this.#options.preToolUse) {
      if (!matchesTool(hook.tools, call.tool)) continue;
      const started = performance.now();
      let answer: HookAnswer;
      try {
        const checked = checkHookAnswer(await hook.decide(structuredClone(input), call.signal));
        if (!checked.ok) throw new HookFailure(checked.reason);
        answer = checked.answer;
      } catch (error) {
        const why = failureReason(error);
        const reason = `PreToolUse hook "${hook.name}" failed: ${why}`;
        await this.#failed(hook.name, "PreToolUse", call, "deny", reason, started);
        return { decision: "deny", hook: hook.name, reason };
      }
      await this.#completed(hook.name, "PreToolUse", call, answer, started);
      if (answer.decision === "deny") {
        const said = answer.reason === undefined || answer.reason === ""
          ? ""
          : `: ${answer.reason}`;
        return {
          decision: "deny",
          hook: hook.name,
          reason: `PreToolUse hook "${hook.name}" denied the call${said}`,
        };
      }
      if (answer.decision === "ask" && ask === null) {
        const said = answer.reason === undefined || answer.reason === ""
          ? ""
          : `: ${answer.reason}`;
        ask = {
          decision: "ask",
          hook: hook.name,
          reason: `PreToolUse hook "${hook.name}" asked for approval${said}`,
        };
      }
    }
    return ask ?? { decision: "allow" };
  }

  /**
   * Runs every PostToolUse hook matching the call, in order, with its result. Never rejects: a
   * hook's failure, or an audit write that fails, is recorded (when it can be) and forgotten.
   */
  async afterCall(call: HookCall & { result: ToolResult }): Promise<void> {
    const input = { ...this.#input("PostToolUse", call), result: call.result };
    for (const hook of this.#options.postToolUse) {
      if (!matchesTool(hook.tools, call.tool)) continue;
      const started = performance.now();
      try {
        await hook.observe(structuredClone(input));
      } catch (error) {
        const reason = `PostToolUse hook "${hook.name}" failed: ${failureReason(error)}`;
        await this.#failed(hook.name, "PostToolUse", call, null, reason, started).catch(() => {});
        continue;
      }
      await this.#completed(hook.name, "PostToolUse", call, null, started).catch(() => {});
    }
  }

  #input(event: HookEvent, call: HookCall): HookInput {
    return {
      hook_event: event,
      tool: call.tool,
      tool_call_id: call.tool_call_id,
      arguments: call.arguments,
      target_scope: hookScope(call.scope),
      run_id: this.#options.runId,
      agent: this.#options.agent ?? { agent_id: "main", role: "main" },
    };
  }

  async #completed(
    hook: string,
    event: HookEvent,
    call: HookCall,
    answer: HookAnswer | null,
    started: number,
  ): Promise<void> {
    await this.#options.recorder.event("hook.completed", {
      hook,
      hook_event: event,
      tool: call.tool,
      tool_call_id: call.tool_call_id,
      decision: answer?.decision ?? null,
      reason: answer?.reason ?? null,
      duration_ms: Math.round(performance.now() - started),
    });
  }

  async #failed(
    hook: string,
    event: HookEvent,
    call: HookCall,
    decision: "deny" | null,
    reason: string,
    started: number,
  ): Promise<void> {
    const { recorder } = this.#options;
    await recorder.event("hook.failed", {
      hook,
      hook_event: event,
      tool: call.tool,
      tool_call_id: call.tool_call_id,
      decision,
      reason,
      duration_ms: Math.round(performance.now() - started),
    });
    await recorder.error({
      source: "hook",
      hook,
      hook_event: event,
      tool: call.tool,
      tool_call_id: call.tool_call_id,
      error_type: "hook_failed",
      message: reason,
    });
  }
}

/** The scope reduced to what hooks see: requested and real paths, programs, argv, cwd. */
export function hookScope(scope: TargetScope): HookTargetScope {
  return {
    paths: scope.paths.map((path) => ({
      requested: path.requested,
      real: path.real,
      access: path.access,
    })),
    commands: (scope.commands ?? []).map((command) => ({
      program: command.program,
      argv: [...command.argv],
      cwd: command.cwd.real,
    })),
  };
}

function matchesTool(patterns: readonly string[] | undefined, tool: string): boolean {
  return picomatch.isMatch(tool, [...(patterns ?? ["*"])], { dot: true });
}

function failureReason(error: unknown): string {
  if (error instanceof HookFailure) return error.reason;
  return `it threw: ${error instanceof Error ? error.message : String(error)}`;
}
