import assert from "node:assert/strict";
import { CANARY, exists, openFixture } from "./_fixture.ts";
import { type EditFileData, editFileTool } from "./edit_file.ts";

const SOURCE =
  "function greet() {\n  return 'hello';\n}\n\nfunction part() {\n  return 'bye';\n}\n";

Deno.test("fs.edit_file replaces unique text and answers with the diff when one edit is given", async () => {
  await using fixture = await openFixture({ "src/a.ts": SOURCE });
  const outcome = await fixture.call(editFileTool, {
    path: "src/a.ts",
    edits: [{ old: "return 'hello';", new: "return 'hi';" }],
  });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(
    await Deno.readTextFile(fixture.inWorkspace("src/a.ts")),
    SOURCE.replace("hello", "hi"),
  );
  assert.match(outcome.output, /^--- src\/a\.ts\n\+\+\+ src\/a\.ts\n/m);
  const diffLines = outcome.output.split("\n");
  assert.ok(diffLines.includes("-  return 'hello';"), outcome.output);
  assert.ok(diffLines.includes("+  return 'hi';"), outcome.output);
  assert.equal(outcome.summary, 'Edited "src/a.ts": 1 edit, 1 replacement');
  assert.deepEqual(
    outcome.data,
    {
      path: "src/a.ts",
      edits_applied: 1,
      replacements: 1,
      bytes_before: SOURCE.length,
      bytes_after: SOURCE.length - 3,
      created: false,
    } satisfies EditFileData,
  );
});

Deno.test("fs.edit_file applies edits in order when a later edit depends on an earlier one", async () => {
  await using fixture = await openFixture({ "a.txt": "alpha beta\n" });
  const outcome = await fixture.call(editFileTool, {
    path: "a.txt",
    edits: [{ old: "alpha", new: "gamma" }, { old: "gamma beta", new: "done" }],
  });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("a.txt")), "done\n");
});

Deno.test("fs.edit_file replaces every occurrence literally when replace_all is true", async () => {
  await using fixture = await openFixture({ "a.txt": "x = 1\nx = 1\nx = 1\n" });
  const outcome = await fixture.call(editFileTool, {
    path: "a.txt",
    edits: [{ old: "x = 1", new: "y = $& $1" }],
    replace_all: true,
  });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("a.txt")), "y = $& $1\n".repeat(3));
  assert.equal((outcome.data as EditFileData).replacements, 3);
});

Deno.test("fs.edit_file fails with text_not_found and leaves the file when old is absent", async () => {
  await using fixture = await openFixture({ "a.ts": SOURCE });
  const outcome = await fixture.call(editFileTool, {
    path: "a.ts",
    edits: [{ old: "return 'bye';", new: "x" }, {
      old: "function part() {\n    return 'bye';",
      new: "",
    }],
  });
  assert.equal(outcome.error?.type, "text_not_found");
  assert.deepEqual(outcome.error?.details, { path: "a.ts", edit_index: 1, closest_line: 5 });
  assert.match(
    outcome.error?.message ?? "",
    /^Cannot edit file "a\.ts": edits\[1\]\.old was not found; its first line appears at line 5/,
  );
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("a.ts")), SOURCE);
});

Deno.test("fs.edit_file fails with ambiguous_edit and leaves the file when old occurs twice", async () => {
  await using fixture = await openFixture({ "a.ts": SOURCE });
  const outcome = await fixture.call(editFileTool, {
    path: "a.ts",
    edits: [{ old: "  return", new: "  yield" }],
  });
  assert.equal(outcome.error?.type, "ambiguous_edit");
  assert.deepEqual(outcome.error?.details, {
    path: "a.ts",
    edit_index: 0,
    count: 2,
    lines: [2, 6],
  });
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("a.ts")), SOURCE);
  const unique = await fixture.call(editFileTool, {
    path: "a.ts",
    edits: [{ old: "  return 'bye'", new: "  yield" }],
  });
  assert.equal(unique.ok, true, unique.output);
});

