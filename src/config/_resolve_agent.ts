/**
 * `agent`: loop settings, and the instructions file read into the config.
 *
 * @module
 */

import { DEFAULT_MAX_PARALLEL_TOOLS, DEFAULT_MAX_TURNS } from "./defaults.ts";
import type { LoadedConfig } from "./loaded_config.ts";
import { readInstructions } from "./_read_instructions.ts";
import { resolveConfigPath, type ResolveContext } from "./_resolve_context.ts";

/** Resolves `agent`; problems go to `context.issues`. */
export async function resolveAgent(context: ResolveContext): Promise<LoadedConfig["agent"]> {
  const agent = context.file.agent;
  let instructions: LoadedConfig["agent"]["instructions"] = null;
  if (agent?.instructions !== undefined) {
    const key = "agent.instructions";
    const path = resolveConfigPath(context, agent.instructions, key);
    const read = await readInstructions(path);
    if (read.ok) instructions = { path, text: read.text };
    else context.issues.push({ key, text: `key "${key}" ${read.reason}` });
  }
  return {
    max_turns: agent?.max_turns ?? DEFAULT_MAX_TURNS,
    max_parallel_tools: agent?.max_parallel_tools ?? DEFAULT_MAX_PARALLEL_TOOLS,
    instructions,
  };
}
