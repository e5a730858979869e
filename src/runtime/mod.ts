/**
 * The tool-call pipeline (the session in `src/session/` wires it together).
 *
 * @module
 */

export { type ProviderCallOrigin, type ToolCall } from "./tool_call.ts";
export {
  type ArgumentLimits,
  DEFAULT_ARGUMENT_LIMITS,
  nestingDepth,
  parseArguments,
} from "./parse_arguments.ts";
export { type CommandResolutionContext, decide, type DecisionOutcome } from "./decide.ts";
export { approve } from "./approve.ts";
export { shape, type ShapedOutcome } from "./shape.ts";
export {
  DISPLAY_EXCERPT_LINES,
  DISPLAY_TABLE_ROWS,
  DISPLAY_TEXT_LINES,
  displayFor,
} from "./display_for.ts";
export {
  type CallRecord,
  eventTypeOf,
  INLINE_RECORD_BYTES,
  record,
  type RecordKeeping,
  recordNotRun,
} from "./record.ts";
export { ToolRuntime, type ToolRuntimeOptions } from "./tool_runtime.ts";
export { endCommandLeftovers, type MarkerSweep, openMarkerSweep } from "./command_leftovers.ts";
export { type MainThreadTools } from "./main_thread_tools.ts";
export { runTurn, unrunResult } from "./scheduler.ts";
export { countResults, type ResultCounts } from "./result_counts.ts";
