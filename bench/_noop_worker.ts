/**
 * A tool Worker entry serving one tool that does nothing, so `profile_phases.ts` can time the
 * Worker round trip (post, structured clone, answer) without any tool work.
 *
 * @module
 */

import { z } from "zod";
import { serveTools } from "../src/worker/tool_worker_server.ts";
import { defineTool } from "../src/tools/tool_definition.ts";

/** `bench.noop`: returns "ok". */
export const noopTool = defineTool({
  name: "bench.noop",
  description: "Does nothing",
  parameters: z.strictObject({}),
  permission: "readonly",
  tags: ["bench"],
  handler: () => "ok",
});

serveTools([noopTool]);
