/**
 * The cost of redacting one small audit record (`Redactor.redactValue`), the step every record of
 * `events.jsonl` and `logs/tools.jsonl` goes through before it is written. The baseline is
 * `JSON.stringify` of the same record (the write that follows it), in the same process.
 *
 *   deno bench --allow-read --allow-write bench/redaction_bench.ts
 *
 * Two records: the same `tool.completed` event again and again (names, paths and kinds recur in a
 * run, and the redactor reuses its results for short texts), and one whose call id and summary are
 * new each time (nothing to reuse for them). The redactor has two secret values, as a run with
 * `audit.secret_env` does; neither occurs in the records.
 *
 * @module
 */

import { Redactor } from "../src/audit/mod.ts";

const redactor = new Redactor({
  secrets: ["sk-bench-0123456789abcdefghij", "another-long-secret-value-42"],
});

function record(id: number): Record<string, unknown> {
  return {
    ts: "2026-11-23T17:00:00.000Z",
    type: "tool.completed",
    run_id: "20261123T170000Z-abcdef",
    tool_call_id: `call_${id}`,
    tool: "fs.read_file",
    duration_ms: 31,
    summary: `Read lines 1-30 of "README.md"; more from line 31 (call ${id})`,
    decision: "allow",
    rule: "survey-reads",
    layer: "config",
  };
}

const same = record(0);
let next = 1;
const group = "redact a small audit record (~300 B)";

Deno.bench({ name: "JSON.stringify of the record (baseline)", group, baseline: true }, () => {
  JSON.stringify(record(next++));
});
Deno.bench({ name: "redactValue, the same record each time", group }, () => {
  redactor.redactValue(same);
});
Deno.bench({ name: "redactValue, a new call id and summary each time", group }, () => {
  redactor.redactValue(record(next++));
});
