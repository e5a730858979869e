/**
 * Step 5 of the pipeline for an `ask`: grants first (from `--approve`/`--approvals`, then those made
 * for this session), then the approver. Without an approver (no terminal, `CI=true`,
 * `--non-interactive`, or one whose `canAnswer` says nobody can answer this call) the call ends
 * as `approval_required`; the request goes to `approvals/pending.jsonl` and the result names the
 * exact grant that would let it through next time. An approver that throws or does not answer in time denies, with an `approval.failed`
 * event. Every step is in the audit; session grants also go to `grants.jsonl`.
 *
 * Nothing the gate shows holds a secret: the request handed to the approver and written to
 * `pending.jsonl` is redacted, and a scope part that holds one (a command's argv with a value of
 * `audit.secret_env` or a token in it) is named by its sha256 (see `normaliseScope`), in the grant,
 * the `--approve` argument, the approvals file line and every message.
 *
 * @module
 */

import * as nodePath from "node:path";
import { type AuditRecorder, JsonlWriter, type Redactor, summariseValue } from "../audit/mod.ts";
import type { PolicyDecision, TargetScope } from "../policy/mod.ts";
import type { NamedLocation } from "../policy/mod.ts";
import type { ToolDescriptor } from "../tools/mod.ts";
import { failure, type ToolOutcome } from "../result/mod.ts";
import type { ApprovalRequest, Approver } from "./approver.ts";
import {
  approveArgument,
  argumentScope,
  formatGrant,
  type Grant,
  grantCovers,
  normaliseScope,
  shellQuote,
} from "./grant.ts";

/** Options of {@linkcode ApprovalGate}. */
export interface ApprovalGateOptions {
  policyHash: string;
  runId: string;
  /** Real path of the run folder (scopes inside it are written `<run>/…`). */
  runDir: string;
  /**
   * The run's named locations (`EffectivePolicy.locations`: `<run>`, the roots, `<workspace>`),
   * from which grant scopes are written. @default the run folder only
   */
  locations?: readonly NamedLocation[];
  /** Grants from the command line, already checked against the policy hash. */
  grants: readonly Grant[];
  /** Null when nobody can answer (non-interactive). */
  approver: Approver | null;
  /** Longest wait for an approver, in ms. @default 300000 */
  timeoutMs?: number;
  recorder: AuditRecorder;
  /**
   * The run's redactor: requests are redacted with it, and a scope part it would change is named
   * by its hash (the same for the grant made and the grant checked).
   */
  redactor: Redactor;
  /** Environment names commands get, for the request's env summary. */
  environmentNames: readonly string[];
  /**
   * Who the run's agent is, in every request (a child agent's names its parent).
   * @default the main agent: `{agent_id: "main", run_id, parent_agent_id: null, parent_run_id:
   *   null, parent_ids: [], role: "main"}`
   */
  agent?: ApprovalRequest["agent"];
  /**
   * The grants of the parent agent's run (its command-line grants and session grants, read at
   * each ask), for a child agent's run: they cover the child's calls, so a child is not asked
   * again for what its parent was granted, while the child's own session grants stay its own and
   * never reach the parent. @default none
   */
  inheritedGrants?: () => readonly Grant[];
}

/** A call that needed approval in a non-interactive run, with the grant that would allow it. */
export interface PendingApproval {
  request: ApprovalRequest;
  grant: Grant;
  /**
   * The command line that re-runs this run with the grant (see
   * {@linkcode ApprovalGate.setReplayCommand}), or null when the run was not started from one.
   */
  replay: string | null;
}

/**
 * Who let a call run and how, written as `approval` in `logs/tools.jsonl`:
 *
 * - `rule`: the policy allowed it without asking (`rule` names the rule);
 * - `grant`: a grant from `--approve` or `--approvals` covered it;
 * - `session_grant`: an `allow_for_session` answer earlier in this run covered it;
 * - `parent_grant`: a grant of the parent agent's run covered it (a child agent's run);
 * - `terminal`: the approver (a person at the terminal) answered `choice` for this call.
 *
 * `scope` is the call's normalised scope, as grants write it (see `normaliseScope`).
 */
export interface CallApproval {
  by: "grant" | "terminal" | "session_grant" | "parent_grant" | "rule";
  scope: string[];
  /** The rule that allowed the call (`by: "rule"`). */
  rule?: string;
  /** The approver's name and answer (`by: "terminal"`). */
  approver?: string;
  choice?: "allow_once" | "allow_for_session";
}

/** What the gate is asked about. */
export interface GateInput {
  tool: ToolDescriptor;
  tool_call_id: string;
  arguments: Record<string, unknown>;
  decision: PolicyDecision;
  scope: TargetScope;
  /** The hook that asked, when a PreToolUse hook did. */
  hookResult: { hook: string; decision: string; reason: string } | null;
}

