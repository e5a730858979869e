import assert from "node:assert/strict";
import { streamLineOf } from "./_stream_json.ts";

const base = { ts: "2026-01-01T00:00:00.000Z", run_id: "r", seq: 7 };
const context = (durations: number[]) => ({
  model: "gpt-5-mini",
  takeTurnDuration: () => durations.shift() ?? null,
});

Deno.test("streamLineOf carries a streamed turn's first_token_ms and each turn's measured time", () => {
  const durations = [840, 120];
  const streamed = streamLineOf({
    ...base,
    type: "model.responded",
    turn: 1,
    provider: "openai",
    tool_calls: [{ id: "c1", name: "fs.read_file", provider: { name: "fs__read_file", id: "x" } }],
    text: null,
    usage: { input_tokens: 10, output_tokens: 2, cached_tokens: 8 },
    stop: { reason: "end", finish_reason: "tool_calls" },
    first_token_ms: 95,
  }, context(durations));
  assert.deepEqual(streamed, {
    type: "model.responded",
    version: 1,
    ts: base.ts,
    run_id: "r",
    event_seq: 7,
    turn: 1,
    provider: "openai",
    model: "gpt-5-mini",
    usage: { input_tokens: 10, output_tokens: 2, cached_tokens: 8 },
    duration_ms: 840,
    first_token_ms: 95,
    stop_reason: "end",
    tool_calls: [{ id: "c1", name: "fs.read_file" }],
    text: null,
  });
  // Near miss: a turn that was not streamed has no first_token_ms field at all.
  const plain = streamLineOf({
    ...base,
    type: "model.responded",
    turn: 2,
    provider: "openai",
    tool_calls: [],
    text: "done",
    usage: null,
    stop: { reason: "end" },
  }, context(durations));
  assert.equal(plain !== null && "first_token_ms" in plain, false);
});

Deno.test("streamLineOf maps a skipped call to tool.ended without a decision and leaves other events out", () => {
  const skipped = streamLineOf({
    ...base,
    type: "tool.skipped",
    tool_call_id: "c2",
    tool: "fs.write_file",
    ok: false,
    summary: "Skipped: an earlier call of the turn was denied",
    error_type: null,
    duration_ms: 0,
    details: {},
  }, context([]));
  assert.equal(skipped?.type, "tool.ended");
  assert.deepEqual([skipped?.status, skipped?.decision, skipped?.rule], ["skipped", null, null]);
  for (const type of ["network_boundary.measured", "hook.completed", "run.completed"]) {
    assert.equal(streamLineOf({ ...base, type }, context([])), null, type);
  }
});

Deno.test("streamLineOf turns a child agent's agent.started and agent.completed into agent.started and agent.ended", () => {
  const child = {
    tool_call_id: "c3",
    child_run_id: "20260101T000000Z-abcdef",
    agent_id: "reviewer-1",
    definition: "reviewer",
    agent_type: "sub",
    depth: 2,
  };
  assert.deepEqual(streamLineOf({ ...base, type: "agent.started", ...child }, context([])), {
    type: "agent.started",
    version: 1,
    ts: base.ts,
    run_id: "r",
    event_seq: 7,
    ...child,
  });
  const ended = streamLineOf({
    ...base,
    type: "agent.completed",
    ...child,
    end_reason: "completed",
    turns: 2,
    usage: null,
    calls: 1,
    denied: 0,
    failed: 0,
    duration_ms: 40,
    error: null,
  }, context([]));
  assert.deepEqual(
    [ended?.type, ended?.child_run_id, ended?.end_reason, ended?.seq],
    ["agent.ended", child.child_run_id, "completed", undefined],
  );
});
