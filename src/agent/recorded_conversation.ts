/**
 * The conversation of a sealed run, read back from its folder only (`events.jsonl`,
 * `logs/tools.jsonl`, `artifacts/`): what `kagent-run resume` continues is what the seal proves.
 *
 * The messages are rebuilt as the loop built them: the task, each usable turn (`model.responded`
 * with stop `end` or `paused`) with its calls' arguments and its provider content (Anthropic
 * thinking blocks, OpenAI reasoning items) as recorded, each call's answer in the turn's order (the
 * output the model received, inline or from its artifact), the `Please continue` of an empty
 * answer, and each earlier resume (its re-run answers replace the refused ones, its `--task`
 * follows).
 *
 * @module
 */

import { join } from "node:path";
import type { ErrorType, ToolResult } from "../result/mod.ts";
import type { ToolCall } from "../runtime/mod.ts";
import type { ModelMessage } from "./model_provider.ts";

/** The user message of an empty answer's retry (the loop's `EMPTY_RESPONSE_CONTINUATION`). */
const EMPTY_RESPONSE_CONTINUATION = "Please continue";

type ToolMessage = Extract<ModelMessage, { role: "tool" }>;
type AssistantMessage = Extract<ModelMessage, { role: "assistant" }>;

/** A sealed run's conversation and where its last segment stopped. */
export interface RecordedConversation {
  /** Every message the model was (or would next be) sent, in order. */
  messages: ModelMessage[];
  /** Model turns over every segment (the last `model.responded` turn number). */
  turns: number;
  /** Model answers received over every segment, usable or not (a script plan's lines used). */
  answers: number;
  /** How the last segment ended (its `run.completed`'s `end_reason`); null without one. */
  endReason: string | null;
  /** Segments so far: 1 plus the `run.resumed` events. */
  segments: number;
  /** The model's provider and name as `run.started` recorded them. */
  model: { provider: string; model: string | null } | null;
  /** Every call id used so far. */
  callIds: string[];
  /**
   * The first turn of the last segment with a call that waited for an approval nobody gave
   * (`approval_required`); null when there is none.
   */
  waiting: WaitingTurn | null;
}

/** A turn whose calls wait for an approval. */
export interface WaitingTurn {
  turn: number;
  /** The conversation up to and including the turn's assistant message. */
  history: ModelMessage[];
  /** The turn's calls that run again: those refused `approval_required`, those skipped. */
  rerun: ToolCall[];
  /** The recorded answers of the turn's other calls, by id. */
  answered: Map<string, ToolMessage>;
}

interface ToolRecord {
  tool: string;
  tool_call_id: string;
  arguments: string | null;
  arguments_artifact: { ref: string } | null;
  result: {
    ok: boolean;
    summary: string;
    error_type?: ErrorType;
    output: string | null;
    output_artifact: { ref: string } | null;
  };
  executed?: boolean;
  duration_ms: number;
  events: { started: number | null; ended: number };
}

interface TurnState {
  turn: number;
  seq: number;
  /** Index of the turn's assistant message in `messages`. */
  index: number;
  calls: ToolCall[];
  /** The segment that last answered the turn's calls (a resume answers them again). */
  segment: number;
  /** Where a call's latest answer follows, when a resume answered it again: its event's seq. */
  answeredAfter: Map<string, number>;
}

/**
 * Reads the conversation of the run in `runDir`.
 *
 * @param runDir The run folder; it should have been verified first (`verifyRun`).
 * @returns See {@linkcode RecordedConversation}.
 * @throws {TypeError} When the records do not make a conversation: a line that is not JSON, a call
 *   without its record, an artifact outside `artifacts/`. The message names the file and why.
 * @example
 * ```ts ignore
 * const recorded = await readRecordedConversation("runs/20260101T000000Z-abcdef");
 * console.log(recorded.messages.length, recorded.endReason);
 * ```
 */
