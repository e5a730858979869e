/**
 * The built-in toolsets. Both the main thread (registry, policy) and the tool Worker (handlers)
 * take their tools from here.
 *
 * @module
 */

import type { ToolDefinition } from "../tools/tool_definition.ts";
import { fsTools } from "./fs/mod.ts";

/** Every built-in tool, in listing order. */
export function builtinTools(): ToolDefinition<never>[] {
  return [...fsTools()] as ToolDefinition<never>[];
}
