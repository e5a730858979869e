/**
 * The pipeline of one tool call (ARCHITECTURE §2), in order: lookup, parse and check, hooks,
 * decide, approve, execute in the Worker, shape, record, PostToolUse hooks. Every call ends in
 * exactly one {@linkcode ToolResult}; nothing here throws into the caller.
 *
 * PreToolUse hooks see the resolved target scope, so the targets are resolved (by `decide()`)
 * before they run, but the hooks' verdict is applied before the decision is used: a hook deny wins
 * over everything (`hook_denied`, the policy and the approver are not consulted), a hook ask makes
 * the call need approval, a hook allow changes nothing. A call whose targets the sandbox refused
 * is denied without running hooks (its scope is incomplete, and a hook could only restrict).
 *
 * @module
 */

import type { ArtifactStore, AuditRecorder, Redactor } from "../audit/mod.ts";
import type { HookRunner } from "../hooks/mod.ts";
import type { EffectivePolicy, SkillRequest } from "../policy/mod.ts";
import type { PolicyDecision, TargetScope } from "../policy/mod.ts";
import type { PathGuard } from "../sandbox/mod.ts";
import type { HostAllowlist } from "../config/mod.ts";
import type { ToolWorker } from "../worker/mod.ts";
import type { ToolRegistry } from "../tools/mod.ts";
import {
  failure,
  type NarrowingRequest,
  type ToolOutcome,
  type ToolResult,
} from "../result/mod.ts";
import { approve } from "./approve.ts";
import type { ApprovalGate, CallApproval } from "../approval/mod.ts";
import { type CommandResolutionContext, decide } from "./decide.ts";
import { type ArgumentLimits, parseArguments } from "./parse_arguments.ts";
import { record } from "./record.ts";
import { displayFor } from "./display_for.ts";
import { keepingFailure, shape } from "./shape.ts";
import type { ToolCall } from "./tool_call.ts";
import type { MainThreadTools } from "./main_thread_tools.ts";
import { endCommandLeftovers, type MarkerSweep } from "./command_leftovers.ts";
import { startToolSpan, type ToolTracing } from "../telemetry/mod.ts";

/** What the runtime is built from; one per run. */
export interface ToolRuntimeOptions {
  registry: ToolRegistry;
  policy: EffectivePolicy;
  guard: PathGuard;
  worker: ToolWorker;
  recorder: AuditRecorder;
  redactor: Redactor;
  artifacts: ArtifactStore;
  limits: ArgumentLimits & { maxOutputBytes: number };
  /** Step 5 for asks: grants and the approver. @default null (every ask is approval_required) */
  approvals?: ApprovalGate | null;
  /** What command targets resolve against; null when no command tool is enabled. */
  commands: CommandResolutionContext | null;
  /** `network.hosts`, which host targets (`net.fetch`) must be admitted by. @default null: none is */
  network?: HostAllowlist | null;
  /** PreToolUse and PostToolUse hooks. @default none */
  hooks?: HookRunner | null;
  /** @default () => new Date() */
  now?: () => Date;
  /**
   * The run id whose command markers are swept after every command call (processes a command
   * left behind outside its process group; see `exec/process_sweep.ts`). @default null: no sweep
   */
  sweep?: MarkerSweep | null;
  /** Tools whose handlers run on the main thread (MCP servers' tools). @default null: none */
  mainThreadTools?: MainThreadTools | null;
  /** An `execute_tool` span per call (`telemetry/tool_span.ts`). @default null: no spans */
  tracing?: ToolTracing | null;
}

/** What the steps before shaping found. */
interface StepsOutcome {
  outcome: ToolOutcome;
  decision: PolicyDecision | null;
  params?: Record<string, unknown>;
  /** The resolved targets, when the call got that far. */
  scope?: TargetScope;
  /** Who let the call run (the policy's rule, a grant, the approver), when it was let run. */
  approval?: CallApproval | null;
}

/** Runs tool calls through the whole pipeline. */
export class ToolRuntime {
  readonly #options: ToolRuntimeOptions;
  #policy: EffectivePolicy;
  readonly #now: () => Date;

  constructor(options: ToolRuntimeOptions) {
    this.#options = options;
    this.#policy = options.policy;
    this.#now = options.now ?? (() => new Date());
  }

  /** The policy in force: the run's, narrowed by every skill loaded so far. */
  get policy(): EffectivePolicy {
    return this.#policy;
  }

