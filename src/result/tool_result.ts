/**
 * The ToolResult contract (ARCHITECTURE §4): what every tool call answers, ok or not.
 *
 * A tool call never throws into the loop: every failure is a {@linkcode ToolResult} with
 * `ok: false` and an `error.type` from the closed {@linkcode ERROR_TYPES} set.
 *
 * @module
 */

import type { DisplayBlock } from "./display_blocks.ts";

/**
 * The closed set of `error.type` values. Add, never rename: users' scripts match on them.
 *
 * - `tool_not_available`: the name is not in this run's effective tool set.
 * - `invalid_arguments`: the arguments are not JSON, exceed the size/depth caps, or fail the schema.
 * - `hook_denied`: a PreToolUse hook said deny (or failed, which counts as deny).
 * - `permission_denied`: the effective policy said deny.
 * - `approval_required`: the policy said ask and nobody could answer (non-interactive run).
 * - `approval_denied`: the approver refused.
 * - `path_outside_sandbox`: a path resolves outside every root (or into /proc, /sys, /dev).
 * - `sensitive_path`: a path matches a sensitive pattern and was refused.
 * - `file_not_found`, `file_too_large`, `binary_file`, `not_a_regular_file`: the target file.
 * - `path_conflict`: the target exists and the call did not ask to overwrite it.
 * - `text_not_found`, `ambiguous_edit`, `patch_apply_failed`: an edit could not be applied.
 * - `timeout`, `exit_nonzero`: a command ran too long or failed.
 * - `io_error`: the operating system refused an operation for another reason.
 * - `sandbox_violation`: Deno's permission layer stopped the handler (layer 2 caught it).
 * - `aborted`: the run was interrupted while the tool ran.
 * - `skipped`: the call was not run because an earlier call of the turn stopped it.
 * - `tool_error`: an MCP server's tool answered with an error result (`isError`), or the server
 *   crashed, timed out or answered garbage during the call.
 * - `internal_error`: a bug in kagent-run or a tool handler.
 * - `not_found`: a task or step the call names does not exist (the task tools).
 * - `state_conflict`: the task or step is not in a state that allows the change: already claimed
 *   by another agent, not ready, already closed.
 * - `not_owner`: the caller is not the owner of the step, or the creator of the task, it changes.
 * - `agent_failed`: a child agent ran and ended without completing (`max_turns`, `model_error`);
 *   the details name its run id and end reason, and its run folder says the rest.
 * - `skill_invalid`: the named skill exists but its `SKILL.md` does not validate (the reason is
 *   given: a bad name, a missing description…).
 * - `agent_limit`: no child agent was started: `agent.max_depth`, `agent.max_children_per_run`.
 */
export const ERROR_TYPES = [
  "tool_not_available",
  "invalid_arguments",
  "hook_denied",
  "permission_denied",
  "approval_required",
  "approval_denied",
  "path_outside_sandbox",
  "sensitive_path",
  "file_not_found",
  "file_too_large",
  "binary_file",
  "not_a_regular_file",
  "path_conflict",
  "text_not_found",
  "ambiguous_edit",
  "patch_apply_failed",
  "timeout",
  "exit_nonzero",
  "io_error",
  "sandbox_violation",
  "aborted",
  "skipped",
  "tool_error",
  "internal_error",
  "not_found",
  "state_conflict",
  "not_owner",
  "agent_failed",
  "agent_limit",
  "skill_invalid",
] as const;

/** One value of the closed {@linkcode ERROR_TYPES} set. */
export type ErrorType = typeof ERROR_TYPES[number];

/** Why a tool call failed: a stable `type`, a message a person reads, and structured details. */
export interface ToolError {
  /** From the closed set {@linkcode ERROR_TYPES}. */
  type: ErrorType;
  /** One sentence in the house style: `Cannot read file "a.ts": path is outside the workspace`. */
  message: string;
  /** Structured facts (paths, rule ids, limits); `{}` when there are none. */
  details: Record<string, unknown>;
}

/** A large output kept beside the run rather than inline: `artifacts/<sha256>`. */
export interface ArtifactRef {
  /** Path relative to the run folder, e.g. `artifacts/3b5d…e1.txt`. */
  ref: string;
  /** Lower-case hex sha256 of the stored bytes. */
  sha256: string;
  /** Size of the stored bytes. */
  bytes: number;
  /** IANA media type, e.g. `text/plain; charset=utf-8`. */
  media_type: string;
}

/** The public ToolResult JSON (ARCHITECTURE §4). `error` is null exactly when `ok` is true. */
export interface ToolResult {
  tool_call_id: string;
  /** Canonical dotted tool name as called (even when unknown). */
  tool: string;
  ok: boolean;
  /** One line for logs and progress output. */
  summary: string;
  /** Text the model reads; may be truncated, with the full text in an artifact. */
  output: string;
  /** Structured result for programs; `null` when the tool has none. */
  data: unknown;
  artifacts: ArtifactRef[];
  error: ToolError | null;
  /** Wall time of the whole pipeline for this call, in milliseconds. */
  duration_ms: number;
  /**
   * What the call shows a person (`display_blocks.ts`), apart from `output`, which is for the model:
   * the runtime always sets it (a `brief` first), a call that never ran has its brief only; absent
   * in runs recorded before display blocks (and on results made by hand), where renderers use
   * `summary`.
   */
  display?: DisplayBlock[];
}

