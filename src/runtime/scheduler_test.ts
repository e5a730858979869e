import assert from "node:assert/strict";
import { failure, type ToolResult } from "../result/tool_result.ts";
import { runTurn, type RunTurnOptions } from "./scheduler.ts";
import type { ToolCall } from "./tool_call.ts";

/** What the fake runtime returns for a call: ok, or a failure of this type. */
type Script = Record<
  string,
  { delay_ms?: number; error?: "exit_nonzero" | "permission_denied" | "tool_not_available" }
>;

interface Span {
  id: string;
  start: number;
  end: number;
}

/** A runtime whose `call` waits, records start/end times, and returns scripted results. */
function fakeRuntime(script: Script = {}) {
  const spans: Span[] = [];
  const signals: (AbortSignal | undefined)[] = [];
  const runtime = {
    async call(call: ToolCall, signal?: AbortSignal): Promise<ToolResult> {
      signals.push(signal);
      const start = performance.now();
      const entry = script[call.id] ?? {};
      await new Promise((resolve) => setTimeout(resolve, entry.delay_ms ?? 50));
      spans.push({ id: call.id, start, end: performance.now() });
      const outcome = entry.error === undefined
        ? { ok: true, summary: "done", output: "done", data: null, error: null }
        : failure(entry.error, `Cannot run "${call.id}": scripted`);
      return {
        tool_call_id: call.id,
        tool: call.name,
        ...outcome,
        artifacts: [],
        duration_ms: 1,
      };
    },
  };
  return { runtime: runtime as unknown as RunTurnOptions["runtime"], spans, signals };
}

/** A recorder that keeps what it was given. */
function fakeRecorder() {
  const events: { type: string; fields: Record<string, unknown> }[] = [];
  const errors: Record<string, unknown>[] = [];
  const recorder = {
    event: (type: string, fields: Record<string, unknown>) => {
      events.push({ type, fields });
      return Promise.resolve();
    },
    error: (record: Record<string, unknown>) => {
      errors.push(record);
      return Promise.resolve();
    },
  };
  return { recorder: recorder as unknown as RunTurnOptions["recorder"], events, errors };
}

const call = (id: string, name = "read"): ToolCall => ({ id, name, arguments: "{}" });
const isReadonly = (name: string) => name === "read";

function span(spans: Span[], id: string): Span {
  const found = spans.find((entry) => entry.id === id);
  assert.ok(found, `no span for "${id}"`);
  return found;
}

Deno.test("runTurn runs consecutive readonly calls in parallel when they follow each other", async () => {
  const { runtime, spans } = fakeRuntime({
    a: { delay_ms: 200 },
    b: { delay_ms: 200 },
    c: { delay_ms: 200 },
  });
  const { recorder } = fakeRecorder();
  const results = await runTurn([call("a"), call("b"), call("c")], {
    runtime,
    recorder,
    isReadonly,
  });
  assert.deepEqual(results.map((result) => result.tool_call_id), ["a", "b", "c"]);
  assert.ok(span(spans, "b").start < span(spans, "a").end, "b started before a ended");
  assert.ok(span(spans, "c").start < span(spans, "a").end, "c started before a ended");
});

Deno.test("runTurn bounds readonly parallelism by concurrency", async () => {
  const { runtime, spans } = fakeRuntime();
  const { recorder } = fakeRecorder();
  await runTurn([call("a"), call("b"), call("c")], {
    runtime,
    recorder,
    isReadonly,
    concurrency: 1,
  });
  assert.ok(span(spans, "b").start >= span(spans, "a").end);
  assert.ok(span(spans, "c").start >= span(spans, "b").end);
  await assert.rejects(
    runTurn([call("a")], { runtime, recorder, isReadonly, concurrency: 0 }),
    RangeError,
  );
});

Deno.test("runTurn runs a write call alone and in the model's order", async () => {
  const { runtime, spans } = fakeRuntime();
  const { recorder } = fakeRecorder();
  const calls = [call("r1"), call("r2"), call("w", "write"), call("r3"), call("r4")];
  const results = await runTurn(calls, { runtime, recorder, isReadonly });
  assert.deepEqual(results.map((result) => result.tool_call_id), ["r1", "r2", "w", "r3", "r4"]);
  const write = span(spans, "w");
  assert.ok(write.start >= span(spans, "r1").end && write.start >= span(spans, "r2").end);
  assert.ok(span(spans, "r3").start >= write.end && span(spans, "r4").start >= write.end);
  // The reads on either side of the write still overlap each other.
  assert.ok(span(spans, "r2").start < span(spans, "r1").end);
});

