/**
 * What a report shows, built from a read run folder ({@linkcode RunFiles}) and a verify verdict:
 * the run's facts, a timeline of model turns and tool calls, each call's decision and approval,
 * denials with their grants, edits as diffs, commands with exit codes and output excerpts,
 * deliverables and child agents. Plain data: the HTML and Markdown renderers escape every string.
 *
 * @module
 */

import type { ChildRun, RunFiles, RunRecord } from "./run_reading.ts";
import { type CallView, callView, commandOf, editOf } from "./call_view.ts";
import type { CommandView, EditView } from "./call_view.ts";
import { numberField, recordField, recordsField, stringField, timeField } from "./_fields.ts";
import type { ReportVerdict } from "./report_verdict.ts";
import { buildRunSummary, type RunSummary } from "./run_summary.ts";
import { recordedCalls } from "./_run_calls.ts";

/** A model turn on the timeline. */
export interface TurnView {
  /** The turn's number, from 1. */
  turn: number;
  /** Milliseconds from the run's start to the model's answer, or null. */
  at_ms: number | null;
  /** Milliseconds from the record before it (the last result sent) to the answer, or null. */
  duration_ms: number | null;
  /** The turn's text, or null. */
  text: string | null;
  /** `end`, `truncated`, `refused`… or null. */
  stop: string | null;
  /** Token counts, when the provider reported them. */
  usage: { input_tokens: number | null; output_tokens: number | null } | null;
  /** Numbers ({@linkcode CallView.number}) of the calls the turn asked for, in order. */
  calls: number[];
}

/** A denied call and how to let exactly it through next time. */
export interface DenialView {
  /** The call's number ({@linkcode CallView.number}). */
  call: number;
  tool: string;
  error_type: string | null;
  rule: string | null;
  layer: string | null;
  /** Why, as the run recorded it. */
  message: string;
  /** `--approve '<grant>'`, for a call that needed an approval nobody gave; else null. */
  approve_argument: string | null;
  /** The whole command that re-runs the run with that grant, or null. */
  replay: string | null;
}

/** A child agent's run, with a link to its folder. */
export interface ChildView {
  name: string;
  task: string | null;
  /** The child's end reason, or null (no `run.completed`). */
  end_reason: string | null;
  /** Relative link (from the run folder) to its report, or to its events when it has none. */
  link: string;
}

/**
 * Everything a report shows. Its header facts (run id, task, end, duration, turns, counts,
 * tokens, answer, error) are those of {@linkcode ReportModel.summary}, the run's one summary.
 */
export interface ReportModel {
  /** The run's summary, as `--output json` and the step summary show it. */
  summary: RunSummary;
  run_id: string;
  task: string | null;
  /** `provider` or `provider model`, e.g. `openai gpt-5.5`; null without a model. */
  model: string | null;
  /** ISO timestamp of the run's start, or null. */
  started_at: string | null;
  /** The workspace's absolute path, the config file's path and the policy's hash, when recorded. */
  workspace: string | null;
  config: string | null;
  policy_hash: string | null;
  /**
   * Tokens the model read and wrote: the summary's usage, or (a run without `run.completed`)
   * summed over the turns that reported them; null if none did.
   */
  tokens: { input: number; output: number } | null;
  /** The run folder's own files present (`events.jsonl`, `logs/tools.jsonl`…), to link. */
  run_files: string[];
  /** From `run.completed`; null when the run has none (killed, or still running). */
  end_reason: string | null;
  /** Over every segment of a resumed run ({@linkcode RunSummary.duration_ms}). */
  duration_ms: number | null;
  turns: number | null;
  counts: { calls: number; denied: number; failed: number; skipped: number };
  final_text: string | null;
  /** The model error's message, when the run ended `model_error`. */
  error: string | null;
  verdict: ReportVerdict;
  timeline: TurnView[];
  calls: CallView[];
  denials: DenialView[];
  edits: EditView[];
  commands: CommandView[];
  /** Files of `deliverables/`, paths relative to the run folder. */
  deliverables: { path: string; bytes: number }[];
  children: ChildView[];
  /** What could not be read, and records that do not fit (calls missing from a log). */
  problems: string[];
}

/**
 * Builds the report's model of a run.
 *
 * @param files The run folder as read by `readRunFolder`.
 * @param verdict What `kagent-run verify` found, shown at the top.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildReportModel } from "./report_model.ts";
 * const model = buildReportModel({
 *   dir: "/runs/r1", info: null, tools: [], errors: [], pending: [], deliverables: [],
 *   children: [], texts: new Map(), run_files: [], reports: null, config: null, problems: [],
 *   events: [{ type: "run.started", ts: "2026-01-01T00:00:00.000Z", run_id: "r1", task: "t" }],
 * }, { status: "not_checked", headline: "not checked", problems: [] });
 * assert.ok(model.task === "t" && model.end_reason === null);
 * ```
 */