Deno.test("fs.edit_file rejects arguments when edits and unified_diff are both or neither given", async () => {
  await using fixture = await openFixture({ "a.txt": "a\n" });
  const both = await fixture.call(editFileTool, {
    path: "a.txt",
    edits: [{ old: "a", new: "b" }],
    unified_diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
  });
  assert.equal(both.error?.type, "invalid_arguments");
  assert.equal(
    both.error?.message,
    'Cannot edit file "a.txt": give exactly one of "edits" and "unified_diff"',
  );
  const neither = await fixture.call(editFileTool, { path: "a.txt" });
  assert.equal(neither.error?.type, "invalid_arguments");
  const empty = await fixture.call(editFileTool, { path: "a.txt", edits: [] });
  assert.equal(empty.error?.type, "invalid_arguments");
  const tooMany = Array.from({ length: 101 }, () => ({ old: "a", new: "a" }));
  assert.equal(
    (await fixture.call(editFileTool, { path: "a.txt", edits: tooMany })).error?.type,
    "invalid_arguments",
  );
  const extra = await fixture.call(editFileTool, {
    path: "a.txt",
    edits: [{ old: "a", new: "b", regex: true }],
  });
  assert.equal(extra.error?.type, "invalid_arguments");
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("a.txt")), "a\n");
});

Deno.test("fs.edit_file rejects an empty old when the file exists", async () => {
  await using fixture = await openFixture({ "a.txt": "a\n" });
  const outcome = await fixture.call(editFileTool, {
    path: "a.txt",
    edits: [{ old: "", new: "b" }],
    create_if_missing: true,
  });
  assert.equal(outcome.error?.type, "invalid_arguments");
  assert.equal(outcome.error?.details.edit_index, 0);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("a.txt")), "a\n");
});

Deno.test("fs.edit_file fails with file_not_found when the file is missing and create_if_missing is false", async () => {
  await using fixture = await openFixture();
  const outcome = await fixture.call(editFileTool, {
    path: "new.txt",
    edits: [{ old: "", new: "x" }],
  });
  assert.equal(outcome.error?.type, "file_not_found");
  assert.equal(await exists(fixture.inWorkspace("new.txt")), false);
  const wrongShape = await fixture.call(editFileTool, {
    path: "new.txt",
    edits: [{ old: "a", new: "x" }],
    create_if_missing: true,
  });
  assert.equal(wrongShape.error?.type, "file_not_found");
  assert.equal(await exists(fixture.inWorkspace("new.txt")), false);
});

Deno.test("fs.edit_file creates the file when create_if_missing is true with one empty old", async () => {
  await using fixture = await openFixture();
  const outcome = await fixture.call(editFileTool, {
    path: "docs/new.md",
    edits: [{ old: "", new: "# Title\n" }],
    create_if_missing: true,
  });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("docs/new.md")), "# Title\n");
  assert.equal((outcome.data as EditFileData).created, true);
  assert.match(outcome.output, /^--- \/dev\/null\n\+\+\+ docs\/new\.md/);
  assert.match(outcome.output, /^\+# Title$/m);
});

Deno.test("fs.edit_file fails with not_a_regular_file when the path is a folder", async () => {
  await using fixture = await openFixture({ "src/a.ts": "" });
  const outcome = await fixture.call(editFileTool, {
    path: "src",
    edits: [{ old: "a", new: "b" }],
  });
  assert.equal(outcome.error?.type, "not_a_regular_file");
});

Deno.test("fs.edit_file fails with binary_file and leaves the file when it has NUL bytes", async () => {
  const bytes = new Uint8Array([0x61, 0x00, 0x62, 0x0a]);
  await using fixture = await openFixture({ "a.bin": bytes });
  const outcome = await fixture.call(editFileTool, {
    path: "a.bin",
    edits: [{ old: "a", new: "c" }],
  });
  assert.equal(outcome.error?.type, "binary_file");
  assert.deepEqual(await Deno.readFile(fixture.inWorkspace("a.bin")), bytes);
});

Deno.test("fs.edit_file fails with file_too_large when the file passes 10 MiB", async () => {
  await using fixture = await openFixture({ "big.txt": "a\n" });
  await Deno.truncate(fixture.inWorkspace("big.txt"), 11 * 1024 * 1024);
  const outcome = await fixture.call(editFileTool, {
    path: "big.txt",
    edits: [{ old: "a", new: "b" }],
  });
  assert.equal(outcome.error?.type, "file_too_large");
  assert.equal((await Deno.stat(fixture.inWorkspace("big.txt"))).size, 11 * 1024 * 1024);
});

