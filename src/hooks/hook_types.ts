/**
 * The shapes hooks see and answer: {@linkcode HookInput}, {@linkcode HookAnswer}, and the
 * in-process interfaces {@linkcode PreToolUseHook} and {@linkcode PostToolUseHook} (command hooks
 * from the config implement the same interfaces).
 *
 * @module
 */

import type { ToolResult } from "../result/mod.ts";

/** Which moment of a call a hook runs at. */
export type HookEvent = "PreToolUse" | "PostToolUse";

/** The decision of a PreToolUse hook. A hook can only restrict: `allow` never bypasses the policy. */
export type HookDecision = "allow" | "deny" | "ask";

/** What a hook is told about a call, after its arguments parsed and its targets resolved. */
export interface HookInput {
  hook_event: HookEvent;
  /** Canonical tool name, e.g. `fs.write_file`. */
  tool: string;
  tool_call_id: string;
  /** The parsed, schema-checked arguments. */
  arguments: Record<string, unknown>;
  /** What the call touches, as the path guard and the command allowlist resolved it. */
  target_scope: HookTargetScope;
  run_id: string;
  /** Who made the call; `{ agent_id: "main", role: "main" }` until sub-agents exist. */
  agent: { agent_id: string; role: string };
}

/** The resolved targets of a call, reduced to what a hook needs. */
export interface HookTargetScope {
  /** Each path as requested, its real path, and the access asked for. */
  paths: { requested: string; real: string; access: string }[];
  /** Each command: the allowlisted program name, the argv as requested, the real working folder. */
  commands: { program: string; argv: string[]; cwd: string }[];
}

/** What a PreToolUse hook answers. */
export interface HookAnswer {
  decision: HookDecision;
  /** Why, for the result message and the audit. */
  reason?: string;
}

/** The input of a PostToolUse hook: the call and its final result. */
export type PostToolUseInput = HookInput & { result: ToolResult };

/**
 * A hook run before a call's policy decision is used. A throw or an invalid answer counts as a deny
 * (fail closed).
 *
 * @example
 * ```ts
 * import type { PreToolUseHook } from "./hook_types.ts";
 * const noWrites: PreToolUseHook = {
 *   name: "no-writes",
 *   tools: ["fs.write_*"],
 *   decide: () => ({ decision: "deny", reason: "this run is read-only" }),
 * };
 * ```
 */
export interface PreToolUseHook {
  /** Shown in results and the audit (a command hook's is its argv[0]). */
  name: string;
  /** Glob patterns over tool names. @default ["*"] */
  tools?: readonly string[];
  /**
   * Answers for one call.
   *
   * @param signal Aborted when the run is interrupted: stop and throw (the call is then refused).
   */
  decide(input: HookInput, signal?: AbortSignal): Promise<HookAnswer> | HookAnswer;
}

/** A hook run after a call was recorded. It observes only: its failures never change the result. */
export interface PostToolUseHook {
  /** Shown in the audit. */
  name: string;
  /** Glob patterns over tool names. @default ["*"] */
  tools?: readonly string[];
  /** Looks at one finished call. */
  observe(input: PostToolUseInput): Promise<void> | void;
}

/**
 * A hook could not give an answer (a command that exited non-zero, timed out, printed nothing or
 * something that is not an answer). `reason` completes `PreToolUse hook "x" failed: <reason>`.
 */
export class HookFailure extends Error {
  override readonly name = "HookFailure";
  /** Why, as the part after the colon: `it timed out after 10000 ms`. */
  readonly reason: string;

  /** @param reason See {@linkcode HookFailure.reason}. */
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}
