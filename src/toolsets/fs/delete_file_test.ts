import assert from "node:assert/strict";
import { callTool } from "../../testing/call_tool.ts";
import { canCreateFifo, createFifo } from "../../testing/temp_sandbox.ts";
import { createTestContext } from "../../testing/tool_context.ts";
import { withTimeout } from "../../testing/with_timeout.ts";
import { exists, openFixture } from "./_fixture.ts";
import { type DeleteFileData, deleteFileTool } from "./delete_file.ts";

Deno.test("fs.delete_file deletes the file when it is a regular file", async () => {
  await using fixture = await openFixture({ "src/old.ts": "12345", "src/keep.ts": "" });
  const outcome = await fixture.call(deleteFileTool, { path: "src/old.ts" });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(await exists(fixture.inWorkspace("src/old.ts")), false);
  assert.equal(await exists(fixture.inWorkspace("src/keep.ts")), true);
  assert.deepEqual(outcome.data, { path: "src/old.ts", bytes: 5 } satisfies DeleteFileData);
  assert.equal(outcome.summary, 'Deleted "src/old.ts" (5 bytes)');
});

Deno.test("fs.delete_file fails with not_a_regular_file and keeps the folder when the path is a folder", async () => {
  await using fixture = await openFixture({ "src/a.ts": "" });
  const outcome = await fixture.call(deleteFileTool, { path: "src" });
  assert.equal(outcome.error?.type, "not_a_regular_file");
  assert.equal(await exists(fixture.inWorkspace("src/a.ts")), true);
  const workspace = await fixture.call(deleteFileTool, { path: "." });
  assert.equal(workspace.error?.type, "not_a_regular_file");
});

Deno.test("fs.delete_file fails with file_not_found when the file does not exist", async () => {
  await using fixture = await openFixture();
  const outcome = await fixture.call(deleteFileTool, { path: "missing.txt" });
  assert.equal(outcome.error?.type, "file_not_found");
  assert.equal(outcome.error?.message, 'Cannot delete file "missing.txt": it does not exist');
});

Deno.test("fs.delete_file rejects arguments when path is missing or a key is unknown", async () => {
  await using fixture = await openFixture({ "a.txt": "" });
  assert.equal((await fixture.call(deleteFileTool, {})).error?.type, "invalid_arguments");
  const extra = await fixture.call(deleteFileTool, { path: "a.txt", recursive: true });
  assert.equal(extra.error?.type, "invalid_arguments");
  assert.equal(await exists(fixture.inWorkspace("a.txt")), true);
});

Deno.test("fs.delete_file declares a delete target for the policy", () => {
  assert.deepEqual(deleteFileTool.targets?.({ path: "a.txt" }), [{
    kind: "path",
    path: "a.txt",
    access: "delete",
  }]);
});

Deno.test("fs.delete_file refuses a symlink to a file outside and keeps both", async () => {
  await using fixture = await openFixture();
  await Deno.writeTextFile(fixture.inOutside("file"), "precious");
  await Deno.symlink(fixture.inOutside("file"), fixture.inWorkspace("d"));
  const outcome = await fixture.call(deleteFileTool, { path: "d" });
  assert.equal(outcome.error?.type, "path_outside_sandbox");
  assert.equal(await Deno.readTextFile(fixture.inOutside("file")), "precious");
  assert.equal((await Deno.lstat(fixture.inWorkspace("d"))).isSymlink, true);
});

Deno.test("fs.delete_file refuses a symlink inside and keeps its target while it deletes the target by name", async () => {
  await using fixture = await openFixture({ "real.txt": "keep" });
  await Deno.symlink("real.txt", fixture.inWorkspace("alias"));
  const outcome = await fixture.call(deleteFileTool, { path: "alias" });
  assert.equal(outcome.error?.type, "not_a_regular_file");
  assert.match(outcome.error?.message ?? "", /it is a symlink \(to "real\.txt"\)/);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("real.txt")), "keep");
  const near = await fixture.call(deleteFileTool, { path: "real.txt" });
  assert.equal(near.ok, true, near.output);
  assert.equal(await exists(fixture.inWorkspace("real.txt")), false);
});

Deno.test("fs.delete_file deletes through a symlinked folder when it points inside the workspace", async () => {
  await using fixture = await openFixture({ "docs/a.md": "" });
  await Deno.symlink("docs", fixture.inWorkspace("docs-link"));
  const outcome = await fixture.call(deleteFileTool, { path: "docs-link/a.md" });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(await exists(fixture.inWorkspace("docs/a.md")), false);
});

Deno.test("fs.delete_file refuses paths that leave the workspace and deletes nothing there", async () => {
  await using fixture = await openFixture({ "..test": "" });
  const root = fixture.sandbox.root;
  await Deno.writeTextFile(fixture.inOutside("authorized_keys"), "key");
  await Deno.mkdir(`${root}/workspace2`);
  await Deno.writeTextFile(`${root}/workspace2/x`, "x");
  await Deno.symlink(fixture.sandbox.outside, fixture.inWorkspace("out"));
  for (
    const path of [
      "out/authorized_keys",
      "../outside/authorized_keys",
      fixture.inOutside("authorized_keys"),
      `${root}/workspace2/x`,
      "../workspace2/x",
      "/proc/self/root" + fixture.inOutside("authorized_keys"),
    ]
  ) {
    const outcome = await fixture.call(deleteFileTool, { path });
    assert.equal(outcome.error?.type, "path_outside_sandbox", path);
  }
  assert.equal(await exists(fixture.inOutside("authorized_keys")), true);
  assert.equal(await exists(`${root}/workspace2/x`), true);
  const near = await fixture.call(deleteFileTool, { path: "..test" });
  assert.equal(near.ok, true, near.output);
  assert.equal(await exists(fixture.inWorkspace("..test")), false);
});

Deno.test("fs.delete_file refuses a file in a read-only root and keeps it", async () => {
  await using fixture = await openFixture();
  const readOnly = fixture.inOutside("docs");
  await Deno.mkdir(readOnly);
  await Deno.writeTextFile(`${readOnly}/a.txt`, "a");
  const context = await createTestContext({
    workspace: fixture.sandbox.workspace,
    readRoots: [readOnly],
  });
  const outcome = await callTool(deleteFileTool, { path: `${readOnly}/a.txt` }, context);
  assert.equal(outcome.error?.type, "path_outside_sandbox");
  assert.equal(await exists(`${readOnly}/a.txt`), true);
});

Deno.test({
  name: "fs.delete_file refuses a FIFO and keeps it",
  ignore: !canCreateFifo(),
  fn: async () => {
    await using fixture = await openFixture();
    await createFifo(fixture.inWorkspace("pipe"));
    const outcome = await withTimeout(
      fixture.call(deleteFileTool, { path: "pipe" }),
      5000,
      "delete a FIFO",
    );
    assert.equal(outcome.error?.type, "not_a_regular_file");
    assert.equal((await Deno.lstat(fixture.inWorkspace("pipe"))).isFifo, true);
  },
});
