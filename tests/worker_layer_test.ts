// Layer 2 (ARCHITECTURE §3): handlers run in a Worker whose Deno permissions are the roots only.
// A handler that skips the path guard is stopped by Deno, the result is sandbox_violation, and the
// audit records it.
import assert from "node:assert/strict";
import { builtinTools } from "../src/toolsets/mod.ts";
import { openTestRun } from "../src/testing/run_harness.ts";
import { rogueTools } from "./testdata/worker/rogue_tools.ts";

const rogue = {
  tools: [...builtinTools(), ...rogueTools()],
  workerEntry: new URL("./testdata/worker/rogue_worker.ts", import.meta.url),
  permissions: { rules: [{ tools: ["test.*"], decision: "allow" }] },
};

Deno.test("the tool Worker stops a handler that reads outside the roots without the guard", async () => {
  await using run = await openTestRun({
    ...rogue,
    prepare: async (sandbox) => {
      await Deno.writeTextFile(`${sandbox.outside}/secret.txt`, "top-secret-value");
      await Deno.writeTextFile(`${sandbox.workspace}/inside.txt`, "inside-value");
    },
  });
  const attack = await run.call("test.read_direct", { path: `${run.sandbox.outside}/secret.txt` });
  assert.equal(attack.ok, false);
  assert.equal(attack.error?.type, "sandbox_violation");
  assert.doesNotMatch(JSON.stringify(attack), /top-secret-value/);

  // Near miss: the same handler reading inside the workspace works.
  const nearMiss = await run.call("test.read_direct", {
    path: `${run.sandbox.workspace}/inside.txt`,
  });
  assert.equal(nearMiss.ok, true, nearMiss.output);
  assert.equal(nearMiss.output, "inside-value");

  const events = await run.readLog("events");
  const failed = events.find((event) =>
    event.type === "tool.failed" && event.tool_call_id === "test-1"
  );
  assert.equal(failed?.error_type, "sandbox_violation");
  const errors = await run.readLog("errors");
  assert.ok(errors.some((error) => error.error_type === "sandbox_violation"));
});

Deno.test("the tool Worker stops a handler that writes outside the write roots without the guard", async () => {
  await using run = await openTestRun(rogue);
  const target = `${run.sandbox.outside}/planted.txt`;
  const attack = await run.call("test.write_direct", { path: target, content: "x" });
  assert.equal(attack.error?.type, "sandbox_violation");
  await assert.rejects(Deno.stat(target), Deno.errors.NotFound);

  // A read-only root is readable but not writable for Deno either.
  const configWrite = await run.call("test.write_direct", {
    path: `${run.configDir}/agent.jsonc`,
    content: "{}",
  });
  assert.equal(configWrite.error?.type, "sandbox_violation");
  assert.notEqual(await Deno.readTextFile(`${run.configDir}/agent.jsonc`), "{}");

  const nearMiss = await run.call("test.write_direct", {
    path: `${run.session.folder.paths.deliverables}/ok.txt`,
    content: "fine",
  });
  assert.equal(nearMiss.ok, true, nearMiss.output);
  assert.equal(await Deno.readTextFile(`${run.session.folder.paths.deliverables}/ok.txt`), "fine");
});

Deno.test("the tool Worker has no environment, subprocess or network access", async () => {
  await using run = await openTestRun(rogue);
  for (const what of ["env", "run", "net"]) {
    const result = await run.call("test.escape_hatches", { what });
    assert.equal(result.ok, false, `${what}: ${result.output}`);
    assert.equal(result.error?.type, "sandbox_violation", `${what}: ${result.output}`);
  }
});

Deno.test("with an HTTP memory service the Worker still has no network; its requests reach only that host", async () => {
  const hits = { memory: 0, other: 0 };
  const serve = (name: keyof typeof hits) =>
    Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
      hits[name] += 1;
      return Response.json({ records: [] });
    });
  const memory = serve("memory");
  const other = serve("other");
  try {
    await using run = await openTestRun({
      ...rogue,
      config: {
        memory: { provider: { kind: "http", base_url: `http://127.0.0.1:${memory.addr.port}` } },
      },
    });
    assert.equal(run.session.workerPermissions.net, false);
    assert.deepEqual(run.session.network.memory, [`127.0.0.1:${memory.addr.port}`]);
    const direct = await run.call("test.escape_hatches", { what: "net" });
    assert.equal(direct.error?.type, "sandbox_violation", direct.output);
    // Near miss: the memory host answers through the main thread.
    const allowed = await run.call("test.host_fetch", {
      url: `http://127.0.0.1:${memory.addr.port}/recall`,
    });
    assert.equal(allowed.ok, true, allowed.output);
    const refused = await run.call("test.host_fetch", {
      url: `http://127.0.0.1:${other.addr.port}/recall`,
    });
    assert.equal(refused.ok, false);
    assert.match(refused.output, /tools may reach only the memory service/);
    assert.deepEqual(hits, { memory: 1, other: 0 });
  } finally {
    await memory.shutdown();
    await other.shutdown();
  }
});

Deno.test("the tool Worker cannot write the run's own audit logs", async () => {
  await using run = await openTestRun(rogue);
  // The runs folder is outside the workspace here, so Deno refuses; inside the workspace the path
  // guard refuses it (see path attack tests).
  const result = await run.call("test.write_direct", {
    path: run.session.folder.paths.events,
    content: "forged\n",
  });
  assert.equal(result.error?.type, "sandbox_violation");
  const events = await run.readLog("events");
  assert.ok(events.length > 0 && events.every((event) => typeof event.type === "string"));
});

Deno.test("a handler stuck in synchronous code times out and the next call gets a fresh Worker", async () => {
  await using run = await openTestRun({
    ...rogue,
    handlerTimeoutMs: 500,
    prepare: (sandbox) => Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "alive"),
  });
  const stuck = await run.call("test.spin", {});
  assert.equal(stuck.error?.type, "timeout");
  assert.deepEqual(stuck.error?.details, { timed_out: true, timeout_ms: 500 });
  const next = await run.call("fs.read_file", { path: "a.txt" });
  assert.equal(next.ok, true, next.output);
  assert.match(next.output, /alive/);
});
