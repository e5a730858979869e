/**
 * The result vocabulary every layer speaks: what a tool call answers ({@linkcode ToolResult},
 * {@linkcode ToolOutcome}) and the closed set of error types ({@linkcode ERROR_TYPES}). It sits
 * below the sandbox and the tool contract, which both answer in it.
 *
 * @example
 * ```ts
 * import { failure, isErrorType } from "./mod.ts";
 * console.assert(isErrorType(failure("io_error", "Cannot read \"a\": gone").error?.type));
 * ```
 *
 * @module
 */

export {
  type ArtifactRef,
  ERROR_TYPES,
  type ErrorType,
  failure,
  isErrorType,
  isToolOutcome,
  type NarrowingRequest,
  success,
  type ToolError,
  type ToolOutcome,
  type ToolResult,
  toOutcome,
} from "./tool_result.ts";