  /**
   * Narrows the policy for the rest of the run with a loaded skill's request, and records what the
   * skill requested and what it got (`skill.loaded`). `withSkillRequest` intersects: never widens.
   */
  async narrow(request: SkillRequest): Promise<void> {
    const before = this.#policy.tools.filter((tool) => tool.available).map((tool) => tool.tool);
    this.#policy = this.#policy.withSkillRequest(request);
    const after = this.#policy.tools.filter((tool) => tool.available).map((tool) => tool.tool);
    await this.#options.recorder.event("skill.loaded", {
      skill: request.skill,
      requested: request.allowed_tools ?? null,
      ...(request.allowed_commands === undefined ? {} : {
        commands: request.allowed_commands.map((command) =>
          `${command.argv.join(" ")}${command.prefix ? " …" : ""}`
        ),
      }),
      got: after,
      removed: before.filter((name) => !after.includes(name)),
      policy_hash: this.#policy.hash,
    });
  }

  /**
   * Applies the narrowing request an ok outcome carries, whatever the tool (a loaded skill's
   * allowed-tools). Only the request's `skill`, `allowed_tools` and `allowed_commands` are read,
   * so it goes through {@linkcode narrow} as a request without rules: it can remove tools or
   * commands, never add one. A malformed
   * request (a faulty tool) fails the call rather than leaving the policy wider than asked.
   */
  async #applyNarrowing(name: string, outcome: ToolOutcome): Promise<ToolOutcome> {
    const request: unknown = outcome.narrowing;
    if (!outcome.ok || request === undefined) return outcome;
    if (!isNarrowingRequest(request)) {
      return failure(
        "internal_error",
        `Cannot narrow the policy for tool "${name}": its narrowing request is not ` +
          "{ skill: string, allowed_tools?: string[], allowed_commands?: " +
          "{ tool: string, argv: string[], prefix: boolean }[] }",
      );
    }
    await this.narrow({
      skill: request.skill,
      ...(request.allowed_tools === undefined ? {} : { allowed_tools: [...request.allowed_tools] }),
      ...(request.allowed_commands === undefined ? {} : {
        allowed_commands: request.allowed_commands.map((command) => ({
          tool: command.tool,
          argv: [...command.argv],
          prefix: command.prefix,
        })),
      }),
    });
    return outcome;
  }

  /**
   * Runs one call. Never rejects; a fault inside the pipeline itself becomes `internal_error`.
   *
   * @param signal Aborts a running handler (result `aborted`).
   */
  async call(call: ToolCall, signal?: AbortSignal): Promise<ToolResult> {
    const started = this.#now();
    const { registry, recorder } = this.#options;
    const registered = registry.get(call.name);
    const span = startToolSpan(this.#options.tracing ?? null, call);
    const startedEvent = await recorder.event("tool.started", {
      tool_call_id: call.id,
      tool: call.name,
    });
    let decision: PolicyDecision | null = null;
    let params: unknown = call.arguments;
    let outcome: ToolOutcome;
    let steps: StepsOutcome | null = null;
    try {
      steps = await (span === null ? this.#run(call, signal) : span.run(() =>
        this.#run(call, signal)
      ));
      outcome = steps.outcome;
      decision = steps.decision;
      params = steps.params ?? params;
      outcome = await this.#applyNarrowing(call.name, outcome);
    } catch (error) {
      outcome = failure(
        "internal_error",
        `Cannot call tool "${call.name}": ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
    let shaped: Awaited<ReturnType<typeof shape>>;
    try {
      shaped = await shape(
        outcome,
        this.#options.redactor,
        this.#options.artifacts,
        this.#options.limits.maxOutputBytes,
      );
    } catch (error) {
      shaped = { outcome: keepingFailure(call.name, error), artifacts: [] };
    }
    const ended = this.#now();
    const result: ToolResult = {
      tool_call_id: call.id,
      tool: call.name,
      ok: shaped.outcome.ok,
      summary: shaped.outcome.summary,
      output: shaped.outcome.output,
      data: shaped.outcome.data,
      artifacts: [...(outcome.artifacts ?? []), ...shaped.artifacts],
      error: shaped.outcome.error,
      duration_ms: ended.getTime() - started.getTime(),
      display: displayFor(call.name, outcome, shaped, params, this.#options.redactor),
    };
    span?.end({
      result,
      decision,
      approval: steps?.approval ?? null,
      argumentsText: call.arguments,
      riskLevel: registered?.definition.annotations.risk_level ?? null,
    });
    await record(recorder, {
      result,
      risk_level: registered?.definition.annotations.risk_level ?? null,
      started,
      ended,
      params,
      arguments_text: call.arguments,
      decision,
      ...(call.provider === undefined ? {} : { provider: call.provider }),
      approval: steps?.approval ?? null,
      started_event: startedEvent,
    }, { artifacts: this.#options.artifacts, redactor: this.#options.redactor });
    // 9. PostToolUse hooks: observe only, for calls whose arguments parsed; never rejects.
    if (this.#options.hooks != null && steps?.params !== undefined) {
      await this.#options.hooks.afterCall({
        tool: call.name,
        tool_call_id: call.id,
        arguments: steps.params,
        scope: steps.scope ?? { paths: [], commands: [] },
        result,
      });
    }
    return result;
  }

  async #run(
    call: ToolCall,
    signal: AbortSignal | undefined,
  ): Promise<StepsOutcome> {
    const { registry, guard, worker, limits } = this.#options;
    const policy = this.#policy;
    // 1. Lookup: registered and in this run's effective tool set.
    const registered = registry.get(call.name);
    if (registered === undefined || !policy.isAvailable(call.name)) {
      const why = registered === undefined
        ? "no tool has this name"
        : `it is not in this run's tool set (${policy.toolPolicy(call.name)?.reason ?? "denied"})`;
      return {
        outcome: failure("tool_not_available", `Cannot call tool "${call.name}": ${why}`),
        decision: null,
      };
    }
    const tool = registered.definition;
    // 2. Parse and check.
    const parsed = parseArguments(registered, call.arguments, limits);
    if ("failure" in parsed) return { outcome: parsed.failure, decision: null };
    const args = parsed.arguments;
    // 3. Hooks, on the resolved scope (step 4 resolves it), applied before the decision is used.
    const decided = await decide(
      tool,
      args,
      guard,
      policy,
      this.#options.commands,
      this.#options.network ?? null,
    );
    const { scope } = decided;
    let { decision } = decided;
    const hooks = this.#options.hooks;
    if (hooks != null && decided.refusal === null) {
      const verdict = await hooks.beforeCall({
        tool: call.name,
        tool_call_id: call.id,
        arguments: args,
        scope,
        ...(signal === undefined ? {} : { signal }),
      });
      if (verdict.decision === "deny") {
        const hookDecision: PolicyDecision = {
          decision: "deny",
          rule: `hook:${verdict.hook}`,
          layer: "config",
          reason: verdict.reason,
          error_type: "hook_denied",
        };
        return {
          outcome: failure("hook_denied", `Cannot call tool "${call.name}": ${verdict.reason}`, {
            rule: hookDecision.rule,
            layer: hookDecision.layer,
            hook: verdict.hook,
            reason: verdict.reason,
          }),
          decision: hookDecision,
          params: args,
          scope,
        };
      }
      if (verdict.decision === "ask" && decision.decision !== "deny") {
        decision = {
          decision: "ask",
          rule: `hook:${verdict.hook}`,
          layer: "config",
          reason: verdict.reason,
          error_type: null,
        };
      }
    }
    // 4. Decide.
    if (decision.decision === "deny") {
      const message = decided.refusal?.message ??
        `Cannot call tool "${call.name}": ${decision.reason}`;
      const details = {
        ...(decided.refusal?.details ?? {}),
        rule: decision.rule,
        layer: decision.layer,
      };
      return {
        outcome: failure(decision.error_type, message, details),
        decision,
        params: args,
        scope,
      };
    }
    // 5. Approve: grants, then the approver; without one an ask is approval_required.
    const gate = this.#options.approvals ?? null;
    const refusal = decision.decision !== "ask"
      ? null
      : gate === null
      ? approve(call.name, decision, scope)
      : await gate.resolve({
        tool,
        tool_call_id: call.id,
        arguments: args,
        decision,
        scope,
        hookResult: decision.rule.startsWith("hook:")
          ? { hook: decision.rule.slice(5), decision: "ask", reason: decision.reason }
          : null,
      });
    if (refusal !== null) return { outcome: refusal, decision, params: args, scope };
    const approval: CallApproval | null = decision.decision === "ask"
      ? gate?.takeApproval(call.id) ?? null
      : { by: "rule", rule: decision.rule, scope: gate?.scopeOf(scope, args) ?? [] };
    // 6. Execute in the Worker (or on the main thread, for MCP servers' tools); then nothing the
    // command started may outlive the call: its process group (left by the Worker, isolation
    // none), then whatever carries its marker.
    const mainThread = this.#options.mainThreadTools ?? null;
    const inWorker = mainThread === null || !mainThread.handles(call.name);
    const outcome = inWorker
      ? await worker.execute(call.name, call.id, args, signal)
      : await mainThread.execute(call.name, call.id, args, signal);
    if ((scope.commands?.length ?? 0) > 0) {
      await endCommandLeftovers(call.id, inWorker ? outcome.processGroupId ?? null : null, {
        sweep: this.#options.sweep ?? null,
        recorder: this.#options.recorder,
      });
    }
    return { outcome, decision, params: args, scope, approval };
  }
}

/** Tells whether `value` has the {@linkcode NarrowingRequest} shape (a Worker sent it). */
function isNarrowingRequest(value: unknown): value is NarrowingRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { skill, allowed_tools: allowed, allowed_commands: commands } = value as Record<
    string,
    unknown
  >;
  return typeof skill === "string" &&
    (allowed === undefined ||
      (Array.isArray(allowed) && allowed.every((pattern) => typeof pattern === "string"))) &&
    (commands === undefined || (Array.isArray(commands) && commands.every(isSkillCommand)));
}

function isSkillCommand(
  value: unknown,
): value is NonNullable<SkillRequest["allowed_commands"]>[number] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { tool, argv, prefix } = value as Record<string, unknown>;
  return typeof tool === "string" && typeof prefix === "boolean" && Array.isArray(argv) &&
    argv.length > 0 && argv.every((word) => typeof word === "string");
}
