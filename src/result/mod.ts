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
  type BoundedParse,
  deeperThanMarker,
  jsonNestingDepth,
  MAX_VALUE_DEPTH,
  parseJsonWithin,
  valueNestingDepth,
} from "./bounded_json.ts";
export {
  type ArtifactLinkBlock,
  type BriefBlock,
  briefOf,
  type DiffBlock,
  DISPLAY_BLOCK_TYPES,
  type DisplayBlock,
  type FileExcerptBlock,
  isKnownBlock,
  type KnownDisplayBlock,
  MAX_BRIEF_CHARACTERS,
  MAX_DISPLAY_BLOCK_BYTES,
  MAX_DISPLAY_BLOCKS,
  readDisplayBlocks,
  type ShellBlock,
  type TableBlock,
  type UnknownBlock,
} from "./display_blocks.ts";
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
