import assert from "node:assert/strict";
import { callTool } from "../../testing/call_tool.ts";
import { canCreateFifo, createFifo } from "../../testing/temp_sandbox.ts";
import { createTestContext } from "../../testing/tool_context.ts";
import { withTimeout } from "../../testing/with_timeout.ts";
import { CANARY, openFixture } from "./_fixture.ts";
import { type ReadFileData, readFileTool } from "./read_file.ts";

const lines = (count: number, prefix = "line") =>
  Array.from({ length: count }, (_, index) => `${prefix} ${index + 1}\n`).join("");

Deno.test("fs.read_file returns numbered lines when the file is small", async () => {
  await using fixture = await openFixture({ "src/a.ts": "const a = 1;\n\tindented\n" });
  const outcome = await fixture.call(readFileTool, { path: "src/a.ts" });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(outcome.output, "    1\tconst a = 1;\n    2\t\tindented");
  assert.equal(outcome.summary, 'Read 2 lines of "src/a.ts"');
  assert.deepEqual(
    outcome.data,
    {
      path: "src/a.ts",
      start_line: 1,
      end_line: 2,
      total_lines_known: true,
      total_lines: 2,
      truncated: false,
      next_start_line: null,
      truncated_lines: [],
      bytes: 23,
    } satisfies ReadFileData,
  );
});

Deno.test("fs.read_file counts a last line without a final newline", async () => {
  await using fixture = await openFixture({ "a.txt": "one\ntwo" });
  const outcome = await fixture.call(readFileTool, { path: "a.txt" });
  assert.equal(outcome.output, "    1\tone\n    2\ttwo");
  assert.equal((outcome.data as ReadFileData).total_lines, 2);
});

Deno.test("fs.read_file returns 200 lines and the next start when max_lines is absent", async () => {
  await using fixture = await openFixture({ "long.txt": lines(250) });
  const outcome = await fixture.call(readFileTool, { path: "long.txt" });
  const data = outcome.data as ReadFileData;
  assert.equal(data.end_line, 200);
  assert.equal(data.truncated, true);
  assert.equal(data.next_start_line, 201);
  assert.equal(data.total_lines_known, false);
  assert.equal(outcome.output.split("\n").length, 200);
  assert.equal(outcome.output.split("\n").at(-1), "  200\tline 200");
  assert.match(outcome.summary, /Read lines 1-200 of "long.txt"; more from line 201/);
});

Deno.test("fs.read_file returns the window asked when start_line and max_lines are given", async () => {
  await using fixture = await openFixture({ "long.txt": lines(250) });
  const outcome = await fixture.call(readFileTool, {
    path: "long.txt",
    start_line: 201,
    max_lines: 50,
  });
  const data = outcome.data as ReadFileData;
  assert.equal(outcome.output.split("\n")[0], "  201\tline 201");
  assert.equal(data.end_line, 250);
  assert.equal(data.truncated, false);
  assert.equal(data.next_start_line, null);
  assert.equal(data.total_lines, 250);
});

Deno.test("fs.read_file widens the number column when line numbers pass 99999", async () => {
  await using fixture = await openFixture({ "big.txt": lines(100_001) });
  const outcome = await fixture.call(readFileTool, { path: "big.txt", start_line: 100_000 });
  assert.equal(outcome.output, "100000\tline 100000\n100001\tline 100001");
});

Deno.test("fs.read_file cuts long lines at a UTF-8 boundary when they pass 4096 bytes", async () => {
  const long = "ab" + "€".repeat(2000); // 2 + 6000 bytes; byte 4096 falls inside a "€".
  await using fixture = await openFixture({ "wide.txt": `short\n${long}\nafter\n` });
  const outcome = await fixture.call(readFileTool, { path: "wide.txt" });
  assert.equal(outcome.ok, true);
  const data = outcome.data as ReadFileData;
  assert.deepEqual(data.truncated_lines, [2]);
  const second = outcome.output.split("\n")[1] ?? "";
  const kept = "ab" + "€".repeat(1364);
  assert.equal(second, `    2\t${kept} […cut 1908 bytes]`);
  assert.equal(new TextEncoder().encode(kept).byteLength, 4094);
  assert.equal(outcome.output.split("\n")[2], "    3\tafter");
});