Deno.test("fs.edit_file keeps CRLF line endings when edits use LF", async () => {
  await using fixture = await openFixture({ "dos.txt": "one\r\ntwo\r\nthree\r\n" });
  const outcome = await fixture.call(editFileTool, {
    path: "dos.txt",
    edits: [{ old: "one\ntwo", new: "1\n2\n2.5" }],
  });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(
    await Deno.readTextFile(fixture.inWorkspace("dos.txt")),
    "1\r\n2\r\n2.5\r\nthree\r\n",
  );
});

Deno.test("fs.edit_file keeps CRLF line endings when the unified diff uses LF", async () => {
  await using fixture = await openFixture({ "dos.txt": "one\r\ntwo\r\nthree\r\n" });
  const diff = "--- a/dos.txt\n+++ b/dos.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
  const outcome = await fixture.call(editFileTool, { path: "dos.txt", unified_diff: diff });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("dos.txt")), "one\r\nTWO\r\nthree\r\n");
});

Deno.test("fs.edit_file keeps the file mode when it rewrites the file", async () => {
  await using fixture = await openFixture({ "run.sh": "echo a\n" });
  await Deno.chmod(fixture.inWorkspace("run.sh"), 0o755);
  await fixture.call(editFileTool, { path: "run.sh", edits: [{ old: "a", new: "b" }] });
  assert.equal(((await Deno.stat(fixture.inWorkspace("run.sh"))).mode ?? 0) & 0o777, 0o755);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("run.sh")), "echo b\n");
});

Deno.test("fs.edit_file applies a unified diff with two hunks when its context matches", async () => {
  const text = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`).join("\n") + "\n";
  await using fixture = await openFixture({ "a.txt": text });
  const diff = [
    "diff --git a/a.txt b/a.txt",
    "--- a/a.txt",
    "+++ b/a.txt",
    "@@ -1,3 +1,3 @@",
    " line 1",
    "-line 2",
    "+line two",
    " line 3",
    "@@ -17,4 +17,5 @@",
    " line 17",
    " line 18",
    " line 19",
    "+line 19.5",
    " line 20",
    "",
  ].join("\n");
  const outcome = await fixture.call(editFileTool, { path: "a.txt", unified_diff: diff });
  assert.equal(outcome.ok, true, outcome.output);
  const after = await Deno.readTextFile(fixture.inWorkspace("a.txt"));
  assert.equal(
    after,
    text.replace("line 2\n", "line two\n").replace("line 20\n", "line 19.5\nline 20\n"),
  );
  assert.equal(outcome.summary, 'Edited "a.txt": applied a diff of 2 hunks');
  assert.equal((outcome.data as EditFileData).edits_applied, 2);
});

Deno.test("fs.edit_file fails with patch_apply_failed naming the hunk when its context does not match", async () => {
  const text = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`).join("\n") + "\n";
  await using fixture = await openFixture({ "a.txt": text });
  const diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n line 1\n-line 2\n+two\n" +
    "@@ -10,2 +10,2 @@\n line ten\n-line 11\n+eleven\n";
  const outcome = await fixture.call(editFileTool, { path: "a.txt", unified_diff: diff });
  assert.equal(outcome.error?.type, "patch_apply_failed");
  assert.equal(outcome.error?.details.hunk, 2);
  assert.match(
    outcome.error?.message ?? "",
    /hunk 2 of 2 \(@@ -10,2 \+10,2 @@\) does not match the file/,
  );
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("a.txt")), text);
});

