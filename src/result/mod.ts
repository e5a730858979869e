/**
 * The result vocabulary every layer speaks: what a tool call answers ({@linkcode ToolResult},
 * {@linkcode ToolOutcome}), the closed set of error types ({@linkcode ERROR_TYPES}) and the display
 * blocks a result shows a person ({@linkcode DisplayBlock}, read through
 * {@linkcode readDisplayBlocks}), and the one depth bound every walk over model-, tool- and
 * MCP-controlled data keeps ({@linkcode MAX_VALUE_DEPTH}, {@linkcode parseJsonWithin}). It sits below the sandbox and the tool contract, which both
 * answer in it.
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
  deeperThanMarker,
  jsonNestingDepth,
  MAX_VALUE_DEPTH,
  parseJsonWithin,
  valueNestingDepth,
} from "./bounded_json.ts";
export {
  type ArtifactLinkBlock,
  briefOf,
  type DiffBlock,
  type DisplayBlock,
  type FileExcerptBlock,
  isKnownBlock,
  type KnownDisplayBlock,
  readDisplayBlocks,
  type ShellBlock,
  type TableBlock,
} from "./display_blocks.ts";
export {
  type ArtifactRef,
  type ErrorType,
  failure,
  isErrorType,
  type NarrowingRequest,
  success,
  type ToolError,
  type ToolOutcome,
  type ToolResult,
  toOutcome,
} from "./tool_result.ts";
