/**
 * Every line type of `events.jsonl`, as one closed union. Each line is
 * `{ "ts", "type", "run_id", ...fields }`; the recorder adds `ts` (ISO-8601 UTC with
 * milliseconds) and `run_id`, the caller gives `type` and the fields below. docs/EVENTS.md lists
 * the same events for readers (tests/events_doc_test.ts keeps the two in step).
 *
 * Event types read `noun.verb`: the thing, then what happened to it.
 *
 * @module
 */

import type { TaskStepClaimedEvent, TaskStepReportedEvent } from "./task_step_events.ts";
import type { ErrorType } from "../result/mod.ts";
import type { ApprovalBase, ChildAgentBase } from "./_audit_event_bases.ts";
import type { McpServerEvent } from "./_mcp_server_events.ts";
import type { SystemBlockEvent } from "./_system_block_events.ts";

/** Token counts of a turn or a run; the optional ones when the provider sent them. */
type ModelRespondedUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  reasoning_tokens?: number;
};

/** A tool call as the model named it, when a provider rewrote the name or id. */
export interface AuditProviderOrigin {
  /** The tool name exactly as the model sent it (e.g. `fs__read_file`). */
  name: string;
  /** The call id as the model sent it; null when it sent none. */
  id: string | null;
  /** sha256 (hex) of the arguments text as sent, present only when the provider rewrote it. */
  arguments_sha256?: string;
}

/** The policy decision of a finished call, as recorded. */
export interface AuditPolicy {
  decision: "allow" | "ask" | "deny";
  /** The id of the rule that decided, e.g. `config:0`. */
  rule: string;
  /** `runtime`, `sandbox`, `config`, `skill` or `default`. */
  layer: string;
  /** Why, in words. */
  reason: string;
}

/** The fields of a finished call's event (`tool.completed`, `tool.failed`, `tool.denied`). */
interface ToolEnded {
  tool_call_id: string;
  tool: string;
  provider?: AuditProviderOrigin;
  ok: boolean;
  /** One line. */
  summary: string;
  /** The result's `error.type`; null when `ok`. */
  error_type: ErrorType | null;
  /** Milliseconds from the call's start to its result. */
  duration_ms: number;
  /** The policy decision, or null when the call never reached the policy (unknown tool…). */
  policy: AuditPolicy | null;
  /** `artifacts/<sha256>…` paths, relative to the run folder. */
  artifacts: string[];
}

/**
 * One line of `events.jsonl` without `ts` and `run_id`, discriminated by `type`.
 *
 * @example
 * ```ts
 * import type { AuditEvent } from "./audit_event.ts";
 * const event: AuditEvent = { type: "tool.started", tool_call_id: "call-1", tool: "fs.read_file" };
 * console.assert(event.type === "tool.started");
 * ```
 */
