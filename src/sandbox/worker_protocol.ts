/**
 * Messages between the main thread and the tool Worker. Plain JSON-compatible data only.
 *
 * @module
 */

import type { PathGuardOptions } from "./path_guard.ts";
import type { RunLocations } from "../tools/tool_definition.ts";
import type { ToolOutcome } from "../tools/tool_result.ts";

/** Main thread → Worker. */
export type HostMessage =
  | { type: "init"; guard: PathGuardOptions; run: RunLocations }
  | {
    type: "execute";
    id: number;
    tool: string;
    tool_call_id: string;
    arguments: Record<string, unknown>;
  }
  | { type: "abort"; id: number; reason: string };

/** Worker → main thread. */
export type WorkerMessage =
  | { type: "ready"; tools: string[] }
  | { type: "init_failed"; message: string }
  | { type: "result"; id: number; outcome: ToolOutcome };
