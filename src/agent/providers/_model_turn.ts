/**
 * The last step every provider adapter shares: refuse an answer that carries nothing (no text, no
 * tool calls) although it claims a normal end; otherwise return it as a turn with its
 * {@linkcode TurnStop}. A turn that ended badly (truncated, refused, context window exceeded) is
 * returned, never thrown: the loop records its tool calls as not executed and ends the run.
 *
 * @module
 */

import { ModelError, type ModelTurn, type TokenUsage, type TurnStop } from "../model_provider.ts";
import type { ToolCall } from "../../runtime/mod.ts";

/**
 * Builds the turn, or throws `ModelError("provider_failed")` with `details.empty_response: true`
 * for an empty answer that ended normally ("empty response" is never said of a refusal or a
 * cut-off answer); the loop asks the model once to continue before it ends the run.
 *
 * @param model The configured model name, for messages.
 * @param stop How the turn ended, read by the adapter from the provider's stop field.
 * @param providerContent A paused turn's raw content, kept to send back.
 */
export function finishTurn(
  model: string,
  text: string | null,
  toolCalls: ToolCall[],
  usage: TokenUsage | null,
  stop: TurnStop,
  providerContent?: unknown,
): ModelTurn {
  if (stop.reason === "end" && text === null && toolCalls.length === 0) {
    throw new ModelError(
      "provider_failed",
      `Cannot use model answer from "${model}": empty response (no text, no tool calls)`,
      { ...stop.provider, empty_response: true },
    );
  }
  return {
    text,
    tool_calls: toolCalls,
    usage,
    stop,
    ...(providerContent === undefined ? {} : { provider_content: providerContent }),
  };
}