export async function readRecordedConversation(runDir: string): Promise<RecordedConversation> {
  const events = await readLines(runDir, "events.jsonl");
  const records = (await readLines(runDir, "logs/tools.jsonl")) as unknown as ToolRecord[];
  // Each call id's records, in file order: a call answered again by a resume has several.
  const byId = new Map<string, ToolRecord[]>();
  for (const record of records) {
    const list = byId.get(record.tool_call_id) ?? [];
    list.push(record);
    byId.set(record.tool_call_id, list);
  }
  const recordAfter = (id: string, seq: number): ToolRecord => {
    const found = byId.get(id)?.find((record) => record.events.ended > seq);
    if (found === undefined) {
      throw new TypeError(`Cannot rebuild the conversation: call "${id}" has no record`);
    }
    return found;
  };
  const answer = async (call: ToolCall, seq: number): Promise<ToolMessage> => {
    const record = recordAfter(call.id, seq);
    const output = record.result.output ??
      await readArtifact(runDir, record.result.output_artifact?.ref);
    const result: ToolResult = {
      tool_call_id: call.id,
      tool: record.tool,
      ok: record.result.ok,
      summary: record.result.summary,
      output,
      data: null,
      artifacts: [],
      error: record.result.ok ? null : {
        type: record.result.error_type ?? "io_error",
        message: record.result.summary,
        details: {},
      },
      duration_ms: record.duration_ms,
    };
    return { role: "tool", tool_call_id: call.id, name: call.name, content: output, result };
  };
  // The child agent each agent-start call started last (a resume's re-run starts a new one).
  const childOf = new Map<string, string>();
  for (const event of events) {
    if (event.type !== "agent.started") continue;
    const child = event.child_run_id;
    if (typeof child === "string" && RUN_ID.test(child)) {
      childOf.set(String(event.tool_call_id), child);
    }
  }
  const childWaits = async (callId: string): Promise<boolean> => {
    const child = childOf.get(callId);
    return child !== undefined && await hasPendingApprovals(join(runDir, "agents", child));
  };
  const messages: ModelMessage[] = [];
  const turns = new Map<number, TurnState>();
  const state: Omit<RecordedConversation, "messages" | "waiting"> = {
    turns: 0,
    answers: 0,
    endReason: null,
    segments: 1,
    model: null,
    callIds: [],
  };
  for (const event of events) {
    const seq = event.seq as number;
    switch (event.type) {
      case "run.started":
        state.model = event.model as RecordedConversation["model"];
        if (typeof event.task === "string") messages.push({ role: "user", content: event.task });
        break;
      case "run.resumed": {
        state.segments = event.segment as number;
        state.endReason = null;
        const after = turns.get(event.resumed_after_turn as number);
        if (after !== undefined) {
          messages.length = after.index + 1;
          for (const id of event.rerun as string[]) after.answeredAfter.set(id, seq);
          after.segment = state.segments;
          for (const call of after.calls) {
            messages.push(await answer(call, after.answeredAfter.get(call.id) ?? after.seq));
          }
        }
        if (typeof event.task === "string") messages.push({ role: "user", content: event.task });
        break;
      }
      case "model.retried":
        if (event.reason === "empty_response") {
          messages.push({ role: "user", content: EMPTY_RESPONSE_CONTINUATION });
        }
        break;
      case "model.responded": {
        state.answers += 1;
        state.turns = event.turn as number;
        const stop = (event.stop as { reason: string }).reason;
        if (stop !== "end" && stop !== "paused") break;
        const calls: ToolCall[] = [];
        for (const call of event.tool_calls as { id: string; name: string; provider?: never }[]) {
          const record = recordAfter(call.id, seq);
          calls.push({
            id: call.id,
            name: call.name,
            arguments: record.arguments ??
              await readArtifact(runDir, record.arguments_artifact?.ref),
            ...(call.provider === undefined ? {} : { provider: call.provider }),
          });
          state.callIds.push(call.id);
        }
        const message: AssistantMessage = {
          role: "assistant",
          content: event.text as string | null,
          tool_calls: calls,
          ...("provider_content" in event ? { provider_content: event.provider_content } : {}),
        };
        messages.push(message);
        turns.set(state.turns, {
          turn: state.turns,
          seq,
          index: messages.length - 1,
          calls,
          segment: state.segments,
          answeredAfter: new Map(),
        });
        for (const call of calls) messages.push(await answer(call, seq));
        break;
      }
      case "run.completed":
        state.endReason = event.end_reason as string;
        break;
    }
  }
  return {
    ...state,
    messages,
    waiting: await waitingTurn(turns, state.segments, messages, answer, childWaits),
  };
}

/**
 * The first turn of the last segment with a call that waits: refused `approval_required`, or an
 * agent-start call whose child agent (or a descendant) recorded calls waiting for an approval
 * (`approvals/pending.jsonl`): that call runs again, and its new child gets the root's grants.
 */
async function waitingTurn(
  turns: Map<number, TurnState>,
  segment: number,
  messages: ModelMessage[],
  answer: (call: ToolCall, seq: number) => Promise<ToolMessage>,
  childWaits: (callId: string) => Promise<boolean>,
): Promise<WaitingTurn | null> {
  for (const turn of [...turns.values()].filter((entry) => entry.segment === segment)) {
    const answers = await Promise.all(
      turn.calls.map((call) => answer(call, turn.answeredAfter.get(call.id) ?? turn.seq)),
    );
    const asked = await Promise.all(
      answers.map(async (message) =>
        message.result.error?.type === "approval_required" ||
        await childWaits(message.tool_call_id)
      ),
    );
    if (!asked.some((value) => value)) continue;
    const waits = (index: number) =>
      asked[index] === true || answers[index]?.result.error?.type === "skipped";
    return {
      turn: turn.turn,
      history: messages.slice(0, turn.index + 1),
      rerun: turn.calls.filter((_call, index) => waits(index)),
      answered: new Map(
        answers.filter((_message, index) => !waits(index)).map((message) => [
          message.tool_call_id,
          message,
        ]),
      ),
    };
  }
  return null;
}

/** A run id as a folder name: no separator, no `..`. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Whether a child run folder, or one of its own children at any depth, recorded a call waiting
 * for an approval (a non-empty `approvals/pending.jsonl`). Links are not followed.
 */
async function hasPendingApprovals(childDir: string): Promise<boolean> {
  try {
    const pending = await Deno.lstat(join(childDir, "approvals", "pending.jsonl"));
    if (pending.isFile && pending.size > 0) return true;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  try {
    for await (const entry of Deno.readDir(join(childDir, "agents"))) {
      if (entry.isDirectory && await hasPendingApprovals(join(childDir, "agents", entry.name))) {
        return true;
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return false;
}

async function readLines(runDir: string, file: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(join(runDir, file));
  return text.split("\n").filter((line) => line !== "").map((line, index) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new TypeError(
        `Cannot rebuild the conversation: line ${index + 1} of "${file}" is not JSON`,
      );
    }
  });
}

/** The text of an artifact the records name (`artifacts/<sha256>…`, nothing else). */
async function readArtifact(runDir: string, ref: string | undefined): Promise<string> {
  if (ref === undefined || !/^artifacts\/[0-9a-f]{64}[A-Za-z0-9._-]*$/.test(ref)) {
    throw new TypeError(
      `Cannot rebuild the conversation: the artifact "${ref ?? ""}" is not one of artifacts/`,
    );
  }
  return await Deno.readTextFile(join(runDir, ref));
}
