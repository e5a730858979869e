import assert from "node:assert/strict";
import { callTool } from "../../testing/call_tool.ts";
import { canCreateFifo, createFifo } from "../../testing/temp_sandbox.ts";
import { createTestContext } from "../../testing/tool_context.ts";
import { withTimeout } from "../../testing/with_timeout.ts";
import { exists, openFixture } from "./_fixture.ts";
import { type WriteFileData, writeFileTool } from "./write_file.ts";

/** Names in a folder, sorted. */
async function namesIn(folder: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(folder)) names.push(entry.name);
  return names.sort();
}

Deno.test("fs.write_file creates the file and its folders when they are missing", async () => {
  await using fixture = await openFixture();
  const outcome = await fixture.call(writeFileTool, { path: "notes/deep/a.md", content: "hello" });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("notes/deep/a.md")), "hello");
  assert.equal(outcome.summary, 'Wrote 5 bytes to "notes/deep/a.md" (created)');
  assert.deepEqual(
    outcome.data,
    { path: "notes/deep/a.md", bytes: 5, created: true } satisfies WriteFileData,
  );
  assert.deepEqual(await namesIn(fixture.inWorkspace("notes/deep")), ["a.md"]);
  // The folders were built in a temporary folder and renamed into place: none is left over.
  assert.deepEqual(await namesIn(fixture.inWorkspace(".")), ["notes"]);
});

Deno.test("fs.write_file counts UTF-8 bytes when the content is not ASCII", async () => {
  await using fixture = await openFixture();
  const outcome = await fixture.call(writeFileTool, { path: "é.txt", content: "café €" });
  assert.equal((outcome.data as WriteFileData).bytes, 9);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("é.txt")), "café €");
});

Deno.test("fs.write_file writes the content as text when it contains __proto__", async () => {
  await using fixture = await openFixture();
  const content = '{"__proto__": {"approved": true}}';
  const outcome = await fixture.call(writeFileTool, { path: "proto.json", content });
  assert.equal(outcome.ok, true);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("proto.json")), content);
  assert.equal(({} as Record<string, unknown>).approved, undefined);
});

Deno.test("fs.write_file fails with path_conflict and keeps the content when the file exists", async () => {
  await using fixture = await openFixture({ "a.txt": "original" });
  const outcome = await fixture.call(writeFileTool, { path: "a.txt", content: "new" });
  assert.equal(outcome.error?.type, "path_conflict");
  assert.equal(
    outcome.error?.message,
    'Cannot write file "a.txt": it exists; pass "overwrite": true to replace it',
  );
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("a.txt")), "original");
  const explicit = await fixture.call(writeFileTool, {
    path: "a.txt",
    content: "new",
    overwrite: false,
  });
  assert.equal(explicit.error?.type, "path_conflict");
});

Deno.test("fs.write_file replaces atomically, keeps the mode and leaves no temporary file when overwrite is true", async () => {
  await using fixture = await openFixture({ "dir/a.sh": "old", "dir/b.txt": "b" });
  await Deno.chmod(fixture.inWorkspace("dir/a.sh"), 0o750);
  const outcome = await fixture.call(writeFileTool, {
    path: "dir/a.sh",
    content: "#!/bin/sh\n",
    overwrite: true,
  });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal((outcome.data as WriteFileData).created, false);
  assert.match(outcome.summary, /\(replaced\)$/);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("dir/a.sh")), "#!/bin/sh\n");
  assert.equal(((await Deno.stat(fixture.inWorkspace("dir/a.sh"))).mode ?? 0) & 0o777, 0o750);
  assert.deepEqual(await namesIn(fixture.inWorkspace("dir")), ["a.sh", "b.txt"]);
});