export type AuditEvent =
  | {
    type: "run.started";
    /** The task given on the command line; null for `kagent-run call`. */
    task: string | null;
    /** The model's provider and name (null for the script provider's model); null without one. */
    model: { provider: string; model: string | null } | null;
    /** The config file's absolute path. */
    config: string;
    /** The workspace's absolute real path. */
    workspace: string;
    /** The run folder's absolute path. */
    run_dir: string;
    /** sha256 of the effective policy's meaning. */
    policy_hash: string;
    /** Names of the tools the model may call. */
    tools: string[];
  }
  | {
    type: "run.resumed";
    /** The segment this event starts: 2 for the first resume. */
    segment: number;
    /**
     * The anchor of the segment: sha256 (hex) of the previous segment's `manifest.json`, kept as
     * `segments/<segment - 1>/manifest.json`.
     */
    previous_manifest_sha256: string;
    /** How the previous segment ended (`run.completed`'s `end_reason`). */
    previous_end_reason: string;
    /**
     * The turn whose calls run again (those that waited for an approval, and those skipped
     * because of them); the conversation continues after that turn. Null when none run again:
     * the conversation continues after its last recorded message.
     */
    resumed_after_turn: number | null;
    /** Ids of the calls that run again, in the turn's order. */
    rerun: string[];
    /** The user's next message (`--task`), or null. */
    task: string | null;
    /** sha256 of the effective policy's meaning: the run's, unchanged. */
    policy_hash: string;
  }
  | {
    type: "run.completed";
    /** `completed`, `max_turns`, `model_error`, `aborted` or `aborted_tools`. */
    end_reason: string;
    /** Model turns taken (absent for `kagent-run call`). */
    turns?: number;
    calls: number;
    denied: number;
    failed: number;
    skipped: number;
    duration_ms: number;
    final_text?: string | null;
    /** The model error's message, when `end_reason` is `model_error`. */
    error?: string | null;
    /** The model error's code, when `end_reason` is `model_error`. */
    error_code?: string | null;
    error_details?: Record<string, unknown> | null;
    /** Token counts summed over the run's turns, as in `model.responded`; null: none reported. */
    usage?: ModelRespondedUsage | null;
    /**
     * The command that re-runs (or resumes) the run with the grant of every call that waited for
     * an approval in this segment, its children's too; null when none waited (absent for
     * `kagent-run call`). The run's summary reads it from here.
     */
    replay?: string | null;
    /**
     * Set by the recorder (callers leave it out): the end of the other logs' hash chains when the
     * run ended, `{tools, errors}`, each `{seq, hash}` of that log's last record (`seq` 0 and the
     * anchor when it has none).
     */
    chains?: { tools: { seq: number; hash: string }; errors: { seq: number; hash: string } };
    /**
     * Set by the recorder (callers leave it out): how the seal written after this line is signed,
     * `{algorithm: "HMAC-SHA256", key_env}`, or null when unsigned; `verify` calls a missing
     * manifest of a signed run tampered, not incomplete.
     */
    signing?: { algorithm: string; key_env: string } | null;
  }
  | {
    type: "skill_catalogue.recorded";
    /** Names of the valid skills found in the skill folders. */
    skills: string[];
    /** How many skills were invalid (each one is in `logs/errors.jsonl`). */
    invalid: number;
  }
  | {
    type: "command_tools.disabled";
    /** Why command isolation cannot run, and how to fix it. */
    reason: string;
  }
  | {
    type: "network_boundary.measured";
    /** Hosts the model channel may reach. */
    model_hosts: string[];
    /** Hosts the memory channel may reach. */
    memory_hosts: string[];
    /** Hosts the mcp channel may reach (the HTTP MCP servers'). */
    mcp_hosts: string[];
    /** `network.hosts` patterns the tools channel (`net.fetch`) may reach; [] without it. */
    tool_hosts: string[];
    /** Always false: tool Workers have no network. */
    tool_worker_net: false;
    /** The main thread's own `net` permission, as queried. */
    main_thread_net: Deno.PermissionState;
  }
  | {
    type: "system_prompt.recorded";
    /** `system_prompt.md`, relative to the run folder. */
    path: string;
    /** Names of the prompt's sections, in order. */
    sections: string[];
    /** Size in bytes of the text sent (UTF-8). */
    bytes: number;
    /** sha256 (hex) of the text sent. */
    sha256: string;
    /** Names of the skills the prompt lists. */
    skills: string[];
    /** The instructions file's path, or null. */
    instructions: string | null;
  }
  | SystemBlockEvent
  | McpServerEvent
  | {
    type: "model.responded";
    /** The turn's number, from 1. */
    turn: number;
    provider: string;
    tool_calls: { id: string; name: string; provider?: AuditProviderOrigin }[];
    text: string | null;
    /** Token counts, with `cache_read_input_tokens`… when sent (docs/EVENTS.md). */
    usage: ModelRespondedUsage | null;
    /** `{reason, ...the provider's own stop fields}`. */
    stop: { reason: string; [field: string]: unknown };
    /** The output limit of a retried turn (absent otherwise). */
    max_tokens?: number;
    /** A streamed turn: ms from the request to the first token. */
    first_token_ms?: number;
    /** The id the provider gave the answer in its response headers (absent when none). */
    request_id?: string;
    /** The turn's own content sent back unmodified (paused turn, reasoning); docs/EVENTS.md. */
    provider_content?: unknown;
  }
  | {
    type: "model.retried";
    turn: number;
    provider: string;
    /** `truncated`: a higher output limit; `empty_response`: asked to continue. */
    reason: "truncated" | "empty_response";
    /** The output limit of the retry (`truncated` only). */
    max_tokens?: number;
  }
  | { type: "tool.started"; tool_call_id: string; tool: string }
  | ({ type: "tool.completed" } & ToolEnded)
  | ({ type: "tool.failed" } & ToolEnded)
  | ({ type: "tool.denied" } & ToolEnded)
  | {
    type: "tool.skipped";
    tool_call_id: string;
    tool: string;
    provider?: AuditProviderOrigin;
    ok: false;
    /** False for a call of an unusable turn; absent for a call skipped after a denial. */
    executed?: false;
    summary: string;
    error_type: ErrorType | null;
    duration_ms: number;
    details: Record<string, unknown>;
  }
  | {
    type: "command.swept";
    tool_call_id: string;
    /** How many processes left behind by the call were killed. */
    killed: number;
  }
  | {
    type: "skill.loaded";
    skill: string;
    /** The skill's allowed-tools, or null when it names none. */
    requested: string[] | null;
    /**
     * The commands its `Bash(…)` entries leave `exec.run_command` (`git …`, `npm test`); absent
     * when it does not limit commands.
     */
    commands?: string[];
    /** The tools available after narrowing. */
    got: string[];
    /** The tools narrowing removed. */
    removed: string[];
    /** sha256 of the narrowed policy's meaning. */
    policy_hash: string;
  }
  | {
    type: "hook.completed";
    /** The hook's command, as configured. */
    hook: string;
    hook_event: "PreToolUse" | "PostToolUse";
    tool: string;
    tool_call_id: string;
    /** The hook's answer; null when it gave none. */
    decision: "allow" | "deny" | "ask" | null;
    reason: string | null;
    duration_ms: number;
  }
  | {
    type: "hook.failed";
    hook: string;
    hook_event: "PreToolUse" | "PostToolUse";
    tool: string;
    tool_call_id: string;
    /** `deny` when the failure denies the call (PreToolUse), else null. */
    decision: "deny" | null;
    reason: string;
    duration_ms: number;
  }
  | ({
    type: "approval.requested";
    /** The approver's name; null when nobody can approve in this run. */
    approver: string | null;
  } & ApprovalBase)
  | ({
    type: "approval.granted";
    /**
     * `grant` (--approve), `session` (an earlier allow_for_session), `parent_grant` (a grant of the
     * parent agent's run, in a child agent's run), or the approver's answer.
     */
    source: "grant" | "session" | "parent_grant" | "allow_once" | "allow_for_session";
    approver?: string;
  } & ApprovalBase)
  | ({ type: "approval.denied"; approver: string; reason: string } & ApprovalBase)
  | ({ type: "agent.started" } & ChildAgentBase)
  | ({
    type: "agent.completed";
    /** The child's end reason: `completed`, `max_turns`, `model_error`, `aborted`, `aborted_tools`. */
    end_reason: string;
    /** The child's model turns. */
    turns: number;
    /** Tokens the child's model reported over all its turns; null when it reported none. */
    usage: { input_tokens: number; output_tokens: number } | null;
    /** The child's tool calls, and how many of them were denied or failed. */
    calls: number;
    denied: number;
    failed: number;
    /** Milliseconds from the child's start to its end. */
    duration_ms: number;
    /** The child's model error, when `end_reason` is `model_error`. */
    error: string | null;
  } & ChildAgentBase)
  | TaskStepClaimedEvent
  | TaskStepReportedEvent
  | ({
    type: "approval.failed";
    /** Why the approver gave no answer (it threw, timed out or answered garbage). */
    reason: string;
  } & ApprovalBase);