/**
 * What a handler (or a pipeline step) produces before the runtime adds ids, artifacts and timing.
 * Handlers may also return a plain value; {@linkcode toOutcome} wraps it.
 */
export interface ToolOutcome {
  ok: boolean;
  summary: string;
  output: string;
  data: unknown;
  error: ToolError | null;
  /** Artifacts the handler stored itself (command output streams), added to the result's. */
  artifacts?: ArtifactRef[];
  /**
   * A narrowing of the run's policy the tool asks for, e.g. `skills.load_skill` with the loaded
   * skill's allowed-tools. It travels back from the Worker with the outcome and is applied by the
   * runtime (only for an ok outcome) to the rest of the run; it never reaches the ToolResult.
   */
  narrowing?: NarrowingRequest;
  /**
   * Display blocks the handler made itself; the runtime checks them (`readDisplayBlocks`), and they
   * win over the blocks it would build from the outcome for the same types. @default none
   */
  display?: DisplayBlock[];
  /**
   * The process group a command of this call led, left for the runtime to kill once the call is
   * done (isolation none: the main thread kills a group in-process, the Worker would have to start
   * the `kill` program). It travels back from the Worker with the outcome and never reaches the
   * ToolResult. @default none: nothing left
   */
  processGroupId?: number;
}

/**
 * What a tool may ask of the policy: narrowing only. The runtime hands it to
 * `EffectivePolicy.withSkillRequest`, which intersects the tool set with `allowed_tools`, so a
 * request can remove tools but never make one available.
 */
export interface NarrowingRequest {
  /** The skill that asks, e.g. `survey-repository` (named in the `skill.loaded` event). */
  skill: string;
  /** Tool-name patterns the run keeps; absent: the request narrows nothing. */
  allowed_tools?: string[];
  /**
   * The only commands a command tool may run from now on (a skill's `Bash(git:*)`):
   * `{tool, argv, prefix}` as the policy's `SkillCommand`. @default no limit
   */
  allowed_commands?: { tool: string; argv: string[]; prefix: boolean }[];
}

/** Tells whether `value` is one of the closed {@linkcode ERROR_TYPES}. */
export function isErrorType(value: unknown): value is ErrorType {
  return typeof value === "string" && (ERROR_TYPES as readonly string[]).includes(value);
}

/**
 * A successful outcome.
 *
 * @param summary One line, e.g. `Read 42 lines of "src/a.ts"`.
 * @param output Text for the model.
 * @param data Structured result; `null` when none.
 * @example
 * ```ts
 * import { success } from "./tool_result.ts";
 * const outcome = success("Listed 2 entries", "a.ts\nb.ts", { entries: 2 });
 * ```
 */
export function success(summary: string, output: string, data: unknown = null): ToolOutcome {
  return { ok: true, summary, output, data, error: null };
}

/**
 * A failed outcome. The summary and the output both carry the message, so the model reads it.
 *
 * @param type From {@linkcode ERROR_TYPES}.
 * @param message House style: action first, values in quotes, colon before the reason.
 * @param details Structured facts; `{}` by default.
 * @example
 * ```ts
 * import { failure } from "./tool_result.ts";
 * const outcome = failure("file_not_found", 'Cannot read file "a.ts": it does not exist');
 * ```
 */
export function failure(
  type: ErrorType,
  message: string,
  details: Record<string, unknown> = {},
): ToolOutcome {
  return {
    ok: false,
    summary: message,
    output: message,
    data: null,
    error: { type, message, details },
  };
}

/** Tells whether `value` already has the {@linkcode ToolOutcome} shape (as opposed to a plain value). */
export function isToolOutcome(value: unknown): value is ToolOutcome {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.ok === "boolean" && typeof record.summary === "string" &&
    typeof record.output === "string" && "data" in record && "error" in record;
}

/**
 * Wraps whatever a handler returned into a {@linkcode ToolOutcome}: an outcome passes through; a
 * string becomes the output; any other value becomes `data` with its JSON as the output.
 *
 * @param toolName Used in the summary of wrapped values.
 * @param value What the handler returned.
 */
export function toOutcome(toolName: string, value: unknown): ToolOutcome {
  if (isToolOutcome(value)) return value;
  if (typeof value === "string") {
    const firstLine = value.split("\n", 1)[0] ?? "";
    return success(firstLine.length > 0 ? firstLine.slice(0, 200) : `${toolName} completed`, value);
  }
  if (value === undefined) return success(`${toolName} completed`, "", null);
  return success(`${toolName} completed`, JSON.stringify(value, null, 2) ?? "", value);
}
