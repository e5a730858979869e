/**
 * The built-in toolsets. Both the main thread (registry, policy) and the tool Worker (handlers)
 * take their tools from here.
 *
 * @module
 */

import type { ToolDefinition } from "../tools/tool_definition.ts";
import { fsTools } from "./fs/mod.ts";
import { runCommandTool } from "./exec/run_command.ts";
import { runScriptTool } from "./skills/run_script.ts";

/** Every built-in tool that is always registered, in listing order. */
export function builtinTools(): ToolDefinition<never>[] {
  return [...fsTools()] as ToolDefinition<never>[];
}

/** Tools registered only when command tools are enabled (`commands` or declarative tools). */
export function commandTools(): ToolDefinition<never>[] {
  return [runCommandTool, runScriptTool] as unknown as ToolDefinition<never>[];
}
