/**
 * The built-in toolsets and the run's tool set. Both the main thread (registry, policy) and the
 * tool Worker (handlers) take their tools from {@linkcode toolSet}.
 *
 * @module
 */

import type { ToolDefinition } from "../tools/mod.ts";
import { fsTools } from "./fs/mod.ts";
import { runCommandTool } from "./exec/run_command.ts";
import { runScriptTool } from "./skills/run_script.ts";

/** Every built-in tool that is always registered, in listing order. */
export function builtinTools(): ToolDefinition[] {
  return [...fsTools()];
}

/** Tools registered only when command tools are enabled (`commands` or declarative tools). */
export function commandTools(): ToolDefinition[] {
  return [runCommandTool, runScriptTool];
}

/** Names of {@linkcode commandTools}: `exec.run_command`, `skills.run_script`. */
export function commandToolNames(): string[] {
  return commandTools().map((tool) => tool.name);
}

export { toolSet, type ToolSetSettings } from "./tool_set.ts";
