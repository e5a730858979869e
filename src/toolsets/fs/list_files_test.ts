import assert from "node:assert/strict";
import {
  callTool,
  canCreateFifo,
  createFifo,
  createTestContext,
  withTimeout,
} from "../../testing/mod.ts";
import { CANARY, openFixture } from "./_fixture.ts";
import { type ListFilesData, listFilesTool } from "./list_files.ts";

Deno.test("fs.list_files lists the workspace when path is absent", async () => {
  await using fixture = await openFixture({
    "b.txt": "12345",
    "a/one.ts": "1",
    ".env": "SECRET=1",
  });
  await Deno.symlink("b.txt", fixture.inWorkspace("c-link"));
  const outcome = await fixture.call(listFilesTool, {});
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(outcome.output, ".env  (8 bytes)\na/\nb.txt  (5 bytes)\nc-link -> symlink");
  assert.equal(outcome.summary, 'Listed 4 entries of "."');
  const data = outcome.data as ListFilesData;
  assert.deepEqual(data.entries, [
    { path: ".env", type: "file", size: 8 },
    { path: "a", type: "directory", size: 0 },
    { path: "b.txt", type: "file", size: 5 },
    { path: "c-link", type: "symlink", size: 0 },
  ]);
  assert.equal(data.truncated, false);
});

Deno.test("fs.list_files descends folders in stable walk order and skips .git when recursive", async () => {
  await using fixture = await openFixture({
    "src/b.ts": "",
    "src/a/z.ts": "",
    "readme.md": "",
    ".git/config": "[core]",
  });
  const outcome = await fixture.call(listFilesTool, { path: ".", recursive: true });
  const data = outcome.data as ListFilesData;
  assert.deepEqual(data.entries.map((entry) => entry.path), [
    ".git",
    "readme.md",
    "src",
    "src/a",
    "src/a/z.ts",
    "src/b.ts",
  ]);
  assert.equal(data.stats.excluded, 1);
  assert.ok(!outcome.output.includes(".git/config"));
});

Deno.test("fs.list_files lists only the entries of a sub-folder when path names it", async () => {
  await using fixture = await openFixture({ "src/a.ts": "x", "other.ts": "" });
  const outcome = await fixture.call(listFilesTool, { path: "src" });
  assert.equal(outcome.output, "src/a.ts  (1 byte)");
  assert.equal(outcome.summary, 'Listed 1 entry of "src"');
});

Deno.test("fs.list_files lists just that file when path is a file", async () => {
  await using fixture = await openFixture({ "src/a.ts": "abc" });
  const outcome = await fixture.call(listFilesTool, { path: "src/a.ts" });
  assert.deepEqual((outcome.data as ListFilesData).entries, [{
    path: "src/a.ts",
    type: "file",
    size: 3,
  }]);
});

Deno.test("fs.list_files stops at limit and marks truncated when there are more entries", async () => {
  const files = Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`f${index}.txt`, ""]));
  await using fixture = await openFixture(files);
  const outcome = await fixture.call(listFilesTool, { limit: 3 });
  const data = outcome.data as ListFilesData;
  assert.equal(data.entries.length, 3);
  assert.equal(data.truncated, true);
  assert.match(outcome.summary, /\(truncated\)$/);
  assert.match(outcome.output, /\[truncated: more than 3 entries/);
  const exact = await fixture.call(listFilesTool, { limit: 10 });
  assert.equal((exact.data as ListFilesData).truncated, false);
});

Deno.test("fs.list_files fails with file_not_found when the folder does not exist", async () => {
  await using fixture = await openFixture();
  const outcome = await fixture.call(listFilesTool, { path: "nope" });
  assert.equal(outcome.error?.type, "file_not_found");
  assert.equal(outcome.error?.message, 'Cannot list "nope": it does not exist');
});

Deno.test("fs.list_files rejects arguments when limit is out of range", async () => {
  await using fixture = await openFixture();
  for (const limit of [0, 5001, 2.5]) {
    const outcome = await fixture.call(listFilesTool, { limit });
    assert.equal(outcome.error?.type, "invalid_arguments");
  }
  assert.equal((await fixture.call(listFilesTool, { limit: 5000 })).ok, true);
});

Deno.test("fs.list_files returns aborted when the run is interrupted", async () => {
  const controller = new AbortController();
  await using fixture = await openFixture({ "a/b.txt": "" });
  const context = await createTestContext({
    workspace: fixture.sandbox.workspace,
    signal: controller.signal,
  });
  controller.abort();
  const outcome = await callTool(listFilesTool, { recursive: true }, context);
  assert.equal(outcome.error?.type, "aborted");
});

