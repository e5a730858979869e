import assert from "node:assert/strict";
import { callTool } from "../../testing/call_tool.ts";
import { canCreateFifo, createFifo, writeTree } from "../../testing/temp_sandbox.ts";
import { createTestContext } from "../../testing/tool_context.ts";
import { withTimeout } from "../../testing/with_timeout.ts";
import { openTestRun } from "../../testing/run_harness.ts";
import { CANARY, openFixture } from "./_fixture.ts";
import { type GrepFilesData, grepFilesTool } from "./grep_files.ts";

Deno.test("fs.grep_files returns path:line:text in walk order when lines match", async () => {
  await using fixture = await openFixture({
    "b.ts": "const needle = 1;\nother\n",
    "a/x.ts": "no\nneedle here\nneedle again\n",
    "c.md": "nothing\n",
  });
  const outcome = await fixture.call(grepFilesTool, { pattern: "needle" });
  assert.equal(outcome.ok, true, outcome.output);
  assert.equal(
    outcome.output,
    "a/x.ts:2:needle here\na/x.ts:3:needle again\nb.ts:1:const needle = 1;",
  );
  assert.equal(outcome.summary, 'Found 3 matches in 2 files of "." (scanned 3 files)');
  const data = outcome.data as GrepFilesData;
  assert.deepEqual(data.matches[0], { path: "a/x.ts", line: 2, text: "needle here" });
  assert.equal(data.files_scanned, 3);
  assert.equal(data.truncated, false);
});

Deno.test("fs.grep_files succeeds with no matches when nothing matches", async () => {
  await using fixture = await openFixture({ "a.txt": "alpha\n" });
  const outcome = await fixture.call(grepFilesTool, { pattern: "omega" });
  assert.equal(outcome.ok, true);
  assert.equal(outcome.output, 'Found no matches for "omega" in "." (scanned 1 file)');
  assert.equal(outcome.summary, 'Found no matches for "omega" in "." (scanned 1 file)');
});

Deno.test("fs.grep_files ignores letter case when case_sensitive is false", async () => {
  await using fixture = await openFixture({ "a.txt": "Hello\nhello\nHELLO\n" });
  const exact = await fixture.call(grepFilesTool, { pattern: "hello" });
  assert.equal((exact.data as GrepFilesData).matches.length, 1);
  const loose = await fixture.call(grepFilesTool, { pattern: "hello", case_sensitive: false });
  assert.equal((loose.data as GrepFilesData).matches.length, 3);
});

Deno.test("fs.grep_files anchors ^ and $ per line when the file has CRLF endings", async () => {
  await using fixture = await openFixture({ "dos.txt": "start end\r\nend\r\n" });
  const outcome = await fixture.call(grepFilesTool, { pattern: "^end$" });
  assert.equal(outcome.output, "dos.txt:2:end");
});

Deno.test("fs.grep_files filters by file name when the glob has no slash", async () => {
  await using fixture = await openFixture({
    "a.ts": "hit\n",
    "src/b.ts": "hit\n",
    "c.md": "hit\n",
    ".hidden.ts": "hit\n",
  });
  const outcome = await fixture.call(grepFilesTool, { pattern: "hit", glob: "*.ts" });
  assert.deepEqual((outcome.data as GrepFilesData).matches.map((match) => match.path), [
    ".hidden.ts",
    "a.ts",
    "src/b.ts",
  ]);
});

Deno.test("fs.grep_files filters by path below the searched folder when the glob has a slash", async () => {
  await using fixture = await openFixture({
    "docs/a.md": "hit\n",
    "docs/deep/b.md": "hit\n",
    "docs/c.txt": "hit\n",
    "other/d.md": "hit\n",
  });
  const outcome = await fixture.call(grepFilesTool, {
    pattern: "hit",
    path: "docs",
    glob: "deep/**/*.md",
  });
  assert.deepEqual((outcome.data as GrepFilesData).matches.map((match) => match.path), [
    "docs/deep/b.md",
  ]);
  const all = await fixture.call(grepFilesTool, { pattern: "hit", path: "docs", glob: "**/*.md" });
  assert.deepEqual((all.data as GrepFilesData).matches.map((match) => match.path), [
    "docs/a.md",
    "docs/deep/b.md",
  ]);
});

Deno.test("fs.grep_files searches one file when path is a file", async () => {
  await using fixture = await openFixture({ "a.txt": "x\nhit\n", "b.txt": "hit\n" });
  const outcome = await fixture.call(grepFilesTool, { pattern: "hit", path: "a.txt" });
  assert.equal(outcome.output, "a.txt:2:hit");
});

