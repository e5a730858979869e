/**
 * The tool-call pipeline (the session in `src/session/` wires it together).
 *
 * @module
 */

export { type ToolCall } from "./tool_call.ts";

export { type CommandResolutionContext } from "./decide.ts";

export { eventTypeOf } from "./record.ts";
export { ToolRuntime } from "./tool_runtime.ts";
export { openMarkerSweep } from "./command_leftovers.ts";
export { type MainThreadTools } from "./main_thread_tools.ts";
export { runTurn, unrunResult } from "./scheduler.ts";
export { countResults, type ResultCounts } from "./result_counts.ts";
