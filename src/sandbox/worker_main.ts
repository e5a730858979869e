/**
 * Entry module of the tool Worker: serves the built-in tools. The compile task includes it
 * (`--include src/sandbox/worker_main.ts`).
 *
 * @module
 */

import { serveTools } from "./tool_worker_server.ts";
import { builtinTools } from "../toolsets/mod.ts";

serveTools(builtinTools());