Deno.test("fs.grep_files stops at limit and marks truncated when more lines match", async () => {
  await using fixture = await openFixture({
    "a.txt": "hit\n".repeat(5),
    "b.txt": "hit\n".repeat(5),
  });
  const outcome = await fixture.call(grepFilesTool, { pattern: "hit", limit: 7 });
  const data = outcome.data as GrepFilesData;
  assert.equal(data.matches.length, 7);
  assert.equal(data.truncated, true);
  assert.deepEqual(data.matches.at(-1), { path: "b.txt", line: 2, text: "hit" });
  assert.match(outcome.output, /\[truncated: stopped at 7 matches/);
  const exact = await fixture.call(grepFilesTool, { pattern: "hit", limit: 10 });
  assert.equal((exact.data as GrepFilesData).truncated, false);
  const oneFile = await fixture.call(grepFilesTool, { pattern: "hit", path: "a.txt", limit: 4 });
  assert.equal((oneFile.data as GrepFilesData).matches.length, 4);
  assert.equal((oneFile.data as GrepFilesData).truncated, true);
});

Deno.test("fs.grep_files cuts long lines and keeps the match visible when a line passes 1000 characters", async () => {
  await using fixture = await openFixture({
    "min.js": "x".repeat(5000) + "NEEDLE" + "y".repeat(5000) + "\n",
  });
  const outcome = await fixture.call(grepFilesTool, { pattern: "NEEDLE" });
  const text = (outcome.data as GrepFilesData).matches[0]?.text ?? "";
  assert.ok(text.includes("NEEDLE"));
  assert.ok(text.length < 1100, `cut line is ${text.length} characters`);
  assert.match(text, /^…x+NEEDLEy+… \[…cut 9006 characters\]$/);
});

Deno.test("fs.grep_files rejects the pattern when it is not a valid regular expression", async () => {
  await using fixture = await openFixture({ "a.txt": "(\n" });
  const outcome = await fixture.call(grepFilesTool, { pattern: "(" });
  assert.equal(outcome.error?.type, "invalid_arguments");
  assert.match(
    outcome.error?.message ?? "",
    /^Cannot search for "\(": it is not a valid RE2 regular expression \(missing closing \)/,
  );
  const escaped = await fixture.call(grepFilesTool, { pattern: "\\(" });
  assert.equal(escaped.output, "a.txt:1:(");
  const long = await fixture.call(grepFilesTool, { pattern: "a".repeat(1001) });
  assert.equal(long.error?.type, "invalid_arguments");
});

Deno.test("fs.grep_files fails with file_not_found when the folder does not exist", async () => {
  await using fixture = await openFixture();
  const outcome = await fixture.call(grepFilesTool, { pattern: "x", path: "nope" });
  assert.equal(outcome.error?.type, "file_not_found");
});

Deno.test("fs.grep_files returns aborted when the run is interrupted", async () => {
  const controller = new AbortController();
  await using fixture = await openFixture({ "a.txt": "hit\n" });
  const context = await createTestContext({
    workspace: fixture.sandbox.workspace,
    signal: controller.signal,
  });
  controller.abort();
  const outcome = await callTool(grepFilesTool, { pattern: "hit" }, context);
  assert.equal(outcome.error?.type, "aborted");
});

Deno.test("fs.grep_files declares a list target for the policy", () => {
  assert.deepEqual(
    grepFilesTool.targets?.({ pattern: "x", path: "src", limit: 1, case_sensitive: true }),
    [{ kind: "path", path: "src", access: "list" }],
  );
});

Deno.test("fs.grep_files skips binary and oversized files and counts them", async () => {
  await using fixture = await openFixture({
    "bin.dat": new Uint8Array([0x68, 0x69, 0x74, 0x00, 0x0a]),
    "text.txt": "hit\n",
    "big.log": "hit\n",
  });
  await Deno.truncate(fixture.inWorkspace("big.log"), 11 * 1024 * 1024);
  const outcome = await fixture.call(grepFilesTool, { pattern: "hit" });
  const data = outcome.data as GrepFilesData;
  assert.deepEqual(data.matches, [{ path: "text.txt", line: 1, text: "hit" }]);
  assert.equal(data.skipped.binary, 1);
  assert.equal(data.skipped.too_large, 1);
  assert.match(outcome.output, /^\[skipped 1 file over 10 MiB: big\.log\]$/m);
  assert.match(outcome.output, /^\[skipped 1 binary file: bin\.dat\]$/m);
  assert.equal(
    outcome.summary,
    'Found 1 match in 1 file of "." (scanned 1 file; skipped 1 file over 10 MiB: big.log; ' +
      "skipped 1 binary file: bin.dat)",
  );
});

Deno.test("fs.grep_files never returns lines of sensitive files while it matches normal ones", async () => {
  await using fixture = await openFixture({
    ".env": `TOKEN=${CANARY}\n`,
    "config/.env.local": `TOKEN=${CANARY}\n`,
    "certs/server.pem": `${CANARY}\n`,
    "notes.txt": "TOKEN=placeholder\n",
  });
  await Deno.symlink(".env", fixture.inWorkspace("env-link"));
  const outcome = await fixture.call(grepFilesTool, { pattern: "TOKEN|canary" });
  assert.ok(!outcome.output.includes(CANARY));
  const data = outcome.data as GrepFilesData;
  assert.deepEqual(data.matches, [{ path: "notes.txt", line: 1, text: "TOKEN=placeholder" }]);
  assert.equal(data.skipped.sensitive, 4);
  assert.match(
    outcome.summary,
    /; skipped 4 sensitive files: \.env, certs\/server\.pem, config\/\.env\.local and 1 more\)$/,
  );
});