Deno.test("fs.read_file hides the CR when the file has CRLF line endings", async () => {
  await using fixture = await openFixture({ "dos.txt": "one\r\ntwo\r\n" });
  const outcome = await fixture.call(readFileTool, { path: "dos.txt" });
  assert.equal(outcome.output, "    1\tone\n    2\ttwo");
});

Deno.test("fs.read_file succeeds with no lines when the file is empty", async () => {
  await using fixture = await openFixture({ "empty.txt": "" });
  const outcome = await fixture.call(readFileTool, { path: "empty.txt" });
  assert.equal(outcome.ok, true);
  assert.equal(outcome.output, "");
  assert.equal(outcome.summary, 'Read file "empty.txt": it is empty');
  const data = outcome.data as ReadFileData;
  assert.equal(data.total_lines, 0);
  assert.equal(data.end_line, 0);
});

Deno.test("fs.read_file succeeds with empty output when start_line is past the end", async () => {
  await using fixture = await openFixture({ "three.txt": lines(3) });
  const outcome = await fixture.call(readFileTool, { path: "three.txt", start_line: 10 });
  assert.equal(outcome.ok, true);
  assert.equal(outcome.output, "");
  assert.match(outcome.summary, /has 3 lines, start_line 10 is past the end/);
  assert.equal((outcome.data as ReadFileData).total_lines, 3);
});

Deno.test("fs.read_file reads only the window when the file is 2 GiB", async () => {
  await using fixture = await openFixture({ "huge.log": lines(2000) });
  await Deno.truncate(fixture.inWorkspace("huge.log"), 2 * 1024 * 1024 * 1024); // Sparse tail.
  const started = performance.now();
  const outcome = await fixture.call(readFileTool, {
    path: "huge.log",
    start_line: 3,
    max_lines: 5,
  });
  assert.ok(performance.now() - started < 2000, "a window of a huge file must be quick");
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(outcome.output.split("\n").length, 5);
  const data = outcome.data as ReadFileData;
  assert.equal(data.bytes, 2 * 1024 * 1024 * 1024);
  assert.equal(data.truncated, true);
  assert.equal(data.total_lines_known, false);
  assert.equal(data.next_start_line, 8);
});

Deno.test("fs.read_file refuses a binary file when it has a NUL byte and guesses its type", async () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  await using fixture = await openFixture({ "image.png": png });
  const outcome = await fixture.call(readFileTool, { path: "image.png" });
  assert.equal(outcome.error?.type, "binary_file");
  assert.deepEqual(outcome.error?.details, {
    path: "image.png",
    bytes: 12,
    media_type: "image/png",
  });
  assert.equal(
    outcome.error?.message,
    'Cannot read file "image.png": it is binary (image/png, 12 bytes)',
  );
});

