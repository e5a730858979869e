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

serveTools(
  [...builtinTools(), ...commandTools()],
  (init) => [
    ...init.declarative_tools.map((file) => declarativeTool(file) as never),
    ...(init.skill_dirs.length > 0 ? createSkillTools(init.skill_dirs) : []),
  ],
);
