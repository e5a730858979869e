import assert from "node:assert/strict";
import { AuditRecorder, Redactor, RunFolder } from "../audit/mod.ts";
import { failure } from "../tools/tool_result.ts";
import type { ToolResult } from "../tools/tool_result.ts";
import { type CallRecord, record } from "./record.ts";

/** Records `entries` into a fresh run folder and returns its three logs, parsed. */
async function recordAll(entries: CallRecord[]) {
  const runsDir = await Deno.makeTempDir({ prefix: "kagent_record_test_" });
  try {
    const folder = await RunFolder.create(runsDir);
    const recorder = new AuditRecorder({ folder, redactor: new Redactor({ secrets: [] }) });
    for (const entry of entries) await record(recorder, entry);
    await recorder.close();
    const read = async (path: string) =>
      (await Deno.readTextFile(path)).split("\n").filter((line) => line !== "").map((line) =>
        JSON.parse(line) as Record<string, unknown>
      );
    return {
      events: await read(folder.paths.events),
      tools: await read(folder.paths.toolsLog),
      errors: await read(folder.paths.errorsLog),
    };
  } finally {
    await Deno.remove(runsDir, { recursive: true });
  }
}

function unknownTool(id: string, name: string): ToolResult {
  const outcome = failure(
    "tool_not_available",
    `Cannot call tool "${name}": no tool has this name`,
  );
  return {
    tool_call_id: id,
    tool: name,
    ok: false,
    summary: outcome.summary,
    output: outcome.output,
    data: null,
    artifacts: [],
    error: outcome.error,
    duration_ms: 1,
  };
}

const entry = (result: ToolResult): CallRecord => ({
  result,
  risk_level: null,
  started: new Date("2026-01-01T00:00:00.000Z"),
  ended: new Date("2026-01-01T00:00:00.001Z"),
  params: {},
  arguments_text: "{}",
  decision: null,
});

Deno.test("record writes the raw provider name and id into the event, tools.jsonl and errors.jsonl", async () => {
  const logs = await recordAll([
    { ...entry(unknownTool("call-1", "nope__tool")), provider: { name: "nope__tool", id: null } },
    entry(unknownTool("plan-1", "fs.teleport")),
  ]);
  assert.deepEqual(logs.events.map((event) => [event.type, event.tool, event.provider]), [
    ["tool.denied", "nope__tool", { name: "nope__tool", id: null }],
    ["tool.denied", "fs.teleport", undefined],
  ]);
  assert.deepEqual(logs.tools.map((line) => [line.tool_call_id, line.provider]), [
    ["call-1", { name: "nope__tool", id: null }],
    ["plan-1", undefined],
  ]);
  assert.deepEqual(logs.errors.map((line) => [line.tool_call_id, line.provider]), [
    ["call-1", { name: "nope__tool", id: null }],
    ["plan-1", undefined],
  ]);
  // Without a provider origin the key is absent, not null.
  assert.equal("provider" in (logs.tools[1] ?? {}), false);
});
