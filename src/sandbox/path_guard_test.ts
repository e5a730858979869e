import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { PathGuard } from "./path_guard.ts";
import { createTempSandbox } from "../testing/temp_sandbox.ts";

Deno.test("PathGuard.check reports the link count when a regular file has other hard links", async () => {
  await using sandbox = await createTempSandbox();
  await Deno.writeTextFile(nodePath.join(sandbox.workspace, "one.txt"), "one\n");
  await Deno.writeTextFile(nodePath.join(sandbox.outside, "secret.txt"), "secret\n");
  await Deno.link(
    nodePath.join(sandbox.outside, "secret.txt"),
    nodePath.join(sandbox.workspace, "linked.txt"),
  );
  const guard = await PathGuard.create({ workspace: sandbox.workspace, home: null });
  const linked = await guard.check("linked.txt", "read");
  assert.ok(linked.ok);
  assert.equal(linked.path.links, 2);
  // Near miss: an ordinary file has one link; a folder and a missing path report none.
  const one = await guard.check("one.txt", "read");
  assert.ok(one.ok);
  assert.equal(one.path.links, 1);
  const folder = await guard.check(".", "list");
  assert.ok(folder.ok);
  assert.equal(folder.path.links, undefined);
  const missing = await guard.check("missing.txt", "write");
  assert.ok(missing.ok);
  assert.equal(missing.path.links, undefined);
});

Deno.test("PathGuard.check anchors a path in the outermost root when roots nest", async () => {
  await using sandbox = await createTempSandbox();
  const inner = nodePath.join(sandbox.workspace, "runs", "run-1", "workspace");
  await Deno.mkdir(inner, { recursive: true });
  const guard = await PathGuard.create({
    workspace: sandbox.workspace,
    writeRoots: [inner],
    home: null,
  });
  const check = await guard.check(nodePath.join(inner, "x.txt"), "write");
  assert.ok(check.ok);
  assert.equal(check.path.anchor, sandbox.workspace);
  assert.equal(guard.anchorOf(sandbox.outside), null);
});
