import assert from "node:assert/strict";
import type { LoadedConfig } from "../config/mod.ts";
import { AgentTree } from "./agent_tree.ts";

function tree(maxConcurrent: number): AgentTree {
  const config = {
    agent: { max_concurrent_children: maxConcurrent },
    agents: {},
    model: null,
  } as unknown as LoadedConfig;
  return new AgentTree({
    config,
    services: {
      env: () => undefined,
      providerFor: () => Promise.reject(new Error("not used")),
      taskStore: null,
      approver: null,
      gateway: null,
    },
  });
}

Deno.test("the tree runs at most max_concurrent_children children; a freed slot starts the next", async () => {
  const shared = tree(2);
  const first = await shared.acquire();
  const second = await shared.acquire();
  let thirdStarted = false;
  const third = shared.acquire().then((release) => {
    thirdStarted = true;
    return release;
  });
  await Promise.resolve();
  assert.equal(thirdStarted, false, "a third child started while two ran");
  first();
  first(); // Twice frees once.
  const release = await third;
  assert.equal(thirdStarted, true);
  let fourthStarted = false;
  const fourth = shared.acquire().then((freed) => {
    fourthStarted = true;
    return freed;
  });
  await Promise.resolve();
  assert.equal(fourthStarted, false, "a release counted twice let a fourth child in");
  second();
  (await fourth)();
  release();
});

Deno.test("a child waiting for a slot is not started when the run aborts", async () => {
  const shared = tree(1);
  const running = await shared.acquire();
  const controller = new AbortController();
  const waiting = shared.acquire(controller.signal);
  controller.abort("interrupted by SIGINT");
  await assert.rejects(waiting, (reason) => reason === "interrupted by SIGINT");
  running();
  // The slot is free again: the aborted waiter did not take it.
  (await shared.acquire())();
});

Deno.test("agent ids are numbered per definition across the tree", () => {
  const shared = tree(1);
  assert.deepEqual(
    [shared.nextAgentId("worker"), shared.nextAgentId("worker"), shared.nextAgentId("reader")],
    ["worker-1", "worker-2", "reader-1"],
  );
});
