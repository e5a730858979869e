/**
 * Entry module of the tool Worker: serves the built-in tools. The compile task includes it
 * (`--include src/sandbox/worker_main.ts`).
 *
 * @module
 */

import { serveTools } from "./tool_worker_server.ts";
import { builtinTools, commandTools } from "../toolsets/mod.ts";
import { declarativeTool } from "../toolsets/declarative/declarative_tool.ts";
import { createSkillTools } from "../skills/mod.ts";
import { memoryToolsFor } from "../memory/memory_settings.ts";

/** Reads a variable the Worker may read (the memory service's token); undefined otherwise. */
function readEnvironment(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

serveTools(
  [...builtinTools(), ...commandTools()],
  (init, network) => [
    ...init.declarative_tools.map((file) => declarativeTool(file) as never),
    ...(init.skill_dirs.length > 0 ? createSkillTools(init.skill_dirs) : []),
    ...(init.memory === null ? [] : memoryToolsFor(init.memory, readEnvironment, network.fetch)),
  ],
);
