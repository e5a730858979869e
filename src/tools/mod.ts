/**
 * The tool contract: definitions, results, errors.
 *
 * @module
 */

export * from "./tool_result.ts";
export * from "./tool_definition.ts";