Deno.test("fs.list_files declares a list target for the policy", () => {
  assert.deepEqual(listFilesTool.targets?.({ path: "src", recursive: true, limit: 1 }), [
    { kind: "path", path: "src", access: "list" },
  ]);
});

Deno.test("fs.list_files refuses folders outside the workspace and names none of their files", async () => {
  await using fixture = await openFixture({ "inside.txt": "" });
  await Deno.writeTextFile(fixture.inOutside(`${CANARY}.txt`), "");
  await Deno.mkdir(`${fixture.sandbox.root}/workspace2`);
  await Deno.writeTextFile(`${fixture.sandbox.root}/workspace2/${CANARY}`, "");
  await Deno.symlink(fixture.sandbox.outside, fixture.inWorkspace("out"));
  for (
    const path of [
      "..",
      "../outside",
      fixture.sandbox.outside,
      "../workspace2",
      "out",
      "/etc",
      "/proc/self/root",
    ]
  ) {
    const outcome = await fixture.call(listFilesTool, { path, recursive: true });
    assert.equal(outcome.error?.type, "path_outside_sandbox", path);
    assert.ok(!outcome.output.includes(CANARY));
  }
  const near = await fixture.call(listFilesTool, { recursive: true });
  assert.equal(near.output, "inside.txt  (0 bytes)\nout -> symlink");
});

Deno.test("fs.list_files shows a symlink to /etc and does not enter it when recursive", async () => {
  await using fixture = await openFixture({ "a.txt": "" });
  await Deno.symlink("/etc", fixture.inWorkspace("etcdir"));
  const outcome = await fixture.call(listFilesTool, { recursive: true });
  const data = outcome.data as ListFilesData;
  assert.deepEqual(data.entries.map((entry) => `${entry.path}:${entry.type}`), [
    "a.txt:file",
    "etcdir:symlink",
  ]);
  assert.ok(!outcome.output.includes("passwd"));
});

Deno.test("fs.list_files lists a symlinked folder inside the workspace when named directly", async () => {
  await using fixture = await openFixture({ "real/x.txt": "x" });
  await Deno.symlink("real", fixture.inWorkspace("alias"));
  const outcome = await fixture.call(listFilesTool, { path: "alias" });
  assert.equal(outcome.output, "real/x.txt  (1 byte)");
});

Deno.test("fs.list_files returns finite results when links point at . and ..", async () => {
  await using fixture = await openFixture({ "a/b.txt": "" });
  await Deno.symlink(".", fixture.inWorkspace("loop"));
  await Deno.symlink("..", fixture.inWorkspace("a/up"));
  const outcome = await withTimeout(
    fixture.call(listFilesTool, { recursive: true, limit: 5000 }),
    5000,
    "list a tree with link loops",
  );
  const data = outcome.data as ListFilesData;
  assert.deepEqual(data.entries.map((entry) => `${entry.path}:${entry.type}`), [
    "a:directory",
    "a/b.txt:file",
    "a/up:symlink",
    "loop:symlink",
  ]);
  assert.equal(data.truncated, false);
});

Deno.test("fs.list_files stops at the depth cap and marks truncated when folders nest 1000 deep", async () => {
  await using fixture = await openFixture();
  await Deno.mkdir(fixture.inWorkspace("d/".repeat(1000)), { recursive: true });
  const outcome = await withTimeout(
    fixture.call(listFilesTool, { recursive: true, limit: 5000 }),
    10_000,
    "list a deep chain",
  );
  const data = outcome.data as ListFilesData;
  assert.equal(data.truncated, true);
  assert.equal(data.entries.length, 64);
  assert.equal(data.stats.depth_limited, 1);
  assert.match(outcome.output, /\[truncated: 1 folders below depth 64 not entered\]/);
});

Deno.test({
  name: "fs.list_files shows a FIFO without opening it when one sits in the tree",
  ignore: !canCreateFifo(),
  fn: async () => {
    await using fixture = await openFixture({ "a.txt": "" });
    await createFifo(fixture.inWorkspace("pipe"));
    const outcome = await withTimeout(
      fixture.call(listFilesTool, { recursive: true }),
      5000,
      "list a FIFO",
    );
    assert.equal(outcome.output, "a.txt  (0 bytes)\npipe  (not a regular file)");
  },
});
