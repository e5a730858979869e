/**
 * The tool-call pipeline and the run session that wires it together.
 *
 * @module
 */

export * from "./tool_call.ts";
export * from "./parse_arguments.ts";
export * from "./decide.ts";
export * from "./approve.ts";
export * from "./shape.ts";
export * from "./record.ts";
export * from "./tool_runtime.ts";
export * from "./run_session.ts";
