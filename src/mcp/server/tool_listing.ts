/**
 * The run's effective tool set as MCP tools: canonical dotted names kept as MCP tool names, input
 * schemas as they are, MCP annotations from ours.
 *
 * @module
 */

import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { EffectivePolicy } from "../../policy/mod.ts";
import type { ToolDefinition, ToolRegistry } from "../../tools/mod.ts";

/**
 * The MCP annotations of one of our tools. Hints only: the client may show them, but the pipeline
 * decides. `readOnlyHint` from permission `readonly`; `destructiveHint` from our `destructive`
 * annotation or a `destructive`/`dangerous` tag; `idempotentHint` from `idempotent`;
 * `openWorldHint` from `open_world` or a `network` tag.
 *
 * @example
 * ```ts
 * import { mcpAnnotations } from "./tool_listing.ts";
 * const hints = mcpAnnotations({
 *   permission: "readonly",
 *   tags: ["filesystem"],
 *   annotations: {
 *     read_only: true, destructive: false, idempotent: true, open_world: false,
 *     risk_level: 0, category: "filesystem", requires_confirmation: false,
 *   },
 * });
 * console.assert(hints.readOnlyHint === true && hints.destructiveHint === false);
 * ```
 */
export function mcpAnnotations(
  tool: Pick<ToolDefinition, "permission" | "tags" | "annotations">,
): NonNullable<Tool["annotations"]> {
  const readOnly = tool.permission === "readonly";
  return {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly &&
      (tool.annotations.destructive || tool.tags.includes("destructive") ||
        tool.tags.includes("dangerous")),
    idempotentHint: tool.annotations.idempotent,
    openWorldHint: tool.annotations.open_world || tool.tags.includes("network"),
  };
}

/**
 * The MCP `tools/list` entries of the tools the policy keeps available, in registry order.
 * Removed tools (a tool-level deny, a narrowing) are not listed, as the model would not see them.
 *
 * @example
 * ```ts
 * import { ToolRegistry } from "../../tools/mod.ts";
 * import { listMcpTools } from "./tool_listing.ts";
 * const policy = { toolPolicy: () => ({ available: true }) };
 * // deno-lint-ignore no-explicit-any
 * console.assert(listMcpTools(new ToolRegistry(), policy as any).length === 0);
 * ```
 */
export function listMcpTools(registry: ToolRegistry, policy: EffectivePolicy): Tool[] {
  return registry.list()
    .map((registered) => registered.definition)
    .filter((definition) => policy.toolPolicy(definition.name)?.available === true)
    .map((definition) => ({
      name: definition.name,
      title: definition.name,
      description: definition.description,
      inputSchema: definition.input_schema as Tool["inputSchema"],
      annotations: { title: definition.name, ...mcpAnnotations(definition) },
    }));
}