Deno.test("fs.write_file fails with file_not_found when create_dirs is false and the folder is missing", async () => {
  await using fixture = await openFixture();
  const outcome = await fixture.call(writeFileTool, {
    path: "missing/a.txt",
    content: "x",
    create_dirs: false,
  });
  assert.equal(outcome.error?.type, "file_not_found");
  assert.equal(await exists(fixture.inWorkspace("missing")), false);
  const near = await fixture.call(writeFileTool, {
    path: "top.txt",
    content: "x",
    create_dirs: false,
  });
  assert.equal(near.ok, true);
});

Deno.test("fs.write_file fails with not_a_regular_file when the path is a folder", async () => {
  await using fixture = await openFixture({ "src/a.ts": "" });
  const outcome = await fixture.call(writeFileTool, { path: "src", content: "x", overwrite: true });
  assert.equal(outcome.error?.type, "not_a_regular_file");
  assert.equal((await Deno.stat(fixture.inWorkspace("src"))).isDirectory, true);
});

Deno.test("fs.write_file fails with file_too_large when the content passes 10 MiB of UTF-8", async () => {
  await using fixture = await openFixture();
  const content = "é".repeat(6 * 1024 * 1024); // 6 Mi characters, 12 MiB of UTF-8.
  const outcome = await fixture.call(writeFileTool, { path: "big.txt", content });
  assert.equal(outcome.error?.type, "file_too_large");
  assert.equal(await exists(fixture.inWorkspace("big.txt")), false);
});

Deno.test("fs.write_file rejects arguments when content is missing or a key is unknown", async () => {
  await using fixture = await openFixture();
  for (
    const args of [
      { path: "a.txt" },
      { path: "a.txt", content: 42 },
      { path: ["a.txt", "/etc/passwd"], content: "x" },
      { path: "a.txt", content: "x", approved: true },
    ]
  ) {
    const outcome = await fixture.call(writeFileTool, args);
    assert.equal(outcome.error?.type, "invalid_arguments", JSON.stringify(args));
  }
  assert.deepEqual(await Array.fromAsync(Deno.readDir(fixture.sandbox.workspace)), []);
});

Deno.test("fs.write_file declares a write target for the policy", () => {
  assert.deepEqual(
    writeFileTool.targets?.({ path: "a.txt", content: "", create_dirs: true, overwrite: false }),
    [{ kind: "path", path: "a.txt", access: "write" }],
  );
});

Deno.test("fs.write_file refuses a dangling symlink out and creates nothing outside", async () => {
  await using fixture = await openFixture();
  await Deno.symlink(fixture.inOutside("new.txt"), fixture.inWorkspace("d"));
  for (const overwrite of [false, true]) {
    const outcome = await fixture.call(writeFileTool, { path: "d", content: "owned", overwrite });
    assert.equal(outcome.error?.type, "path_outside_sandbox");
  }
  assert.equal(await exists(fixture.inOutside("new.txt")), false);
  assert.equal((await Deno.lstat(fixture.inWorkspace("d"))).isSymlink, true);
});

Deno.test("fs.write_file writes the target when a dangling symlink points inside the workspace", async () => {
  await using fixture = await openFixture();
  await Deno.symlink("later.txt", fixture.inWorkspace("d"));
  const outcome = await fixture.call(writeFileTool, { path: "d", content: "inside" });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal((outcome.data as WriteFileData).path, "later.txt");
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("later.txt")), "inside");
  assert.equal((await Deno.lstat(fixture.inWorkspace("d"))).isSymlink, true);
});

Deno.test("fs.write_file refuses a symlinked folder out and creates nothing outside", async () => {
  await using fixture = await openFixture();
  await Deno.symlink(fixture.sandbox.outside, fixture.inWorkspace("out"));
  const outcome = await fixture.call(writeFileTool, {
    path: "out/authorized_keys",
    content: "ssh-ed25519 AAAA",
  });
  assert.equal(outcome.error?.type, "path_outside_sandbox");
  const nested = await fixture.call(writeFileTool, {
    path: "out/.ssh/authorized_keys",
    content: "x",
  });
  assert.equal(nested.error?.type, "path_outside_sandbox");
  assert.deepEqual(await namesIn(fixture.sandbox.outside), []);
});

