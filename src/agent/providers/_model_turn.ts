/**
 * The last step every provider adapter shares: refuse an answer that was cut off before any tool
 * call, or that carries neither text nor tool calls; otherwise return it as a turn.
 *
 * @module
 */

import { ModelError, type ModelTurn, type TokenUsage } from "../model_provider.ts";
import type { ToolCall } from "../../runtime/tool_call.ts";

/**
 * Builds the turn, or throws `ModelError("provider_failed")`.
 *
 * @param model The configured model name, for messages.
 * @param stop The provider's stop field (`finish_reason` or `stop_reason`) and whether its value
 *   means "cut off at the token limit".
 */
export function finishTurn(
  model: string,
  text: string | null,
  toolCalls: ToolCall[],
  usage: TokenUsage | null,
  stop: { field: string; value: unknown; truncated: boolean },
): ModelTurn {
  if (stop.truncated && toolCalls.length === 0) {
    throw new ModelError(
      "provider_failed",
      `Cannot use model answer from "${model}": truncated at max_tokens`,
      { [stop.field]: stop.value },
    );
  }
  if (text === null && toolCalls.length === 0) {
    throw new ModelError(
      "provider_failed",
      `Cannot use model answer from "${model}": empty response (no text, no tool calls)`,
      { [stop.field]: typeof stop.value === "string" ? stop.value : null },
    );
  }
  return { text, tool_calls: toolCalls, usage };
}