Deno.test("fs.grep_files never returns lines of a file outside through a symlink while it follows one inside", async () => {
  await using fixture = await openFixture({ "real.txt": "hit inside\n" });
  await Deno.writeTextFile(fixture.inOutside("secret.txt"), `hit ${CANARY}\n`);
  await Deno.symlink(fixture.inOutside("secret.txt"), fixture.inWorkspace("leak"));
  await Deno.symlink("/etc/passwd", fixture.inWorkspace("passwd"));
  await Deno.symlink("real.txt", fixture.inWorkspace("alias"));
  await Deno.symlink("missing.txt", fixture.inWorkspace("dangling"));
  const outcome = await fixture.call(grepFilesTool, { pattern: "hit|root" });
  assert.ok(!outcome.output.includes(CANARY));
  assert.ok(!outcome.output.includes("root:"));
  const data = outcome.data as GrepFilesData;
  assert.deepEqual(data.matches.map((match) => `${match.path}:${match.text}`), [
    "alias:hit inside",
    "real.txt:hit inside",
  ]);
  assert.equal(data.skipped.links, 3);
});

Deno.test("fs.grep_files never reads a file with another hard link while it reads ordinary ones", async () => {
  await using fixture = await openFixture({ "plain.txt": "hit plain\n" });
  await Deno.writeTextFile(fixture.inOutside("secret.txt"), `hit ${CANARY}\n`);
  await Deno.link(fixture.inOutside("secret.txt"), fixture.inWorkspace("linked.txt"));
  const outcome = await fixture.call(grepFilesTool, { pattern: "hit" });
  assert.ok(!outcome.output.includes(CANARY));
  const data = outcome.data as GrepFilesData;
  assert.deepEqual(data.matches, [{ path: "plain.txt", line: 1, text: "hit plain" }]);
  assert.equal(data.skipped.hard_links, 1);
  assert.match(outcome.output, /\[skipped 1 file with other hard links: linked\.txt\]/);
  assert.deepEqual(data.skipped_files, [{ path: "linked.txt", reason: "hard_links" }]);
});

Deno.test("fs.grep_files refuses a search folder outside the workspace", async () => {
  await using fixture = await openFixture({ "a.txt": "hit\n" });
  await Deno.writeTextFile(fixture.inOutside("secret.txt"), `hit ${CANARY}\n`);
  await Deno.symlink(fixture.sandbox.outside, fixture.inWorkspace("out"));
  for (const path of ["../outside", "out", fixture.sandbox.outside, "/etc", "out/secret.txt"]) {
    const outcome = await fixture.call(grepFilesTool, { pattern: "hit", path });
    assert.equal(outcome.error?.type, "path_outside_sandbox", path);
    assert.ok(!outcome.output.includes(CANARY));
  }
  const near = await fixture.call(grepFilesTool, { pattern: "hit" });
  assert.equal(near.output, "a.txt:1:hit\n[skipped 1 symlink not followed: out]");
});