/** The `type` of an {@linkcode AuditEvent}, e.g. `tool.started`. */
export type AuditEventType = AuditEvent["type"];

/**
 * The fields an event of type `T` carries besides `type` (distributes over a union of types).
 *
 * @example
 * ```ts
 * import type { AuditEventFields } from "./audit_event.ts";
 * const fields: AuditEventFields<"command.swept"> = { tool_call_id: "call-1", killed: 2 };
 * console.assert(fields.killed === 2);
 * ```
 */
export type AuditEventFields<T extends AuditEventType> = T extends AuditEventType
  ? Omit<Extract<AuditEvent, { type: T }>, "type">
  : never;

/**
 * Every {@linkcode AuditEventType}, in the order of docs/EVENTS.md (a missing or unknown one is a
 * compile error).
 *
 * @example
 * ```ts
 * import { AUDIT_EVENT_TYPES } from "./audit_event.ts";
 * console.assert(AUDIT_EVENT_TYPES.includes("tool.started"));
 * ```
 */
export const AUDIT_EVENT_TYPES = [
  "run.started",
  "run.resumed",
  "run.completed",
  "skill_catalogue.recorded",
  "command_tools.disabled",
  "mcp_server.started",
  "mcp_server.skipped",
  "mcp_server.tools_changed",
  "network_boundary.measured",
  "system_prompt.recorded",
  "memory_context.updated",
  "instruction_file.registered",
  "model.responded",
  "model.retried",
  "tool.started",
  "tool.completed",
  "tool.failed",
  "tool.denied",
  "tool.skipped",
  "command.swept",
  "mcp_server.sandbox_violation",
  "skill.loaded",
  "hook.completed",
  "hook.failed",
  "approval.requested",
  "approval.granted",
  "approval.denied",
  "approval.failed",
  "agent.started",
  "agent.completed",
  "task.step_claimed",
  "task.step_reported",
] as const satisfies readonly AuditEventType[];

// Every type is listed: this line fails to compile when one is missing.
const _everyTypeListed: Exclude<AuditEventType, typeof AUDIT_EVENT_TYPES[number]> extends never
  ? true
  : never = true;
void _everyTypeListed;