/** Resolves asks for one run. */
export class ApprovalGate {
  readonly #options: ApprovalGateOptions;
  readonly #sessionGrants: Grant[] = [];
  readonly #grantsLog: JsonlWriter;
  readonly #pendingLog: JsonlWriter;
  /** How each call the gate let through was approved, until the runtime takes it. */
  readonly #approved = new Map<string, CallApproval>();
  /** Calls that ended as approval_required, in order. */
  readonly pending: PendingApproval[] = [];
  /** The command line that started the run, without the program's own `--approve` additions. */
  #replayCommand: readonly string[] | null = null;

  constructor(options: ApprovalGateOptions) {
    this.#options = options;
    this.#grantsLog = new JsonlWriter(nodePath.join(options.runDir, "grants.jsonl"));
    this.#pendingLog = new JsonlWriter(nodePath.join(options.runDir, "approvals", "pending.jsonl"));
  }

  /**
   * Tells the gate the command line that started this run (e.g. `["kagent-run", "run",
   * "--config", "agent.jsonc"]`), so that each pending approval carries `replay`: the exact
   * command to re-run with its grant. Call it before the first call runs.
   */
  setReplayCommand(argv: readonly string[]): void {
    this.#replayCommand = [...argv];
  }

  /**
   * The command line that re-runs this run with `grants` added as `--approve` arguments, each
   * word shell-quoted and the whole redacted; null when no command line was set.
   *
   * @example
   * ```ts ignore
   * gate.setReplayCommand(["kagent-run", "call", "fs.write_file", '{"path":"a"}']);
   * gate.replayFor([grant]); // kagent-run call fs.write_file '{"path":"a"}' --approve '{…}'
   * ```
   */
  replayFor(grants: readonly Grant[]): string | null {
    if (this.#replayCommand === null) return null;
    const line = [
      ...this.#replayCommand.map((word) => shellQuote(word)),
      ...grants.map((grant) => approveArgument(grant)),
    ].join(" ");
    return this.#options.redactor.redactText(line);
  }

  /**
   * The grants a child agent's run inherits from this run: the command-line grants, the session
   * grants made so far and those this run inherited itself; a grant whose scope names `<run>` is
   * left out (in the child, `<run>` would name the child's own folder, not the one granted).
   */
  grantsForChildren(): Grant[] {
    return [
      ...this.#options.grants,
      ...this.#sessionGrants,
      ...(this.#options.inheritedGrants?.() ?? []),
    ].filter((grant) => !grant.scope.some((part) => part.includes("<run>")));
  }

  /** Flushes the grant and pending logs. */
  async close(): Promise<void> {
    await this.#grantsLog.close();
    await this.#pendingLog.close();
  }

  /**
   * A call's scope as grants write it (paths from their named location: `<run>`, `<workspace>`,
   * the roots; secrets named by their hash); a call with no target, given its `args`, is scoped
   * by their hash (`argumentScope`).
   */
  scopeOf(scope: TargetScope, args: Record<string, unknown> | null = null): string[] {
    const { redactor } = this.#options;
    const written = normaliseScope(
      scope,
      this.#options.locations ?? [{ name: "<run>", path: this.#options.runDir }],
      (text) => redactor.redactText(text) !== text,
    );
    // A call that names no target is scoped by its arguments (argumentScope), never by nothing.
    return written.length === 0 && args !== null ? [argumentScope(args)] : written;
  }

  /**
   * How the gate let `toolCallId` through (grant, session grant or the approver's answer), once:
   * the entry is removed. @returns null when the gate did not approve that call.
   */
  takeApproval(toolCallId: string): CallApproval | null {
    const approval = this.#approved.get(toolCallId) ?? null;
    this.#approved.delete(toolCallId);
    return approval;
  }

  /**
   * Resolves an `ask`. @returns null when the call may run, or the failure it ends with
   * (`approval_required`, `approval_denied`); {@linkcode ApprovalGate.takeApproval} then says how.
   */
  async resolve(input: GateInput): Promise<ToolOutcome | null> {
    const { recorder, policyHash, redactor } = this.#options;
    const scope = this.scopeOf(input.scope, input.arguments);
    const grant: Grant = { tool: input.tool.name, scope, policy: policyHash };
    const base = {
      tool_call_id: input.tool_call_id,
      tool: input.tool.name,
      rule: input.decision.rule,
      scope,
    };
    const fromCli = this.#options.grants.find((candidate) =>
      grantCovers(candidate, input.tool.name, scope)
    );
    if (fromCli !== undefined) {
      await recorder.event("approval.granted", { ...base, source: "grant" });
      this.#approved.set(input.tool_call_id, { by: "grant", scope });
      return null;
    }
    if (this.#sessionGrants.some((candidate) => grantCovers(candidate, input.tool.name, scope))) {
      await recorder.event("approval.granted", { ...base, source: "session" });
      this.#approved.set(input.tool_call_id, { by: "session_grant", scope });
      return null;
    }
    const inherited = this.#options.inheritedGrants?.() ?? [];
    if (inherited.some((candidate) => grantCovers(candidate, input.tool.name, scope))) {
      await recorder.event("approval.granted", { ...base, source: "parent_grant" });
      this.#approved.set(input.tool_call_id, { by: "parent_grant", scope });
      return null;
    }
    // Redacted before anyone sees it: the approver, pending.jsonl, the CI report.
    const request = redactor.redactValue(this.#request(input)) as ApprovalRequest;
    const configured = this.#options.approver;
    const approver = configured !== null && (configured.canAnswer?.(request) ?? true)
      ? configured
      : null;
    await recorder.event("approval.requested", { ...base, approver: approver?.name ?? null });
    if (approver === null) {
      const replay = this.replayFor([grant]);
      this.pending.push({ request, grant, replay });
      await Deno.mkdir(nodePath.join(this.#options.runDir, "approvals"), { recursive: true });
      await this.#pendingLog.write({
        ...request,
        grant,
        approve_argument: approveArgument(grant),
        replay,
      });
      const targets = scope.join(", ");
      return failure(
        "approval_required",
        `Cannot call tool "${input.tool.name}" on ${targets || "no target"}: approval required ` +
          `(${request.reason}) and nobody can approve in this run; to allow exactly this ` +
          `call next time, re-run with ${approveArgument(grant)}`,
        {
          rule: input.decision.rule,
          layer: input.decision.layer,
          reason: request.reason,
          scope,
          grant,
          approve_argument: approveArgument(grant),
          approvals_file_line: formatGrant(grant),
          replay,
        },
      );
    }
    const answer = await this.#ask(approver, request, base);
    if (answer.decision === "deny") {
      await recorder.event("approval.denied", {
        ...base,
        approver: approver.name,
        reason: answer.reason,
      });
      return failure(
        "approval_denied",
        `Cannot call tool "${input.tool.name}": approval denied (${answer.reason})`,
        { rule: input.decision.rule, layer: input.decision.layer, scope, approver: approver.name },
      );
    }
    if (answer.decision === "allow_for_session") {
      this.#sessionGrants.push(grant);
      await this.#grantsLog.write({
        ...grant,
        tool_call_id: input.tool_call_id,
        approver: approver.name,
        ts: new Date().toISOString(),
      });
    }
    await recorder.event("approval.granted", {
      ...base,
      source: answer.decision,
      approver: approver.name,
    });
    this.#approved.set(input.tool_call_id, {
      by: "terminal",
      scope,
      approver: approver.name,
      choice: answer.decision,
    });
    return null;
  }

  async #ask(
    approver: Approver,
    request: ApprovalRequest,
    base: { tool_call_id: string; tool: string; rule: string; scope: string[] },
  ): Promise<{ decision: "allow_once" | "allow_for_session" | "deny"; reason: string }> {
    const timeoutMs = this.#options.timeoutMs ?? 300_000;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const answer = await Promise.race([
        approver.approve(request, controller.signal),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]);
      const decision = answer?.decision;
      if (decision !== "allow_once" && decision !== "allow_for_session" && decision !== "deny") {
        throw new Error(
          `the answer ${JSON.stringify(answer)} is not allow_once, allow_for_session or deny`,
        );
      }
      return { decision, reason: typeof answer.reason === "string" ? answer.reason : decision };
    } catch (error) {
      const reason = `approver "${approver.name}" failed: ${
        error instanceof Error ? error.message : String(error)
      }`;
      await this.#options.recorder.event("approval.failed", { ...base, reason });
      await this.#options.recorder.error({
        source: "approval",
        ...base,
        message: `Cannot get an approval: ${reason}`,
      });
      return { decision: "deny", reason };
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }

  #request(input: GateInput): ApprovalRequest {
    const commands = input.scope.commands ?? [];
    const sensitive = input.scope.paths.some((path) => path.sensitive !== null);
    const risk = input.tool.annotations.risk_level;
    return {
      tool: input.tool.name,
      tool_call_id: input.tool_call_id,
      permission: input.tool.permission,
      tags: input.tool.tags,
      risk_level: risk,
      arguments_summary: summariseValue(input.arguments),
      target_scope: {
        paths: input.scope.paths.map((path) => ({
          requested: path.requested,
          real: path.real,
          access: path.access,
        })),
        commands: commands.map((command) => ({
          program: command.program,
          path: command.path,
          argv: command.argv,
          cwd: command.cwd.real,
        })),
        hosts: (input.scope.hosts ?? []).map((host) => host.scope),
      },
      cwd: commands[0]?.cwd.real ?? input.scope.paths[0]?.root ?? "",
      env_summary: commands.length > 0 ? [...this.#options.environmentNames] : [],
      dangerous: input.tool.tags.includes("dangerous") || input.tool.annotations.destructive,
      hook_result: input.hookResult,
      suggested_decision: risk >= 3 || sensitive ? "deny" : "allow_once",
      rule: input.decision.rule,
      layer: input.decision.layer,
      reason: input.decision.reason,
      agent: this.#options.agent ?? {
        agent_id: "main",
        run_id: this.#options.runId,
        parent_agent_id: null,
        parent_run_id: null,
        parent_ids: [],
        role: "main",
      },
      policy_hash: this.#options.policyHash,
    };
  }
}