Deno.test("fs.grep_files reads neither /etc nor .git when links lead there", async () => {
  await using fixture = await openFixture({
    "a.txt": "root here\n",
    ".git/config": `root ${CANARY}\n`,
  });
  await Deno.symlink("/etc", fixture.inWorkspace("etcdir"));
  await Deno.symlink(".git/config", fixture.inWorkspace("git-config"));
  await Deno.symlink(".git", fixture.inWorkspace("git-folder"));
  const outcome = await fixture.call(grepFilesTool, { pattern: "root" });
  const data = outcome.data as GrepFilesData;
  assert.deepEqual(data.matches, [{ path: "a.txt", line: 1, text: "root here" }]);
  assert.ok(!outcome.output.includes(CANARY));
  assert.equal(data.skipped.links, 3);
  assert.equal(data.stats.excluded, 1);
});

Deno.test("fs.grep_files returns finite results when links point at . and ..", async () => {
  await using fixture = await openFixture({ "a/b.txt": "hit\n" });
  await Deno.symlink(".", fixture.inWorkspace("loop"));
  await Deno.symlink("..", fixture.inWorkspace("a/up"));
  const outcome = await withTimeout(
    fixture.call(grepFilesTool, { pattern: "hit" }),
    5000,
    "grep link loops",
  );
  const data = outcome.data as GrepFilesData;
  assert.deepEqual(data.matches, [{ path: "a/b.txt", line: 1, text: "hit" }]);
  assert.equal(data.skipped.links, 2);
});

Deno.test("fs.grep_files stops at the depth cap and marks truncated when folders nest 1000 deep", async () => {
  await using fixture = await openFixture({ ["d/".repeat(10) + "shallow.txt"]: "hit\n" });
  const deep = fixture.inWorkspace("d/".repeat(1000));
  await Deno.mkdir(deep, { recursive: true });
  await Deno.writeTextFile(`${deep}/deep.txt`, "hit\n");
  const outcome = await withTimeout(
    fixture.call(grepFilesTool, { pattern: "hit" }),
    10_000,
    "grep a deep chain",
  );
  const data = outcome.data as GrepFilesData;
  assert.deepEqual(data.matches.map((match) => match.path), ["d/".repeat(10) + "shallow.txt"]);
  assert.equal(data.truncated, true);
  assert.equal(data.stats.depth_limited, 1);
});

Deno.test({
  name: "fs.grep_files skips a FIFO without hanging when one sits in the tree",
  ignore: !canCreateFifo(),
  fn: async () => {
    await using fixture = await openFixture({ "a.txt": "hit\n" });
    await createFifo(fixture.inWorkspace("pipe"));
    await Deno.symlink("pipe", fixture.inWorkspace("pipe-link"));
    const outcome = await withTimeout(
      fixture.call(grepFilesTool, { pattern: "hit" }),
      5000,
      "grep a FIFO",
    );
    const data = outcome.data as GrepFilesData;
    assert.deepEqual(data.matches, [{ path: "a.txt", line: 1, text: "hit" }]);
    assert.equal(data.skipped.not_regular, 1);
    assert.equal(data.skipped.links, 1);
    const direct = await withTimeout(
      fixture.call(grepFilesTool, { pattern: "hit", path: "pipe" }),
      5000,
      "grep a FIFO",
    );
    assert.equal(direct.error?.type, "not_a_regular_file");
  },
});

Deno.test("fs.grep_files searches 5000 small files in a few seconds with results in walk order", async () => {
  const files: Record<string, string> = {};
  for (let folder = 0; folder < 50; folder += 1) {
    for (let file = 0; file < 100; file += 1) {
      const name = `f${String(folder).padStart(2, "0")}/g${String(file).padStart(3, "0")}.ts`;
      files[name] = `export const value = ${folder * 100 + file};\n// padding line\n`.repeat(5);
    }
  }
  await using fixture = await openFixture(files);
  const started = performance.now();
  const outcome = await fixture.call(grepFilesTool, { pattern: "value = \\d*77;", limit: 1000 });
  const elapsed = performance.now() - started;
  const data = outcome.data as GrepFilesData;
  assert.equal(data.files_scanned, 5000);
  assert.equal(data.matches.length, 50 * 5);
  const paths = data.matches.map((match) => `${match.path}:${match.line}`);
  assert.deepEqual(paths, [...paths].sort());
  // About 1.5 s on an idle 2-CPU machine; the bound leaves room for a loaded CI runner.
  assert.ok(elapsed < 10_000, `took ${Math.round(elapsed)} ms`);
});

