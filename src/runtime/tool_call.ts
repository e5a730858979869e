/**
 * A tool call as it reaches the runtime, from the model, a script, `kagent-run call`, or MCP.
 *
 * @module
 */

/**
 * What a model provider sent for a call before kagent-run mapped it, kept for the audit.
 *
 * @example
 * ```ts
 * import type { ProviderCallOrigin } from "./tool_call.ts";
 * // The model called "fs__read_file" without an id; kagent-run generated "call-1".
 * const origin: ProviderCallOrigin = { name: "fs__read_file", id: null };
 * ```
 */
export interface ProviderCallOrigin {
  /** The tool name exactly as the model sent it (mangled, e.g. `fs__read_file`, or unknown). */
  name: string;
  /**
   * The call id as the model sent it, or `null` when it sent none and kagent-run generated
   * {@linkcode ToolCall.id}. When it differs from `ToolCall.id`, the model repeated an id (within
   * one turn, or one used earlier in the run) and kagent-run replaced the repeat.
   */
  id: string | null;
  /**
   * sha256 (hex) of the arguments text exactly as the model sent it, present only when the
   * provider rewrote it (OpenAI strict mode removing nulls), so the audit still pins what the
   * model said while `arguments_sha256` in tools.jsonl hashes the text the runtime checked.
   */
  arguments_sha256?: string;
}

/** One proposed tool call. `arguments` is JSON text, exactly as the model produced it. */
export interface ToolCall {
  /** The provider's id, or a generated one; every call gets exactly one result with this id. */
  id: string;
  /** Canonical dotted tool name (providers' mangled names are mapped back before this point). */
  name: string;
  /**
   * JSON text of the arguments object. The OpenAI provider in strict mode removes the `null`
   * values it asked the model to send for omitted optional properties, so this is the text the
   * runtime validates against the tool's own schema.
   */
  arguments: string;
  /**
   * The raw name and id from a model provider (`openai`, `anthropic`). Absent for script plans,
   * `kagent-run call` and other callers whose names are already canonical, except on a script
   * call whose repeated id the loop made unique (then it holds the plan's id).
   */
  provider?: ProviderCallOrigin;
}
