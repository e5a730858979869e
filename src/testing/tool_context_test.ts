import assert from "node:assert/strict";
import { createTempSandbox } from "./temp_sandbox.ts";
import { createTestContext } from "./tool_context.ts";

Deno.test("createTestContext builds a guard over the workspace and run folders when called", async () => {
  await using sandbox = await createTempSandbox();
  const context = await createTestContext({ workspace: sandbox.workspace });
  assert.equal(context.workspace, sandbox.workspace);
  assert.equal(context.guard.workspace, sandbox.workspace);
  assert.equal(context.tool_call_id, "test-call");
  assert.equal(context.signal.aborted, false);
  assert.equal(context.guard.home, null);
  for (const folder of [context.run.workspace, context.run.deliverables]) {
    assert.equal((await Deno.stat(folder)).isDirectory, true);
    assert.ok(
      !folder.startsWith(sandbox.workspace + "/"),
      "run folders are not inside the workspace",
    );
    const check = await context.guard.check(`${folder}/out.txt`, "write");
    assert.equal(check.ok, true);
  }
  const outside = await context.guard.check(`${sandbox.outside}/x`, "read");
  assert.equal(outside.ok, false);
});

Deno.test("createTestContext passes roots, protected paths, home and signal when given", async () => {
  await using sandbox = await createTempSandbox();
  const controller = new AbortController();
  await Deno.mkdir(`${sandbox.outside}/docs`);
  const context = await createTestContext({
    workspace: sandbox.workspace,
    readRoots: [`${sandbox.outside}/docs`],
    protectedPaths: [`${sandbox.workspace}/agent.jsonc`],
    home: sandbox.outside,
    signal: controller.signal,
  });
  assert.equal((await context.guard.check(`${sandbox.outside}/docs/a`, "read")).ok, true);
  assert.equal((await context.guard.check(`${sandbox.outside}/docs/a`, "write")).ok, false);
  const protectedCheck = await context.guard.check("agent.jsonc", "write");
  assert.ok(protectedCheck.ok && protectedCheck.path.protected !== null);
  assert.equal(context.guard.home, sandbox.outside);
  controller.abort();
  assert.equal(context.signal.aborted, true);
});
