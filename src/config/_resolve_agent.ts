/**
 * `agent`: loop settings, and the instructions file read into the config.
 *
 * @module
 */

import {
  DEFAULT_CHILD_AGENTS,
  DEFAULT_MAX_PARALLEL_TOOLS,
  DEFAULT_MAX_TURNS,
  DEFAULT_SYSTEM_BLOCKS,
} from "./defaults.ts";
import type { LoadedAgentDefinition, LoadedConfig } from "./loaded_config.ts";
import { readInstructions } from "./_read_instructions.ts";
import { requireKind, resolveConfigPath, type ResolveContext } from "./_resolve_context.ts";

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
    max_children_per_run: agent?.max_children_per_run ?? DEFAULT_CHILD_AGENTS.max_children_per_run,
    max_concurrent_children: agent?.max_concurrent_children ??
      DEFAULT_CHILD_AGENTS.max_concurrent_children,
    max_depth: agent?.max_depth ?? DEFAULT_CHILD_AGENTS.max_depth,
    instruction_files: [...(agent?.instruction_files ?? DEFAULT_SYSTEM_BLOCKS.instruction_files)],
    instruction_file_max_bytes: agent?.instruction_file_max_bytes ??
      DEFAULT_SYSTEM_BLOCKS.instruction_file_max_bytes,
  };
}

/**
 * Resolves `agents`: each definition's script (a `script` model) must be an existing file,
 * relative to the config file's folder; `max_turns` defaults to `agent.max_turns`. Problems go to
 * `context.issues`.
 */
export async function resolveAgents(context: ResolveContext): Promise<LoadedConfig["agents"]> {
  const agents: Record<string, LoadedAgentDefinition> = {};
  for (const [id, definition] of Object.entries(context.file.agents ?? {})) {
    let model = definition.model ?? null;
    if (model?.provider === "script") {
      const key = `agents.${id}.model.script`;
      const script = resolveConfigPath(context, model.script, key);
      await requireKind(context.issues, key, script, "file");
      model = { ...model, script };
    }
    agents[id] = {
      id,
      description: definition.description,
      agent_type: definition.agent_type,
      instructions: definition.instructions ?? null,
      model,
      allowed_tools: definition.allowed_tools ?? null,
      suggested_tools: definition.suggested_tools ?? [],
      max_turns: definition.max_turns ?? context.file.agent?.max_turns ?? DEFAULT_MAX_TURNS,
    };
  }
  return agents;
}
