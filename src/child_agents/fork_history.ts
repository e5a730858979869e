/**
 * What a fork starts from: a copy of its parent's conversation so far, cut before the turn still
 * running (the one whose calls, the fork's own among them, have no results yet), so that every
 * tool call in the copy is answered, as providers require.
 *
 * @module
 */

import type { ModelMessage } from "../agent/mod.ts";

/**
 * A deep copy of `conversation` without its trailing turn when that turn has calls not yet
 * answered.
 *
 * @param conversation The parent's messages, oldest first.
 * @returns The messages a fork's model sees before its task.
 * @example
 * ```ts
 * import { forkHistory } from "./fork_history.ts";
 * const history = forkHistory([
 *   { role: "user", content: "Review the repository" },
 *   { role: "assistant", content: null, tool_calls: [{ id: "f", name: "agent.fork_agent", arguments: "{}" }] },
 * ]);
 * console.assert(history.length === 1);
 * ```
 */
export function forkHistory(conversation: readonly ModelMessage[]): ModelMessage[] {
  let end = conversation.length;
  for (let index = conversation.length - 1; index >= 0; index--) {
    const message = conversation[index] as ModelMessage;
    if (message.role !== "assistant" || message.tool_calls.length === 0) continue;
    const answered = new Set(
      conversation.slice(index + 1).flatMap((later) =>
        later.role === "tool" ? [later.tool_call_id] : []
      ),
    );
    if (message.tool_calls.some((call) => !answered.has(call.id))) end = index;
    break;
  }
  return structuredClone(conversation.slice(0, end));
}