Deno.test("fs.write_file writes through a symlinked folder when it points inside the workspace", async () => {
  await using fixture = await openFixture({ "docs/readme.md": "" });
  await Deno.symlink("docs", fixture.inWorkspace("docs-link"));
  const outcome = await fixture.call(writeFileTool, { path: "docs-link/new.md", content: "x" });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("docs/new.md")), "x");
});

Deno.test("fs.write_file refuses paths that leave the workspace and creates nothing there", async (t) => {
  await using fixture = await openFixture();
  const root = fixture.sandbox.root;
  const attacks: [string, string][] = [
    ["../outside/x.txt", "path_outside_sandbox"],
    [fixture.inOutside("x.txt"), "path_outside_sandbox"],
    [`${root}/workspace2/x`, "path_outside_sandbox"],
    [`${root}/workspace-old/x`, "path_outside_sandbox"],
    ["../workspace2/x", "path_outside_sandbox"],
    ["sub/../../outside/y.txt", "path_outside_sandbox"],
    ["/proc/self/root" + fixture.inOutside("z.txt"), "path_outside_sandbox"],
    ["~root/.bashrc", "path_outside_sandbox"],
    ["~/.bashrc", "path_outside_sandbox"],
    ["a\u0000/x", "invalid_arguments"],
  ];
  for (const [path, type] of attacks) {
    await t.step(`refuses ${JSON.stringify(path)}`, async () => {
      const outcome = await fixture.call(writeFileTool, { path, content: "owned" });
      assert.equal(outcome.error?.type, type, outcome.error?.message);
    });
  }
  assert.deepEqual(await namesIn(fixture.sandbox.outside), []);
  assert.deepEqual((await namesIn(root)).filter((name) => name.startsWith("workspace")), [
    "workspace",
  ]);
  await t.step("writes odd inside names (near miss)", async () => {
    for (const path of ["..test", "test..", "...", "%2e%2e/x"]) {
      const outcome = await fixture.call(writeFileTool, { path, content: path });
      assert.equal(outcome.ok, true, outcome.output);
      assert.equal(await Deno.readTextFile(fixture.inWorkspace(path)), path);
    }
  });
});

Deno.test("fs.write_file refuses a read-only root while it writes a write root", async () => {
  await using fixture = await openFixture();
  const readOnly = fixture.inOutside("docs");
  const writable = fixture.inOutside("out");
  await Deno.mkdir(readOnly);
  await Deno.mkdir(writable);
  const context = await createTestContext({
    workspace: fixture.sandbox.workspace,
    readRoots: [readOnly],
    writeRoots: [writable],
  });
  const refused = await callTool(
    writeFileTool,
    { path: `${readOnly}/a.txt`, content: "x" },
    context,
  );
  assert.equal(refused.error?.type, "path_outside_sandbox");
  assert.match(refused.error?.message ?? "", /read-only root/);
  assert.equal(await exists(`${readOnly}/a.txt`), false);
  const allowed = await callTool(
    writeFileTool,
    { path: `${writable}/a.txt`, content: "x" },
    context,
  );
  assert.equal(allowed.ok, true, allowed.output);
  assert.equal(await Deno.readTextFile(`${writable}/a.txt`), "x");
});

Deno.test({
  name: "fs.write_file refuses a FIFO without hanging when the path names one",
  ignore: !canCreateFifo(),
  fn: async () => {
    await using fixture = await openFixture();
    await createFifo(fixture.inWorkspace("pipe"));
    const outcome = await withTimeout(
      fixture.call(writeFileTool, { path: "pipe", content: "x", overwrite: true }),
      5000,
      "write a FIFO",
    );
    assert.equal(outcome.error?.type, "not_a_regular_file");
    assert.equal((await Deno.lstat(fixture.inWorkspace("pipe"))).isFifo, true);
  },
});
