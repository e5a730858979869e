/**
 * One finished run, read back from its sealed folder: the facts every output of a run shows
 * (`--output json`, the `run.ended` line of `--output stream-json`, the GitHub step summary,
 * annotations and step outputs, the HTML and Markdown reports). What CI shows is what the folder
 * proves: nothing here comes from the process that ran it. The folder was redacted by the run's
 * recorder; outputs still pass their text through the run's redactor when they print it.
 *
 * @module
 */

import * as nodePath from "node:path";
import { type DisplayBlock, readDisplayBlocks } from "../result/mod.ts";
import { approveArgument } from "../approval/mod.ts";
import { readRunFolder, type RunFiles, type RunRecord } from "./run_reading.ts";
import type { ChildRun } from "./run_reading.ts";
import { type CallStatus, callStatus } from "./call_view.ts";
import { recordedCalls } from "./_run_calls.ts";
import { numberField, recordField, stringField, stringsField } from "./_fields.ts";
import { costUsd, recordedPricing, sumUsage, type UsageJson } from "./run_usage.ts";

/** The version of {@linkcode RunSummary}'s shape; a change that is not an addition raises it. */
export const RUN_SUMMARY_VERSION = 1;

/** One tool call of the run, as the step summary's table and the annotations show it. */
export interface SummaryCall {
  /** The call's id (unique in the run). */
  id: string;
  /** The canonical tool name, as the model gave it (an unknown tool's too). */
  tool: string;
  /** How it ended: `completed`, `failed`, `denied` or `skipped`. */
  status: CallStatus;
  /** Whether it completed. */
  ok: boolean;
  /** The error type (`approval_required`, `exit_nonzero`…), or null. */
  error_type: string | null;
  /** The result's summary line (redacted). */
  summary: string;
  /** The display blocks a person is shown (`[]` for runs recorded before them). */
  display: DisplayBlock[];
}

/** A call that waits for an approval nobody could give (`approvals/pending.jsonl`). */
export interface SummaryPending {
  /** The call's id. */
  tool_call_id: string;
  /** The tool it calls. */
  tool: string;
  /** Its arguments as the approver would see them (long strings summarised), or null. */
  arguments_summary: unknown;
  /** Why it asked. */
  reason: string;
  /** The policy rule that asked, e.g. `default:write-ask`. */
  rule: string;
  /** The grant that allows exactly this call (`{tool, scope, policy}`). */
  grant: unknown;
  /** `--approve '<grant>'` as recorded (else made from the grant), or null without a grant. */
  approve_argument: string | null;
}

/** The `--output-schema` check of the final answer (`run.completed`'s `output_schema`). */
export interface SummaryAnswerCheck {
  /** The schema file as given. */
  schema: string;
  valid: boolean;
  /** The parsed answer when it matches, else null. */
  value: unknown;
  /** Why not, one line each; empty when valid. */
  errors: string[];
}

/** Everything an output of a finished run shows; see the module's text. */
export interface RunSummary {
  /** {@linkcode RUN_SUMMARY_VERSION}. */
  summary_version: typeof RUN_SUMMARY_VERSION;
  /** The run's id (`run.started`, else `run.json`, else the folder's name). */
  run_id: string;
  /** Absolute path of the run folder. */
  run_dir: string;
  /** The task: the last resume's `--task` when one was given, else the run's; null if unknown. */
  task: string | null;
  /** The last segment's end reason; null when it has no `run.completed` (killed, running). */
  end_reason: string | null;
  /** The model's last text (as recorded: redacted), or null. */
  final_text: string | null;
  /** The model error's message, its code and details, or null. */
  error: string | null;
  error_code: string | null;
  error_details: unknown;
  /** Model turns of the whole run (numbered on across segments), or null. */
  turns: number | null;
  /** The calls of {@linkcode RunSummary.calls} by how they ended, over every segment. */
  counts: { calls: number; denied: number; failed: number; skipped: number };
  /** Milliseconds, summed over the segments' `run.completed`; null when none has one. */
  duration_ms: number | null;
  /** 1, plus one a resume (`run.resumed`). */
  segments: number;
  /** Tokens summed over the segments, or null when the provider reported none. */
  usage: UsageJson | null;
  /** US dollars at the recorded config's `model.pricing`, or null (no prices, no usage). */
  cost_usd: number | null;
  /** The last segment's `--output-schema` check, or null without one. */
  output_schema: SummaryAnswerCheck | null;
  /** Files of `deliverables/`, relative to it, sorted. */
  deliverables: string[];
  /** Every recorded call, in the order they started. */
  calls: SummaryCall[];
  /**
   * The calls of the last segment that wait for an approval: the main agent's, then its child
   * agents' (read from `agents/<id>/approvals/pending.jsonl`, children of children first).
   */
  pending: SummaryPending[];
  /** The command that re-runs (or resumes) the run with every pending grant, or null. */
  replay: string | null;
  /** The report files of this sealed run (absolute paths), when written; else null. */
  report_files: { html: string; markdown: string } | null;
  /** What could not be read (`readRunFolder`'s problems). */
  problems: string[];
}

