/**
 * A tool call as it reaches the runtime, from the model, a script, `kagent-run call`, or MCP.
 *
 * @module
 */

/** One proposed tool call. `arguments` is JSON text, exactly as the model produced it. */
export interface ToolCall {
  /** The provider's id, or a generated one; every call gets exactly one result with this id. */
  id: string;
  /** Canonical dotted tool name (providers' mangled names are mapped back before this point). */
  name: string;
  /** JSON text of the arguments object. */
  arguments: string;
}
