/**
 * An MCP server's tool as a kagent-run tool: `mcp.<server_id>.<tool_name>`, tags `mcp` (and
 * `network` for a server reached over HTTP, or when its `openWorldHint` is trusted true), the server's description and input schema,
 * and annotations from the MCP hints only when the config trusts them (the MCP spec calls hints
 * untrusted): otherwise a write tool of risk 3 that asks by default.
 *
 * @module
 */

import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  checkSchemaSubset,
  type JsonSchema,
  MAX_TOOL_NAME_LENGTH,
  TOOL_NAME_PATTERN,
  type ToolAnnotations,
  type ToolDefinition,
} from "../tools/mod.ts";
import { MAX_VALUE_DEPTH, valueNestingDepth } from "../result/mod.ts";

/** The canonical name of a server's tool. */
export function mcpToolName(serverId: string, toolName: string): string {
  return `mcp.${serverId}.${toolName}`;
}

/**
 * Builds the definition of one listed tool, or says why it cannot be one.
 *
 * @param serverId The `mcp_servers` id.
 * @param tool As listed by the server.
 * @param trustAnnotations `trust_annotations` of the server.
 * @param options.remote The server is reached over HTTP (the tool gets the `network` tag).
 *   @default false
 * @returns `{ definition }`, or `{ refusal }` with the reason (bad name, schema outside the subset).
 * @example
 * ```ts
 * import { mcpToolDefinition } from "./mcp_tool_definition.ts";
 * const built = mcpToolDefinition("demo", {
 *   name: "echo",
 *   inputSchema: { type: "object", properties: { message: { type: "string" } } },
 * }, false);
 * console.assert("definition" in built && built.definition.permission === "write");
 * ```
 */
export function mcpToolDefinition(
  serverId: string,
  tool: Tool,
  trustAnnotations: boolean,
  options: { remote?: boolean } = {},
): { definition: ToolDefinition } | { refusal: string } {
  const name = mcpToolName(serverId, tool.name);
  if (name.length > MAX_TOOL_NAME_LENGTH || !TOOL_NAME_PATTERN.test(name)) {
    return {
      refusal:
        `Cannot register tool "${tool.name}" of MCP server "${serverId}": "${name}" is not ` +
        `a canonical name (lower-case letters, digits, _ and -, at most ${MAX_TOOL_NAME_LENGTH} characters)`,
    };
  }
  // Measured without recursion before anything copies or walks it (structuredClone recurses).
  const depth = valueNestingDepth(tool.inputSchema);
  if (depth > MAX_VALUE_DEPTH) {
    return {
      refusal: `Cannot register tool "${tool.name}" of MCP server "${serverId}": its input ` +
        `schema is nested more than ${MAX_VALUE_DEPTH} levels deep`,
    };
  }
  const checked = checkSchemaSubset(structuredClone(tool.inputSchema) as JsonSchema);
  if ("problems" in checked) {
    return {
      refusal: `Cannot register tool "${tool.name}" of MCP server "${serverId}": its input ` +
        `schema is outside the supported subset: ${checked.problems.join("; ")}`,
    };
  }
  const hints = tool.annotations ?? {};
  const annotations: ToolAnnotations = trustAnnotations
    ? {
      read_only: hints.readOnlyHint === true,
      destructive: hints.readOnlyHint !== true && hints.destructiveHint !== false,
      idempotent: hints.idempotentHint === true,
      open_world: hints.openWorldHint !== false,
      risk_level: hints.readOnlyHint === true ? 1 : hints.destructiveHint === false ? 2 : 3,
      category: "mcp",
      requires_confirmation: false,
    }
    : {
      read_only: false,
      destructive: false,
      idempotent: false,
      open_world: true,
      risk_level: 3,
      category: "mcp",
      requires_confirmation: false,
    };
  const network = options.remote === true || (trustAnnotations && annotations.open_world);
  const tags = ["mcp", ...(network ? ["network"] : [])];
  return {
    definition: {
      name,
      description: tool.description ?? tool.title ??
        `Tool "${tool.name}" of MCP server "${serverId}"`,
      input_schema: checked.schema,
      permission: annotations.read_only ? "readonly" : "write",
      tags,
      annotations,
      handler() {
        throw new Error(`MCP tool "${name}" runs on the main thread, not in the tool Worker`);
      },
    },
  };
}