Deno.test("fs.grep_files answers (a+)+$ over a 41-byte file when a backtracking engine would run for minutes", async () => {
  await using run = await openTestRun({
    prepare: (sandbox) =>
      writeTree(sandbox.workspace, { "evil.txt": "a".repeat(40) + "!", "plain.txt": "aaaa\n" }),
  });
  // A stall would keep the Worker busy for minutes: the harness timeout fails the test instead.
  const attack = await withTimeout(
    run.call("fs.grep_files", { pattern: "(a+)+$", path: "evil.txt" }),
    60_000,
    "grep (a+)+$",
  );
  assert.equal(attack.ok, true, attack.summary);
  assert.deepEqual((attack.data as GrepFilesData).matches, []);
  assert.equal((attack.data as GrepFilesData).files_scanned, 1);
  assert.equal(attack.summary, 'Found no matches for "(a+)+$" in "evil.txt" (scanned 1 file)');
  // Near miss: an ordinary pattern finds its match in the same file, and the same pattern finds
  // lines that do match it.
  const ordinary = await run.call("fs.grep_files", { pattern: "a+!$", path: "evil.txt" });
  assert.deepEqual((ordinary.data as GrepFilesData).matches, [
    { path: "evil.txt", line: 1, text: "a".repeat(40) + "!" },
  ]);
  const nested = await run.call("fs.grep_files", { pattern: "(a+)+$" });
  assert.equal(nested.output, "plain.txt:1:aaaa");
});

Deno.test("fs.grep_files refuses backreferences and lookaround with the RE2 form to use", async () => {
  await using fixture = await openFixture({ "a.txt": "aa\nfoo bar\n$42\ncafé\nhit\n" });
  const refused: [string, RegExp][] = [
    [
      "(a)\\1",
      /a backreference \("\\1"\) is not supported: patterns use RE2 syntax.*"\(ab\)\(ab\)"/,
    ],
    ["(?<n>a)\\k<n>", /a backreference \("\\k"\) is not supported/],
    ["foo(?= bar)", /lookahead \("\(\?="\) is not supported.*"foo bar"/],
    ["foo(?!x)", /lookahead \("\(\?!"\) is not supported/],
    ["(?<=\\$)[0-9]+", /lookbehind .*is not supported.*"\\\$\[0-9\]\+"/],
    ["(?<!x)y", /lookbehind .*is not supported/],
    ["(?>a+)", /an atomic group \("\(\?>"\) is not supported/],
    ["a++", /a possessive quantifier \("\+\+"\) is not supported.*"a\+"/],
    ["caf\\u00e9", /a \\u escape \("\\u"\) is not supported.*"\\x\{00e9\}"/],
  ];
  for (const [pattern, message] of refused) {
    const outcome = await fixture.call(grepFilesTool, { pattern });
    assert.equal(outcome.error?.type, "invalid_arguments", pattern);
    assert.ok(outcome.error?.message.startsWith(`Cannot search for "${pattern}": `), pattern);
    assert.match(outcome.error?.message ?? "", message);
    assert.equal(outcome.output.includes("a.txt:"), false);
  }
  // Near misses: the RE2 forms the messages suggest, and RE2 syntax a JavaScript user expects.
  const accepted: [string, string][] = [
    ["(a)a", "a.txt:1:aa"],
    ["foo bar", "a.txt:2:foo bar"],
    ["\\$[0-9]+", "a.txt:3:$42"],
    ["caf\\x{00e9}", "a.txt:4:café"],
    ["(?i)HIT", "a.txt:5:hit"],
    ["(?P<word>h)(?<rest>it)\\b", "a.txt:5:hit"],
  ];
  for (const [pattern, output] of accepted) {
    const outcome = await fixture.call(grepFilesTool, { pattern });
    assert.equal(outcome.output, output, pattern);
  }
});

