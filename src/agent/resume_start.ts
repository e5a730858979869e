/**
 * How the agent loop starts a resumed run (`kagent-run resume`): the recorded conversation, the
 * calls that waited for an approval run again first, then the model goes on.
 *
 * @module
 */

import type { ToolResult } from "../result/mod.ts";
import type { ToolCall } from "../runtime/mod.ts";
import type { ModelMessage } from "./model_provider.ts";
import type { UniqueCallIds } from "./unique_call_ids.ts";

/** Where a resumed run starts: see {@linkcode AgentOptions.resume}. */
export interface ResumeStart {
  /**
   * The conversation as recorded, up to and including the assistant message whose calls are
   * answered here (when `rerun` is not empty): the loop sends it as it is.
   */
  history: ModelMessage[];
  /**
   * The calls of the last assistant message of `history` that run again now (those that waited
   * for an approval, and those skipped because of them), in the message's order.
   */
  rerun: ToolCall[];
  /**
   * The recorded answers of the other calls of that message, by call id; every call of the
   * message is either here or in `rerun`.
   */
  answered: ReadonlyMap<string, Extract<ModelMessage, { role: "tool" }>>;
  /** The user's next message (`--task`), or null. */
  task: string | null;
  /** Model turns of the earlier segments: the segment's turns are numbered after them. */
  turns: number;
  /** Every call id the earlier segments used: a new call never reuses one. */
  usedCallIds: readonly string[];
}

/**
 * Puts the recorded conversation in `messages`, runs the calls that wait again with `runCalls`,
 * answers every call of the last assistant message in its order, then appends `task`.
 *
 * @param messages The loop's conversation (appended to).
 * @param resume Where the run starts.
 * @param runCalls Runs calls as one turn; resolves with one result a call, in order.
 * @param callIds The run's call ids: the earlier segments' are claimed.
 * @returns The results of the calls run again, in order.
 * @throws {TypeError} When a call of the last assistant message has neither a recorded answer nor
 *   a place in `rerun`.
 */
export async function startResumed(
  messages: ModelMessage[],
  resume: ResumeStart,
  runCalls: (calls: ToolCall[]) => Promise<ToolResult[]>,
  callIds: UniqueCallIds,
): Promise<ToolResult[]> {
  // A new call never reuses an id of the earlier segments.
  callIds.claim(resume.usedCallIds.map((id) => ({ id, name: "", arguments: "" })));
  messages.push(...resume.history);
  const last = resume.history.at(-1);
  const results = resume.rerun.length === 0 ? [] : await runCalls(resume.rerun);
  if (resume.rerun.length > 0 && last?.role === "assistant") {
    const fresh = new Map(resume.rerun.map((call, index) => [call.id, results[index]]));
    for (const call of last.tool_calls) {
      const result = fresh.get(call.id);
      if (result !== undefined) {
        messages.push({
          role: "tool",
          tool_call_id: call.id,
          name: call.name,
          content: result.output,
          result,
        });
        continue;
      }
      const answer = resume.answered.get(call.id);
      if (answer === undefined) {
        throw new TypeError(`Cannot resume the run: call "${call.id}" has no recorded answer`);
      }
      messages.push(answer);
    }
  }
  if (resume.task !== null) messages.push({ role: "user", content: resume.task });
  return results;
}