Deno.test("runTurn treats an unknown tool as a boundary", async () => {
  const { runtime, spans } = fakeRuntime();
  const { recorder } = fakeRecorder();
  await runTurn([call("r1"), call("x", "teleport"), call("r2")], { runtime, recorder, isReadonly });
  assert.ok(span(spans, "x").start >= span(spans, "r1").end);
  assert.ok(span(spans, "r2").start >= span(spans, "x").end);
});

Deno.test("runTurn keeps running the other calls when a readonly call fails", async () => {
  const { runtime } = fakeRuntime({ b: { error: "exit_nonzero" } });
  const { recorder, events } = fakeRecorder();
  const results = await runTurn([call("a"), call("b"), call("c"), call("w", "write")], {
    runtime,
    recorder,
    isReadonly,
  });
  assert.deepEqual(
    results.map((result) => [result.tool_call_id, result.error?.type ?? "ok"]),
    [["a", "ok"], ["b", "exit_nonzero"], ["c", "ok"], ["w", "ok"]],
  );
  assert.equal(events.length, 0);
});

Deno.test("runTurn skips the rest of the turn and records it when a write call fails", async () => {
  const { runtime, spans } = fakeRuntime({ w: { error: "exit_nonzero" } });
  const { recorder, events, errors } = fakeRecorder();
  const seen: string[] = [];
  const results = await runTurn([call("a"), call("w", "write"), call("b"), call("w2", "write")], {
    runtime,
    recorder,
    isReadonly,
    onResult: (result) => seen.push(result.tool_call_id),
  });
  assert.deepEqual(results.map((result) => result.tool_call_id), ["a", "w", "b", "w2"]);
  assert.deepEqual(spans.map((entry) => entry.id), ["a", "w"]);
  assert.deepEqual(seen, ["a", "w", "b", "w2"]);
  const skipped = results[2] as ToolResult;
  assert.equal(skipped.ok, false);
  assert.equal(skipped.tool, "read");
  assert.equal(skipped.duration_ms, 0);
  assert.deepEqual(skipped.artifacts, []);
  assert.deepEqual(skipped.error, {
    type: "skipped",
    message: 'Cannot run tool "read": skipped because call "w" (write) failed',
    details: { skipped_because: "w" },
  });
  assert.equal(skipped.summary, skipped.error?.message);
  assert.equal(results[3]?.error?.type, "skipped");
  assert.deepEqual(events.map((event) => [event.type, event.fields.tool_call_id]), [
    ["tool.skipped", "b"],
    ["tool.skipped", "w2"],
  ]);
  assert.deepEqual(errors.map((error) => [error.tool_call_id, error.error_type]), [
    ["b", "skipped"],
    ["w2", "skipped"],
  ]);
});

Deno.test("runTurn skips the rest of the turn when a call is denied", async () => {
  const { runtime, spans } = fakeRuntime({ w: { error: "permission_denied" } });
  const { recorder, events } = fakeRecorder();
  const results = await runTurn([call("w", "write"), call("a"), call("b")], {
    runtime,
    recorder,
    isReadonly,
  });
  assert.deepEqual(spans.map((entry) => entry.id), ["w"]);
  assert.deepEqual(results.map((result) => result.error?.type), [
    "permission_denied",
    "skipped",
    "skipped",
  ]);
  assert.equal(
    results[1]?.error?.message,
    'Cannot run tool "read": skipped because call "w" (write) was denied',
  );
  assert.equal(events.length, 2);
});

