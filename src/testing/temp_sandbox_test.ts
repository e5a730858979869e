import assert from "node:assert/strict";
import { canCreateFifo, createFifo, createTempSandbox, writeTree } from "./temp_sandbox.ts";

Deno.test("createTempSandbox creates a real workspace and a sibling outside when called", async () => {
  const sandbox = await createTempSandbox();
  try {
    assert.equal(await Deno.realPath(sandbox.root), sandbox.root);
    assert.equal(sandbox.workspace, `${sandbox.root}/workspace`);
    assert.equal(sandbox.outside, `${sandbox.root}/outside`);
    assert.equal((await Deno.stat(sandbox.workspace)).isDirectory, true);
    assert.equal((await Deno.stat(sandbox.outside)).isDirectory, true);
  } finally {
    await sandbox.cleanup();
  }
  await assert.rejects(Deno.stat(sandbox.root), Deno.errors.NotFound);
  await sandbox.cleanup(); // A second cleanup is harmless.
});

Deno.test("writeTree writes nested text and bytes when given relative paths", async () => {
  await using sandbox = await createTempSandbox();
  await writeTree(sandbox.workspace, { "a/b/c.txt": "text", "bin.dat": new Uint8Array([0, 1, 2]) });
  assert.equal(await Deno.readTextFile(`${sandbox.workspace}/a/b/c.txt`), "text");
  assert.deepEqual(await Deno.readFile(`${sandbox.workspace}/bin.dat`), new Uint8Array([0, 1, 2]));
});

Deno.test("writeTree refuses paths when they leave the base folder", async () => {
  await using sandbox = await createTempSandbox();
  await assert.rejects(writeTree(sandbox.workspace, { "../outside/x": "x" }), TypeError);
  await assert.rejects(writeTree(sandbox.workspace, { "/tmp/x": "x" }), TypeError);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(sandbox.outside)), []);
});

Deno.test({
  name: "createFifo creates a named pipe when mkfifo may run",
  ignore: !canCreateFifo(),
  fn: async () => {
    await using sandbox = await createTempSandbox();
    await createFifo(`${sandbox.workspace}/pipe`);
    assert.equal((await Deno.lstat(`${sandbox.workspace}/pipe`)).isFifo, true);
  },
});