Deno.test("fs.grep_files stops at the time budget and returns what it found marked truncated when the tree is big", async () => {
  const files: Record<string, string> = {};
  for (let folder = 0; folder < 20; folder += 1) {
    for (let file = 0; file < 40; file += 1) {
      files[`f${String(folder).padStart(2, "0")}/g${String(file).padStart(2, "0")}.txt`] = "hit\n";
    }
  }
  await using fixture = await openFixture(files);
  const tiny = { search_time_budget_ms: 1, hide_sensitive_in_listings: false };
  const outcome = await callTool(grepFilesTool, { pattern: "hit", limit: 1000 }, {
    ...fixture.context,
    files: tiny,
  });
  assert.equal(outcome.ok, true, outcome.summary);
  const data = outcome.data as GrepFilesData;
  assert.equal(data.truncated, true);
  assert.equal(data.truncated_reason, "time_budget");
  assert.equal(data.time_budget_ms, 1);
  assert.ok(data.matches.length < 800, `${data.matches.length} matches`);
  assert.equal(data.files_scanned, data.matches.length);
  assert.match(outcome.summary, /truncated: time budget of 1 ms ran out\)$/);
  assert.match(
    outcome.output,
    /^\[truncated: stopped when the time budget of 1 ms ran out \(limits\.search_time_budget_ms\); /m,
  );
  // Near miss: the default budget searches the whole tree.
  const whole = await fixture.call(grepFilesTool, { pattern: "hit", limit: 1000 });
  assert.equal((whole.data as GrepFilesData).truncated, false);
  assert.equal((whole.data as GrepFilesData).truncated_reason, null);
  assert.equal((whole.data as GrepFilesData).matches.length, 800);
  const limited = await fixture.call(grepFilesTool, { pattern: "hit", limit: 10 });
  assert.equal((limited.data as GrepFilesData).truncated_reason, "match_limit");
});

Deno.test("fs.grep_files stops at limits.search_time_budget_ms from the config when the run sets it", async () => {
  await using run = await openTestRun({
    config: { limits: { search_time_budget_ms: 1 } },
    prepare: async (sandbox) => {
      const files: Record<string, string> = {};
      for (let index = 0; index < 600; index += 1) files[`d${index % 20}/f${index}.txt`] = "hit\n";
      await writeTree(sandbox.workspace, files);
    },
  });
  const outcome = await run.call("fs.grep_files", { pattern: "hit", limit: 1000 });
  assert.equal(outcome.ok, true, outcome.summary);
  assert.equal((outcome.data as GrepFilesData).truncated_reason, "time_budget");
  assert.equal((outcome.data as GrepFilesData).time_budget_ms, 1);
  // Near miss: a single file is searched before the budget is first looked at.
  const one = await run.call("fs.grep_files", { pattern: "hit", path: "d0/f0.txt" });
  assert.equal(one.output, "d0/f0.txt:1:hit");
});

Deno.test("fs.grep_files names the skipped file in the summary when the only match is in a file over 10 MiB", async () => {
  await using fixture = await openFixture({ "big.log": "hit\n", "small.txt": "other\n" });
  await Deno.truncate(fixture.inWorkspace("big.log"), 11 * 1024 * 1024);
  const outcome = await fixture.call(grepFilesTool, { pattern: "hit", glob: "*.log" });
  assert.equal(outcome.ok, true, outcome.summary);
  assert.equal(
    outcome.summary,
    'Found no matches for "hit" in "." (scanned 0 files; skipped 1 file over 10 MiB: big.log)',
  );
  assert.equal(
    outcome.output,
    'Found no matches for "hit" in "." (scanned 0 files)\n[skipped 1 file over 10 MiB: big.log]',
  );
  assert.deepEqual((outcome.data as GrepFilesData).skipped_files, [
    { path: "big.log", reason: "too_large" },
  ]);
  // Near miss: a file under the size cap is searched.
  await Deno.writeTextFile(fixture.inWorkspace("small.txt"), "hit\n");
  const near = await fixture.call(grepFilesTool, { pattern: "hit", glob: "*.txt" });
  assert.equal(near.summary, 'Found 1 match in 1 file of "." (scanned 1 file)');
});

Deno.test("fs.grep_files says why it scanned nothing when the glob or the folder leaves no file", async () => {
  await using fixture = await openFixture({ "a.ts": "hit\n", "b.ts": "hit\n", "empty/.keep": "" });
  await Deno.remove(fixture.inWorkspace("empty/.keep"));
  const glob = await fixture.call(grepFilesTool, { pattern: "hit", glob: "*.rs" });
  assert.equal(
    glob.summary,
    'Found no matches for "hit" in "." (scanned 0 files: none of the 2 files found matches the ' +
      'glob "*.rs")',
  );
  assert.match(glob.output, /none of the 2 files found matches the glob "\*\.rs"/);
  const empty = await fixture.call(grepFilesTool, { pattern: "hit", path: "empty" });
  assert.equal(
    empty.summary,
    'Found no matches for "hit" in "empty" (scanned 0 files: there are no files to search there)',
  );
  // Near miss: a glob that matches searches those files.
  const near = await fixture.call(grepFilesTool, { pattern: "hit", glob: "*.ts" });
  assert.equal(near.summary, 'Found 2 matches in 2 files of "." (scanned 2 files)');
});
