/**
 * The calls across the three logs: each `logs/tools.jsonl` record names the `seq` of its call's
 * events (`events: {started, ended}`), each tool error line its ended event (`event`), and every
 * call that started ended and has its record.
 *
 * @module
 */

import type { ChainReading, ChainRecord } from "./_read_chain.ts";
import type { VerifyProblem } from "./verify_report.ts";

/** Event types that end a call; each has a `logs/tools.jsonl` record naming it. */
const ENDED_TYPES = new Set(["tool.completed", "tool.failed", "tool.denied", "tool.skipped"]);

/**
 * Checks the cross-references and the pairing of calls.
 *
 * @returns Problems: `cross_reference` (tampered), `unpaired_call` (incomplete; tampered in a
 *   sealed run, which the caller decides).
 */
export function checkCalls(
  events: ChainReading,
  tools: ChainReading,
  errors: ChainReading,
): VerifyProblem[] {
  const problems: VerifyProblem[] = [];
  const startedNamed = new Set<number>();
  const endedNamed = new Set<number>();
  for (const entry of tools.records) {
    const refs = entry.record.events as { started?: unknown; ended?: unknown } | undefined;
    if (typeof refs !== "object" || refs === null) {
      problems.push(crossReference(tools, entry, 'tool record without "events" (its call\'s seq)'));
      continue;
    }
    const callId = entry.record.tool_call_id;
    if (typeof refs.started === "number") {
      startedNamed.add(refs.started);
      const problem = refersTo(events, refs.started, callId, (type) => type === "tool.started");
      if (problem !== null) {
        problems.push(
          crossReference(tools, entry, `events.started names seq ${refs.started}: ${problem}`),
        );
      }
    }
    if (typeof refs.ended === "number") {
      endedNamed.add(refs.ended);
      const problem = refersTo(events, refs.ended, callId, (type) => ENDED_TYPES.has(type));
      if (problem !== null) {
        problems.push(
          crossReference(tools, entry, `events.ended names seq ${refs.ended}: ${problem}`),
        );
      }
    }
  }
  for (const entry of errors.records) {
    const event = entry.record.event;
    if (typeof event !== "number") continue;
    const problem = refersTo(
      events,
      event,
      entry.record.tool_call_id,
      (type) => ENDED_TYPES.has(type),
    );
    if (problem !== null) {
      problems.push(crossReference(errors, entry, `event names seq ${event}: ${problem}`));
    }
  }
  problems.push(...pairing(events, startedNamed, endedNamed));
  return problems;
}

/** Each `tool.started` ends; each end has its tools record. */
function pairing(
  events: ChainReading,
  startedNamed: Set<number>,
  endedNamed: Set<number>,
): VerifyProblem[] {
  const problems: VerifyProblem[] = [];
  const open = new Map<string, ChainRecord>();
  for (const entry of events.records) {
    const type = entry.record.type;
    const callId = String(entry.record.tool_call_id);
    if (type === "tool.started") {
      open.set(callId, entry);
      continue;
    }
    if (typeof type !== "string" || !ENDED_TYPES.has(type)) continue;
    open.delete(callId);
    if (!endedNamed.has(entry.seq)) {
      problems.push({
        kind: "unpaired_call",
        severity: "incomplete",
        file: events.file,
        line: entry.line,
        message: `call "${callId}" ended (${type}, seq ${entry.seq}) without its record in ` +
          "logs/tools.jsonl",
      });
    }
  }
  for (const [callId, entry] of open) {
    if (startedNamed.has(entry.seq)) continue;
    problems.push({
      kind: "unpaired_call",
      severity: "incomplete",
      file: events.file,
      line: entry.line,
      message: `call "${callId}" (${String(entry.record.tool)}) started at seq ${entry.seq} and ` +
        "never ended",
    });
  }
  return problems;
}

/** Why `seq` of the events is not the call's event of the wanted type; null when it is. */
function refersTo(
  events: ChainReading,
  seq: number,
  callId: unknown,
  wanted: (type: string) => boolean,
): string | null {
  const event = events.bySeq.get(seq);
  if (event === undefined) return "no such event";
  const type = String(event.record.type);
  if (!wanted(type)) return `it is a ${type} event`;
  if (event.record.tool_call_id !== callId) {
    return `it is the event of call "${String(event.record.tool_call_id)}"`;
  }
  return null;
}

function crossReference(reading: ChainReading, entry: ChainRecord, message: string): VerifyProblem {
  return {
    kind: "cross_reference",
    severity: "tampered",
    file: reading.file,
    line: entry.line,
    message: `broken cross-reference: ${message}`,
  };
}