Deno.test("fs.read_file refuses a binary file when it is not valid UTF-8", async () => {
  await using fixture = await openFixture({
    "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  });
  const outcome = await fixture.call(readFileTool, { path: "latin1.txt" });
  assert.equal(outcome.error?.type, "binary_file");
  assert.equal(outcome.error?.details.media_type, "application/octet-stream");
});

Deno.test("fs.read_file fails with file_not_found when the file does not exist", async () => {
  await using fixture = await openFixture();
  const outcome = await fixture.call(readFileTool, { path: "missing.txt" });
  assert.equal(outcome.ok, false);
  assert.equal(outcome.error?.type, "file_not_found");
  assert.equal(outcome.error?.message, 'Cannot read file "missing.txt": it does not exist');
});

Deno.test("fs.read_file fails with not_a_regular_file when the path is a folder", async () => {
  await using fixture = await openFixture({ "src/a.ts": "" });
  const outcome = await fixture.call(readFileTool, { path: "src" });
  assert.equal(outcome.error?.type, "not_a_regular_file");
});

Deno.test("fs.read_file rejects arguments when max_lines or start_line is out of range", async () => {
  await using fixture = await openFixture({ "a.txt": "a\n" });
  for (
    const args of [{ max_lines: 0 }, { max_lines: 1001 }, { start_line: 0 }, { max_lines: 1.5 }]
  ) {
    const outcome = await fixture.call(readFileTool, { path: "a.txt", ...args });
    assert.equal(outcome.error?.type, "invalid_arguments", JSON.stringify(args));
  }
  const extra = await fixture.call(readFileTool, { path: "a.txt", approved: true });
  assert.equal(extra.error?.type, "invalid_arguments");
  const near = await fixture.call(readFileTool, { path: "a.txt", max_lines: 1000, start_line: 1 });
  assert.equal(near.ok, true);
});

Deno.test("fs.read_file returns aborted when the run is interrupted", async () => {
  const controller = new AbortController();
  await using fixture = await openFixture({ "a.txt": "a\n" });
  const context = await createTestContext({
    workspace: fixture.sandbox.workspace,
    signal: controller.signal,
  });
  controller.abort();
  const outcome = await callTool(readFileTool, { path: "a.txt" }, context);
  assert.equal(outcome.error?.type, "aborted");
});

Deno.test("fs.read_file declares a read target for the policy", () => {
  assert.deepEqual(readFileTool.targets?.({ path: "src/a.ts", start_line: 1, max_lines: 1 }), [
    { kind: "path", path: "src/a.ts", access: "read" },
  ]);
});

Deno.test("fs.read_file refuses paths that leave the workspace and shows none of their content", async (t) => {
  await using fixture = await openFixture({ "inside.txt": "inside\n" }, {});
  const root = fixture.sandbox.root;
  await Deno.writeTextFile(fixture.inOutside("secret.txt"), `${CANARY}\n`);
  for (const sibling of ["workspace2", "workspace-old"]) {
    await Deno.mkdir(`${root}/${sibling}`);
    await Deno.writeTextFile(`${root}/${sibling}/x`, `${CANARY}\n`);
  }
  await Deno.writeTextFile(`${root}/workspace.bak`, `${CANARY}\n`);
  await Deno.symlink(fixture.inOutside("secret.txt"), fixture.inWorkspace("out-link"));
  await Deno.symlink("/etc/passwd", fixture.inWorkspace("leak"));
  await Deno.symlink("/proc/self/root", fixture.inWorkspace("r"));
  await Deno.mkdir(fixture.inWorkspace("src"));

  const attacks: [string, string][] = [
    ["../outside/secret.txt", "path_outside_sandbox"],
    [fixture.inOutside("secret.txt"), "path_outside_sandbox"],
    [`${root}/workspace2/x`, "path_outside_sandbox"],
    [`${root}/workspace-old/x`, "path_outside_sandbox"],
    [`${root}/workspace.bak`, "path_outside_sandbox"],
    ["../workspace2/x", "path_outside_sandbox"],
    ["src/../../outside/secret.txt", "path_outside_sandbox"],
    ["out-link", "path_outside_sandbox"],
    ["leak", "path_outside_sandbox"],
    ["/etc/passwd", "path_outside_sandbox"],
    ["~root/.bashrc", "path_outside_sandbox"],
    ["~/.ssh/id_rsa", "path_outside_sandbox"],
    ["/proc/self/root/etc/passwd", "path_outside_sandbox"],
    ["/proc/self/environ", "path_outside_sandbox"],
    ["r/etc/passwd", "path_outside_sandbox"],
    ["/dev/fd/3", "path_outside_sandbox"],
    ["/dev/stdin", "path_outside_sandbox"],
    ["a\u0000/etc/passwd", "invalid_arguments"],
    ["a/".repeat(1000) + "../".repeat(1001) + "outside/secret.txt", "invalid_arguments"],
  ];
  for (const [path, type] of attacks) {
    await t.step(`refuses ${JSON.stringify(path.slice(0, 60))}`, async () => {
      const outcome = await fixture.call(readFileTool, { path });
      assert.equal(outcome.ok, false);
      assert.equal(outcome.error?.type, type, outcome.error?.message);
      assert.ok(!outcome.output.includes(CANARY), "outside content must not appear");
      assert.ok(!outcome.output.includes("root:"), "/etc/passwd content must not appear");
      assert.equal(outcome.data, null);
    });
  }
  await t.step("reads the workspace file beside them (near miss)", async () => {
    const outcome = await fixture.call(readFileTool, { path: "inside.txt" });
    assert.equal(outcome.output, "    1\tinside");
  });
});

Deno.test("fs.read_file refuses a home path when home is outside the workspace", async () => {
  await using fixture = await openFixture();
  const home = fixture.inOutside("home");
  await Deno.mkdir(`${home}/.ssh`, { recursive: true });
  await Deno.writeTextFile(`${home}/.ssh/id_rsa`, CANARY);
  const context = await createTestContext({ workspace: fixture.sandbox.workspace, home });
  const outcome = await callTool(readFileTool, { path: "~/.ssh/id_rsa" }, context);
  assert.equal(outcome.error?.type, "path_outside_sandbox");
  assert.ok(!outcome.output.includes(CANARY));
});

Deno.test("fs.read_file reads odd but inside names when they only look like escapes", async (t) => {
  await using fixture = await openFixture({
    "..test": "dots before\n",
    "test..": "dots after\n",
    "...": "three dots\n",
    "%2e%2e/x": "literal percent\n",
    "sub/a.txt": "in sub\n",
  });
  await Deno.symlink("sub/a.txt", fixture.inWorkspace("inner-link"));
  const cases: [string, string][] = [
    ["..test", "dots before"],
    ["test..", "dots after"],
    ["...", "three dots"],
    ["%2e%2e/x", "literal percent"],
    ["sub//a.txt", "in sub"],
    ["sub/./a.txt", "in sub"],
    ["./sub/../sub/a.txt", "in sub"],
    [fixture.inWorkspace("sub/a.txt"), "in sub"],
    ["inner-link", "in sub"],
  ];
  for (const [path, text] of cases) {
    await t.step(`reads ${JSON.stringify(path)}`, async () => {
      const outcome = await fixture.call(readFileTool, { path });
      assert.equal(outcome.ok, true, outcome.output);
      assert.equal(outcome.output, `    1\t${text}`);
    });
  }
  const linked = await fixture.call(readFileTool, { path: "inner-link" });
  assert.equal((linked.data as ReadFileData).path, "sub/a.txt");
});

Deno.test({
  name: "fs.read_file refuses a FIFO without hanging when one sits in the workspace",
  ignore: !canCreateFifo(),
  fn: async () => {
    await using fixture = await openFixture({ "plain.txt": "plain\n" });
    await createFifo(fixture.inWorkspace("pipe"));
    const outcome = await withTimeout(
      fixture.call(readFileTool, { path: "pipe" }),
      5000,
      "read a FIFO",
    );
    assert.equal(outcome.error?.type, "not_a_regular_file");
    const near = await fixture.call(readFileTool, { path: "plain.txt" });
    assert.equal(near.output, "    1\tplain");
  },
});

Deno.test("fs.read_file refuses links to endless devices without hanging", async () => {
  await using fixture = await openFixture();
  await Deno.symlink("/dev/zero", fixture.inWorkspace("zero"));
  await Deno.symlink("/dev/urandom", fixture.inWorkspace("random"));
  for (const path of ["zero", "random", "/dev/zero"]) {
    const outcome = await withTimeout(fixture.call(readFileTool, { path }), 5000, `read ${path}`);
    assert.equal(outcome.error?.type, "path_outside_sandbox");
  }
});

Deno.test("fs.read_file reads a sensitive file when it is named directly (the policy decides before the call)", async () => {
  await using fixture = await openFixture({ ".env": "TOKEN=1\n" });
  const outcome = await fixture.call(readFileTool, { path: ".env" });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(outcome.output, "    1\tTOKEN=1");
  assert.equal(outcome.summary, 'Read 1 line of ".env"');
});
