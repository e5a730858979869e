/**
 * A run's tool calls as its folder recorded them: the `logs/tools.jsonl` records in the order the
 * calls started, each with its ending event from `events.jsonl`. The run summary and the report
 * both take their calls from here, so they count the same calls the same way.
 *
 * @module
 */

import type { RunFiles, RunRecord } from "./run_reading.ts";
import { numberField, recordField, stringField, timeField } from "./_fields.ts";

/** One recorded call. */
export interface RecordedCall {
  /** Its `logs/tools.jsonl` record. */
  record: RunRecord;
  /** Its `tool.completed`/`failed`/`denied`/`skipped` event, or null (none found). */
  event: RunRecord | null;
}

const ENDING = /^tool\.(completed|failed|denied|skipped)$/;

/**
 * The calls of `files`, numbered in the order they started (the log is in the order they ended),
 * each with its ending event: the one its record names by `seq` (`events.ended`), else the last
 * with its id (a call run again by a resume has one record and one ending a segment).
 *
 * @returns The calls, and the ids of calls that `events.jsonl` ended but no record holds.
 */
export function recordedCalls(
  files: RunFiles,
): { calls: RecordedCall[]; unrecorded: string[] } {
  const bySeq = new Map<number, RunRecord>();
  const byId = new Map<string, RunRecord>();
  for (const event of files.events) {
    const id = stringField(event.tool_call_id);
    if (id === null || typeof event.type !== "string" || !ENDING.test(event.type)) continue;
    byId.set(id, event);
    const seq = numberField(event.seq);
    if (seq !== null) bySeq.set(seq, event);
  }
  const started = files.tools.map((record, index) => ({
    record,
    start: timeField(record.ts_start) ?? Number.POSITIVE_INFINITY,
    index,
  })).sort((left, right) => left.start - right.start || left.index - right.index);
  const calls = started.map(({ record }) => {
    const seq = numberField(recordField(record.events)?.ended);
    const id = stringField(record.tool_call_id) ?? "";
    const named = seq === null ? undefined : bySeq.get(seq);
    const event = named !== undefined && named.tool_call_id === id ? named : byId.get(id) ?? null;
    return { record, event };
  });
  const recorded = new Set(files.tools.map((record) => stringField(record.tool_call_id)));
  return { calls, unrecorded: [...byId.keys()].filter((id) => !recorded.has(id)) };
}
