/**
 * The tool set of a run, built from plain settings by one function that both threads call: the
 * main thread (registry, policy) and the tool Worker (handlers), so the two lists cannot disagree.
 *
 * @module
 */

import type { DeclarativeToolFile } from "./declarative/declarative_tool_file.ts";
import type { MemorySettings } from "../memory/mod.ts";
import { memoryToolsFor } from "./memory/memory_tools_for.ts";
import type { ToolDefinition } from "../tools/mod.ts";
import { declarativeTool } from "./declarative/declarative_tool.ts";
import { builtinTools, commandTools } from "./mod.ts";
import { createSkillTools } from "./skills/skill_tools.ts";

/** What decides a run's tool set. JSON-compatible: the main thread sends it to the Worker. */
export interface ToolSetSettings {
  /** Command tools are set up (`commands` or declarative tools): exec.run_command, skills.run_script. */
  command_tools: boolean;
  /** Declarative tool files (registered only with the command tools). */
  declarative_tools: DeclarativeToolFile[];
  /** Real skill folders: the skill tools are built over them when there is one. */
  skill_dirs: string[];
  /** Memory tool settings, or null when memory is off. */
  memory: MemorySettings | null;
  /**
   * Commands reach the network (`sandbox.command_network`, or isolation `none`): exec.run_command
   * and skills.run_script are then annotated open-world. @default false
   */
  command_network?: boolean;
}

/** What the handlers of the set use in the thread that runs them. */
export interface ToolSetHandlers {
  /** Reads a variable (the memory service's token). @default none readable */
  env?: (name: string) => string | undefined;
  /** How memory requests leave the thread. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * The run's tools, in listing order: `base`, then (with command tools) exec.run_command,
 * skills.run_script and the declarative tools, then the skill tools, then the memory tools. A
 * later tool whose name is taken is left out, except a declarative tool: the registry refuses it,
 * so the config error names its file.
 *
 * @param base The tools every run has. @default builtinTools()
 * @example
 * ```ts
 * import { toolSet } from "./tool_set.ts";
 * const names = toolSet({ command_tools: false, declarative_tools: [], skill_dirs: [], memory: null })
 *   .map((tool) => tool.name);
 * console.assert(names.includes("fs.read_file") && !names.includes("exec.run_command"));
 * ```
 */
export function toolSet(
  settings: ToolSetSettings,
  base: readonly ToolDefinition[] = builtinTools(),
  handlers: ToolSetHandlers = {},
): ToolDefinition[] {
  const tools = [...base];
  const add = (tool: ToolDefinition) => {
    if (!tools.some((existing) => existing.name === tool.name)) tools.push(tool);
  };
  if (settings.command_tools) {
    const openWorld = settings.command_network === true;
    commandTools().forEach((tool) =>
      add(openWorld ? { ...tool, annotations: { ...tool.annotations, open_world: true } } : tool)
    );
    tools.push(...settings.declarative_tools.map((file) => declarativeTool(file)));
  }
  if (settings.skill_dirs.length > 0) createSkillTools(settings.skill_dirs).forEach(add);
  if (settings.memory !== null) {
    memoryToolsFor(settings.memory, handlers.env, handlers.fetch).forEach(add);
  }
  return tools;
}