/**
 * Reads the summary of the run in `dir`, after it was sealed.
 *
 * @param dir The run folder (absolute or relative).
 * @returns The run's {@linkcode RunSummary}.
 * @throws {RunFolderError} when `dir` is not a folder or not a run folder (neither `run.json` nor
 * `events.jsonl`).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readRunSummary } from "./run_summary.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(
 *   `${dir}/events.jsonl`,
 *   '{"type":"run.started","run_id":"r1","task":"t"}\n' +
 *     '{"type":"run.completed","end_reason":"completed","turns":1,"duration_ms":40}\n',
 * );
 * const summary = await readRunSummary(dir);
 * assert.deepEqual([summary.end_reason, summary.duration_ms, summary.segments], ["completed", 40, 1]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readRunSummary(dir: string): Promise<RunSummary> {
  return buildRunSummary(await readRunFolder(dir));
}

/**
 * The summary of a run folder already read (`readRunFolder`): `readRunSummary` and the reports
 * build it from the same reading.
 */
export function buildRunSummary(files: RunFiles): RunSummary {
  const events = files.events;
  const started = events.find((event) => event.type === "run.started") ?? null;
  const lastResume = events.findLastIndex((event) => event.type === "run.resumed");
  const resumed = lastResume === -1 ? null : events[lastResume] ?? null;
  const completions = events.filter((event) => event.type === "run.completed");
  // The last segment's end: a run.completed after the last resume (none: killed, or running).
  const endIndex = events.findLastIndex((event) => event.type === "run.completed");
  const completed = endIndex > lastResume ? events[endIndex] ?? null : null;
  const calls = recordedCalls(files).calls.map(({ record, event }): SummaryCall => {
    const result = recordField(record.result);
    const status = callStatus(record, event);
    return {
      id: stringField(record.tool_call_id) ?? "",
      tool: stringField(record.tool) ?? "",
      status,
      ok: status === "completed",
      error_type: stringField(result?.error_type),
      summary: stringField(result?.summary) ?? "",
      display: readDisplayBlocks(result?.display),
    };
  });
  const durations = completions.map((event) => numberField(event.duration_ms));
  const usage = sumUsage(completions.map((event) => event.usage));
  const answer = recordField(completed?.output_schema);
  return {
    summary_version: RUN_SUMMARY_VERSION,
    run_id: stringField(started?.run_id) ?? stringField(files.info?.run_id) ??
      nodePath.basename(files.dir),
    run_dir: files.dir,
    task: stringField(resumed?.task) ?? stringField(started?.task) ??
      stringField(files.info?.task),
    end_reason: stringField(completed?.end_reason),
    final_text: stringField(completed?.final_text),
    error: stringField(completed?.error),
    error_code: stringField(completed?.error_code),
    error_details: completed?.error_details ?? null,
    turns: numberField(completed?.turns),
    counts: {
      calls: calls.length,
      denied: calls.filter((call) => call.status === "denied").length,
      failed: calls.filter((call) => call.status === "failed").length,
      skipped: calls.filter((call) => call.status === "skipped").length,
    },
    duration_ms: durations.some((duration) => duration !== null)
      ? durations.reduce((sum: number, duration) => sum + (duration ?? 0), 0)
      : null,
    segments: 1 + events.filter((event) => event.type === "run.resumed").length,
    usage,
    cost_usd: costUsd(usage, recordedPricing(files.config)),
    output_schema: answer === null ? null : {
      schema: stringField(answer.schema) ?? "",
      valid: answer.valid === true,
      value: answer.value ?? null,
      errors: stringsField(answer.errors),
    },
    deliverables: files.deliverables.map((file) => file.path.replace(/^deliverables\//, "")),
    calls,
    pending: pendingOf(files, lastResume).map(pendingView),
    replay: stringField(completed?.replay),
    report_files: files.reports,
    problems: files.problems,
  };
}

/**
 * The pending records of the last segment: the main agent's (the last as many lines of
 * `approvals/pending.jsonl` as the segment has asks nobody could answer, each written with its
 * `approval.requested`), then those of the children the segment started, each child's children
 * before it (the order their runs ended in).
 */
function pendingOf(files: RunFiles, lastResume: number): RunRecord[] {
  const segment = files.events.slice(lastResume + 1);
  const asked =
    segment.filter((event) => event.type === "approval.requested" && event.approver === null)
      .length;
  const main = lastResume === -1 ? files.pending : files.pending.slice(
    Math.max(0, files.pending.length - asked),
  );
  const started = new Set(
    segment.filter((event) => event.type === "agent.started").map((event) =>
      stringField(event.child_run_id)
    ),
  );
  const children = lastResume === -1
    ? files.children
    : files.children.filter((child) => started.has(child.name));
  return [...main, ...children.flatMap(childPending)];
}

function childPending(child: ChildRun): RunRecord[] {
  return [...child.children.flatMap(childPending), ...child.pending];
}

function pendingView(record: RunRecord): SummaryPending {
  const grant = recordField(record.grant);
  const tool = stringField(grant?.tool);
  const policy = stringField(grant?.policy);
  const written = stringField(record.approve_argument) ??
    (grant === null || tool === null || policy === null
      ? null
      : approveArgument({ tool, scope: stringsField(grant.scope), policy }));
  return {
    tool_call_id: stringField(record.tool_call_id) ?? "",
    tool: stringField(record.tool) ?? "",
    arguments_summary: record.arguments_summary ?? null,
    reason: stringField(record.reason) ?? "",
    rule: stringField(record.rule) ?? "",
    grant: record.grant ?? null,
    approve_argument: written,
  };
}
