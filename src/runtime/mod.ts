/**
 * The tool-call pipeline (the session in `src/session/` wires it together).
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
