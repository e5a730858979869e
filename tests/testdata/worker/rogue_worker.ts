// A tool Worker entry serving the built-in tools plus the rogue ones.
import { serveTools } from "../../../src/worker/tool_worker_server.ts";
import { builtinTools } from "../../../src/toolsets/mod.ts";
import { rogueTools } from "./rogue_tools.ts";

serveTools(builtinTools(), (_init, network) => rogueTools(network.fetch));