export function buildReportModel(files: RunFiles, verdict: ReportVerdict): ReportModel {
  const runStarted = files.events.find((event) => event.type === "run.started") ?? null;
  const summary = buildRunSummary(files);
  const info = files.info;
  const startTime = timeField(runStarted?.ts) ?? timeField(info?.started_at);
  const problems = [...files.problems];

  const errorsById = new Map<string, RunRecord>();
  for (const error of files.errors) {
    const id = stringField(error.tool_call_id);
    if (id !== null) errorsById.set(id, error);
  }
  const turnOf = new Map<string, number>();
  const responded = files.events.filter((event) => event.type === "model.responded");
  for (const event of responded) {
    const turn = numberField(event.turn);
    for (const call of recordsField(event.tool_calls)) {
      const id = stringField(call.id);
      if (id !== null && turn !== null && !turnOf.has(id)) turnOf.set(id, turn);
    }
  }
  const approvalEvents = files.events.filter((event) =>
    typeof event.type === "string" && event.type.startsWith("approval.")
  );
  // The calls the summary counts, in the same order: a call that has events but no record is a
  // problem.
  const recorded = recordedCalls(files);
  const calls = recorded.calls.map(({ record, event }, index) => {
    const id = stringField(record.tool_call_id) ?? "";
    return callView(record, index + 1, {
      startTime,
      turn: turnOf.get(id) ?? null,
      event,
      error: errorsById.get(id) ?? null,
      approvals: approvalEvents.filter((event) => event.tool_call_id === id),
    });
  });
  for (const id of recorded.unrecorded) {
    problems.push(`logs/tools.jsonl: no record of call "${id}", which events.jsonl ended`);
  }
  const numberOf = new Map(calls.map((call) => [call.id, call.number]));

  // Each turn's answer and the record just before it (the last result the model was sent).
  const answers = files.events.flatMap((event, position) =>
    event.type === "model.responded" ? [{ event, previous: files.events[position - 1] }] : []
  );
  const timeline: TurnView[] = answers.map(({ event, previous }) => {
    const at = timeField(event.ts);
    const before = timeField(previous?.ts);
    const usage = recordField(event.usage);
    return {
      turn: numberField(event.turn) ?? 0,
      at_ms: at === null || startTime === null ? null : at - startTime,
      duration_ms: at === null || before === null ? null : Math.max(0, at - before),
      text: stringField(event.text),
      stop: stringField(recordField(event.stop)?.reason),
      usage: usage === null ? null : {
        input_tokens: numberField(usage.input_tokens),
        output_tokens: numberField(usage.output_tokens),
      },
      calls: recordsField(event.tool_calls)
        .map((call) => numberOf.get(stringField(call.id) ?? ""))
        .filter((number): number is number => number !== undefined),
    };
  });

  const model = recordField(runStarted?.model) ?? recordField(info?.model);
  const provider = stringField(model?.provider);
  const modelName = stringField(model?.model);
  return {
    summary,
    run_id: summary.run_id,
    task: summary.task,
    model: provider === null ? null : modelName === null ? provider : `${provider} ${modelName}`,
    started_at: stringField(runStarted?.ts) ?? stringField(info?.started_at),
    workspace: stringField(runStarted?.workspace) ?? stringField(info?.workspace),
    config: stringField(runStarted?.config) ?? stringField(recordField(info?.config)?.path),
    policy_hash: stringField(runStarted?.policy_hash),
    tokens: summary.usage === null
      ? tokensOf(timeline)
      : { input: summary.usage.input_tokens, output: summary.usage.output_tokens },
    run_files: files.run_files,
    end_reason: summary.end_reason,
    duration_ms: summary.duration_ms,
    turns: summary.turns,
    counts: summary.counts,
    final_text: summary.final_text,
    error: summary.error,
    verdict,
    timeline,
    calls,
    denials: calls.filter((call) => call.status === "denied").map((call) =>
      denialOf(call, errorsById.get(call.id) ?? null, files.pending)
    ),
    edits: calls.map((call) => editOf(call, files.texts)).filter((edit): edit is EditView =>
      edit !== null
    ),
    commands: calls.map(commandOf).filter((command): command is CommandView => command !== null),
    deliverables: files.deliverables,
    children: files.children.map(childView),
    problems,
  };
}

function tokensOf(timeline: readonly TurnView[]): { input: number; output: number } | null {
  const reported = timeline.filter((turn) => turn.usage !== null);
  if (reported.length === 0) return null;
  return {
    input: reported.reduce((sum, turn) => sum + (turn.usage?.input_tokens ?? 0), 0),
    output: reported.reduce((sum, turn) => sum + (turn.usage?.output_tokens ?? 0), 0),
  };
}

function denialOf(call: CallView, error: RunRecord | null, pending: RunRecord[]): DenialView {
  const details = recordField(error?.details);
  // A pending.jsonl line is the approval request with its grant, `approve_argument` and `replay`
  // (older tests nest the request under `request`).
  const waiting = pending.findLast((entry) =>
    (stringField(entry.tool_call_id) ?? stringField(recordField(entry.request)?.tool_call_id)) ===
      call.id
  );
  return {
    call: call.number,
    tool: call.tool,
    error_type: call.error_type,
    rule: call.decision?.rule ?? stringField(details?.rule),
    layer: call.decision?.layer ?? stringField(details?.layer),
    message: stringField(error?.message) ?? call.summary,
    approve_argument: stringField(details?.approve_argument) ??
      stringField(waiting?.approve_argument) ??
      stringField(recordField(waiting?.request)?.approve_argument),
    replay: stringField(details?.replay) ?? stringField(waiting?.replay),
  };
}

function childView(child: ChildRun): ChildView {
  const folder = `agents/${child.name}`;
  return {
    name: child.name,
    task: stringField(child.info?.task),
    end_reason: stringField(child.completed?.end_reason),
    link: child.has_report ? `${folder}/report.html` : `${folder}/events.jsonl`,
  };
}