Deno.test("fs.edit_file refuses a diff and leaves the file when it is multi-file, a rename, a creation or binary", async (t) => {
  await using fixture = await openFixture({ "a.txt": "a\n", "b.txt": "b\n" });
  const cases: [string, string, RegExp][] = [
    [
      "multi-file",
      "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n",
      /it changes 2 files; send one diff per file/,
    ],
    [
      "rename",
      "--- a/a.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-a\n+A\n",
      /it renames "a\/a\.txt" to "b\/c\.txt"/,
    ],
    [
      "git rename",
      "diff --git a/a.txt b/c.txt\nsimilarity index 90%\nrename from a.txt\nrename to c.txt\n",
      /"rename from" header/,
    ],
    ["deletion", "--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", /creates or deletes a file/],
    ["creation", "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n", /creates or deletes a file/],
    [
      "binary",
      "diff --git a/a.txt b/a.txt\nBinary files a/a.txt and b/a.txt differ\n",
      /binary patch/,
    ],
    [
      "git binary",
      "diff --git a/a.txt b/a.txt\nGIT binary patch\nliteral 3\nKcmZ>\n",
      /binary patch/,
    ],
    ["unparsable", "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n+B\n", /cannot be parsed/],
    ["no hunks", "just some words\n", /cannot be parsed|no hunks/],
  ];
  for (const [name, diff, reason] of cases) {
    await t.step(name, async () => {
      const outcome = await fixture.call(editFileTool, { path: "a.txt", unified_diff: diff });
      assert.equal(outcome.error?.type, "patch_apply_failed", outcome.output);
      assert.match(outcome.error?.message ?? "", reason);
      assert.equal(await Deno.readTextFile(fixture.inWorkspace("a.txt")), "a\n");
      assert.equal(await Deno.readTextFile(fixture.inWorkspace("b.txt")), "b\n");
      assert.equal(await exists(fixture.inWorkspace("c.txt")), false);
    });
  }
  await t.step("applies the single-file diff (near miss)", async () => {
    const outcome = await fixture.call(editFileTool, {
      path: "a.txt",
      unified_diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n",
    });
    assert.equal(outcome.ok, true, outcome.output);
    assert.equal(await Deno.readTextFile(fixture.inWorkspace("a.txt")), "A\n");
  });
});

Deno.test("fs.edit_file caps the diff output at 200 lines when the change is large", async () => {
  await using fixture = await openFixture({ "a.txt": "x\n".repeat(300) });
  const outcome = await fixture.call(editFileTool, {
    path: "a.txt",
    edits: [{ old: "x", new: "y" }],
    replace_all: true,
  });
  assert.equal(outcome.ok, true);
  const lines = outcome.output.split("\n");
  assert.equal(lines.length, 201);
  assert.match(lines.at(-1) ?? "", /^\[diff truncated: \d+ more lines\]$/);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("a.txt")), "y\n".repeat(300));
});

Deno.test("fs.edit_file declares a write target for the policy", () => {
  assert.deepEqual(
    editFileTool.targets?.({ path: "a.txt", replace_all: false, create_if_missing: false }),
    [{ kind: "path", path: "a.txt", access: "write" }],
  );
});

Deno.test("fs.edit_file refuses files outside through symlinks and leaves them unchanged", async () => {
  await using fixture = await openFixture({ "inside.txt": "key\n" });
  await Deno.writeTextFile(fixture.inOutside("authorized_keys"), `${CANARY}\n`);
  await Deno.symlink(fixture.sandbox.outside, fixture.inWorkspace("out"));
  await Deno.symlink(fixture.inOutside("authorized_keys"), fixture.inWorkspace("leak"));
  for (
    const path of [
      "out/authorized_keys",
      "leak",
      "../outside/authorized_keys",
      fixture.inOutside("authorized_keys"),
    ]
  ) {
    const outcome = await fixture.call(editFileTool, {
      path,
      edits: [{ old: CANARY, new: "ssh-ed25519 AAAA" }],
    });
    assert.equal(outcome.error?.type, "path_outside_sandbox", path);
    assert.ok(!outcome.output.includes(CANARY));
  }
  assert.equal(await Deno.readTextFile(fixture.inOutside("authorized_keys")), `${CANARY}\n`);
  const created = await fixture.call(editFileTool, {
    path: "out/new_keys",
    edits: [{ old: "", new: "x" }],
    create_if_missing: true,
  });
  assert.equal(created.error?.type, "path_outside_sandbox");
  assert.equal(await exists(fixture.inOutside("new_keys")), false);
});

Deno.test("fs.edit_file edits the target when a symlink points inside the workspace", async () => {
  await using fixture = await openFixture({ "real.txt": "old\n" });
  await Deno.symlink("real.txt", fixture.inWorkspace("alias"));
  const outcome = await fixture.call(editFileTool, {
    path: "alias",
    edits: [{ old: "old", new: "new" }],
  });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(await Deno.readTextFile(fixture.inWorkspace("real.txt")), "new\n");
  assert.equal((await Deno.lstat(fixture.inWorkspace("alias"))).isSymlink, true);
});
