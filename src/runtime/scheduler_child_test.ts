// The child-agent class of the scheduler: adjacent calls that start child agents run in parallel,
// bounded, and all run to their end (wait_all). No timing: each call waits on events.
import assert from "node:assert/strict";
import { failure, type ToolResult } from "../result/tool_result.ts";
import { runTurn, type RunTurnOptions } from "./scheduler.ts";
import type { ToolCall } from "./tool_call.ts";

const CHILD = new Set(["agent.create_sub_agent", "agent.dispatch_worker"]);

/** A runtime whose calls end only when `release(id)` is called; it counts calls running at once. */
function gatedRuntime(errors: Record<string, "permission_denied" | "exit_nonzero"> = {}) {
  const gates = new Map<string, () => void>();
  const started: string[] = [];
  let running = 0;
  let most = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const runtime = {
    async call(call: ToolCall): Promise<ToolResult> {
      started.push(call.id);
      running += 1;
      most = Math.max(most, running);
      for (const waiter of waiters.filter((item) => started.length >= item.count)) {
        waiter.resolve();
      }
      if (CHILD.has(call.name)) await new Promise<void>((resolve) => gates.set(call.id, resolve));
      running -= 1;
      const error = errors[call.id];
      const outcome = error === undefined
        ? { ok: true, summary: "done", output: "done", data: null, error: null }
        : failure(error, `Cannot run "${call.id}": scripted`);
      return {
        tool_call_id: call.id,
        tool: call.name,
        ok: outcome.ok,
        summary: outcome.summary,
        output: outcome.output,
        data: outcome.data,
        error: outcome.error,
        artifacts: [],
        duration_ms: 1,
      };
    },
  };
  return {
    runtime: runtime as unknown as RunTurnOptions["runtime"],
    started,
    most: () => most,
    /** Resolves once `count` calls have started. */
    untilStarted: (count: number) =>
      new Promise<void>((resolve) => {
        if (started.length >= count) resolve();
        else waiters.push({ count, resolve });
      }),
    release: (id: string) => gates.get(id)?.(),
  };
}

const recorder = {
  event: () => Promise.resolve(),
  error: () => Promise.resolve(),
} as unknown as RunTurnOptions["recorder"];

const call = (id: string, name: string): ToolCall => ({ id, name, arguments: "{}" });

Deno.test("adjacent child-agent calls start in parallel, bounded by childConcurrency", async () => {
  const fake = gatedRuntime();
  const calls = [
    call("a", "agent.create_sub_agent"),
    call("b", "agent.dispatch_worker"),
    call("c", "agent.dispatch_worker"),
  ];
  const turn = runTurn(calls, {
    runtime: fake.runtime,
    recorder,
    isReadonly: () => true,
    startsChild: (name) => CHILD.has(name),
    childConcurrency: 2,
  });
  await fake.untilStarted(2);
  // Two run at once; the third waits for a free lane, not for the whole group.
  assert.deepEqual(fake.started, ["a", "b"]);
  fake.release("b");
  await fake.untilStarted(3);
  fake.release("a");
  fake.release("c");
  const results = await turn;
  assert.deepEqual(results.map((result) => result.ok), [true, true, true]);
  assert.equal(fake.most(), 2);
});

Deno.test("a failing or denied child call never skips its siblings; a denial stops what follows", async () => {
  const fake = gatedRuntime({ a: "permission_denied", b: "exit_nonzero" });
  const calls = [
    call("a", "agent.create_sub_agent"),
    call("b", "agent.dispatch_worker"),
    call("c", "agent.dispatch_worker"),
    call("after", "fs.read_file"),
  ];
  const turn = runTurn(calls, {
    runtime: fake.runtime,
    recorder,
    isReadonly: () => true,
    startsChild: (name) => CHILD.has(name),
    childConcurrency: 4,
  });
  await fake.untilStarted(3);
  for (const id of ["a", "b", "c"]) fake.release(id);
  const results = await turn;
  assert.deepEqual(results.map((result) => result.error?.type ?? "ok"), [
    "permission_denied",
    "exit_nonzero",
    "ok",
    "skipped",
  ]);
  assert.deepEqual(fake.started, ["a", "b", "c"]);
});

Deno.test("child-agent calls are not batched with readonly calls (near miss: without startsChild they are)", async () => {
  const fake = gatedRuntime();
  const calls = [call("read", "fs.read_file"), call("a", "agent.create_sub_agent")];
  const turn = runTurn(calls, {
    runtime: fake.runtime,
    recorder,
    isReadonly: () => true,
    startsChild: (name) => CHILD.has(name),
  });
  await fake.untilStarted(2);
  fake.release("a");
  assert.equal((await turn).length, 2);
  // The readonly call had finished before the child group started: never two at once.
  assert.equal(fake.most(), 1);
});