Deno.test("runTurn still runs the turn's reads when a call names an unknown tool", async () => {
  const { runtime, spans } = fakeRuntime({ x: { error: "tool_not_available" } });
  const { recorder, events } = fakeRecorder();
  const results = await runTurn([call("a"), call("x", "fs.teleport"), call("b")], {
    runtime,
    recorder,
    isReadonly,
  });
  assert.deepEqual(
    results.map((result) => [result.tool_call_id, result.error?.type ?? "ok"]),
    [["a", "ok"], ["x", "tool_not_available"], ["b", "ok"]],
  );
  assert.deepEqual(spans.map((entry) => entry.id).sort(), ["a", "b", "x"]);
  assert.equal(events.length, 0, "nothing skipped");
});

Deno.test("runTurn skips the reads after a policy denial (near miss of the unknown tool)", async () => {
  const { runtime, spans } = fakeRuntime({ x: { error: "permission_denied" } });
  const { recorder } = fakeRecorder();
  const results = await runTurn([call("a"), call("x", "write"), call("b")], {
    runtime,
    recorder,
    isReadonly,
  });
  assert.deepEqual(results.map((result) => result.error?.type ?? "ok"), [
    "ok",
    "permission_denied",
    "skipped",
  ]);
  assert.deepEqual(spans.map((entry) => entry.id), ["a", "x"]);
});

Deno.test("runTurn pairs results by id in the model's order when they finish out of order", async () => {
  const { runtime, spans } = fakeRuntime({
    slow: { delay_ms: 150 },
    fast: { delay_ms: 10 },
    mid: { delay_ms: 60 },
  });
  const { recorder } = fakeRecorder();
  const results = await runTurn([call("slow"), call("fast"), call("mid")], {
    runtime,
    recorder,
    isReadonly,
  });
  assert.deepEqual(spans.map((entry) => entry.id), ["fast", "mid", "slow"]);
  assert.deepEqual(results.map((result) => result.tool_call_id), ["slow", "fast", "mid"]);
});

Deno.test("runTurn answers every call aborted without running it when the signal aborted before", async () => {
  const { runtime, spans } = fakeRuntime();
  const { recorder, events, errors } = fakeRecorder();
  const controller = new AbortController();
  controller.abort("interrupted by a signal");
  const results = await runTurn([call("a"), call("w", "write")], {
    runtime,
    recorder,
    isReadonly,
    signal: controller.signal,
  });
  assert.equal(spans.length, 0);
  for (const result of results) {
    assert.equal(result.error?.type, "aborted");
    assert.deepEqual(result.error?.details, {
      aborted: true,
      partial: false,
      abort_reason: "interrupted by a signal",
    });
  }
  assert.deepEqual(events.map((event) => event.type), ["tool.skipped", "tool.skipped"]);
  assert.equal(errors.length, 2);
});

Deno.test("runTurn passes the signal to running calls and answers later calls aborted", async () => {
  const { runtime, spans, signals } = fakeRuntime({ w: { delay_ms: 100 } });
  const { recorder } = fakeRecorder();
  const controller = new AbortController();
  setTimeout(() => controller.abort("stop"), 30);
  const results = await runTurn([call("w", "write"), call("a")], {
    runtime,
    recorder,
    isReadonly,
    signal: controller.signal,
  });
  assert.equal(signals[0], controller.signal);
  assert.deepEqual(spans.map((entry) => entry.id), ["w"]);
  assert.equal(results[1]?.error?.type, "aborted");
  assert.equal(results[1]?.error?.details.abort_reason, "stop");
});

Deno.test("runTurn lets a read already running beside a denied read finish, and skips the reads not yet started", async () => {
  // Two lanes: "denied" and "beside" start together; "denied" ends first (denied), so "later",
  // next in the model's order and not started, is skipped; "beside" was running and finishes.
  const { runtime, spans } = fakeRuntime({
    denied: { delay_ms: 20, error: "permission_denied" },
    beside: { delay_ms: 150 },
    later: { delay_ms: 10 },
  });
  const { recorder } = fakeRecorder();
  const results = await runTurn([call("denied"), call("beside"), call("later")], {
    runtime,
    recorder,
    isReadonly,
    concurrency: 2,
  });
  assert.deepEqual(results.map((result) => result.error?.type ?? "ok"), [
    "permission_denied",
    "ok",
    "skipped",
  ]);
  assert.deepEqual(spans.map((entry) => entry.id).sort(), ["beside", "denied"]);
  assert.match(results[2]?.summary ?? "", /skipped because call "denied" \(read\) was denied/);
});
