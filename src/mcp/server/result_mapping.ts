/**
 * A ToolResult as an MCP `tools/call` result. Failures and denials are results with `isError`,
 * never protocol errors (the MCP spec: the model should see them).
 *
 * @module
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResult } from "../../result/mod.ts";

/**
 * Maps a ToolResult to MCP. Success: the output as one text block, plus `structuredContent` when
 * `data` is a plain object. Failure: `isError: true`, the message as text, then a JSON block with
 * the error type, rule, layer and details (for `approval_required`: the grant, the `--approve`
 * argument and the replay command), also given as `structuredContent.error`.
 *
 * @example
 * ```ts
 * import { toCallToolResult } from "./result_mapping.ts";
 * const mapped = toCallToolResult({
 *   tool_call_id: "c1", tool: "fs.read_file", ok: true, summary: "read", output: "hello",
 *   data: { lines: 1 }, artifacts: [], error: null, duration_ms: 3,
 * });
 * console.assert(mapped.isError === false && mapped.structuredContent?.lines === 1);
 * ```
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  if (result.ok || result.error === null) {
    return {
      content: [{ type: "text", text: result.output }],
      ...(isPlainObject(result.data) ? { structuredContent: result.data } : {}),
      isError: false,
    };
  }
  const details = result.error.details;
  const error = {
    type: result.error.type,
    message: result.error.message,
    rule: typeof details.rule === "string" ? details.rule : null,
    layer: typeof details.layer === "string" ? details.layer : null,
    details,
  };
  return {
    content: [
      { type: "text", text: result.error.message },
      { type: "text", text: JSON.stringify({ error }, null, 2) },
    ],
    structuredContent: { tool: result.tool, error },
    isError: true,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
