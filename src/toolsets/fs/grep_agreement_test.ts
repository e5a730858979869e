/**
 * The built-in searcher of `fs.grep_files` against ripgrep on the same tree: the same lines for
 * every pattern (with the prefilters ruling files out and in). Skips with a printed reason where
 * `rg` is not installed.
 */

import assert from "node:assert/strict";
import { callTool } from "../../testing/call_tool.ts";
import { createTempSandbox, writeTree } from "../../testing/temp_sandbox.ts";
import { createTestContext } from "../../testing/tool_context.ts";
import { type GrepFilesData, grepFilesTool } from "./grep_files.ts";

const hasRipgrep = await new Deno.Command("rg", { args: ["--version"], stdout: "null" })
  .output().then((result) => result.success, () => false);

/** `path:line` of every line rg reports, as ripgrep would be run on the same files. */
async function ripgrepLines(cwd: string, pattern: string, caseSensitive: boolean) {
  const result = await new Deno.Command("rg", {
    args: [
      "--no-config",
      "--no-ignore",
      "--hidden",
      "--crlf", // `$` before a CR, as the tool drops a line's final CR
      "-n",
      "--with-filename",
      "--no-heading",
      "-g",
      "!.git",
      ...(caseSensitive ? [] : ["-i"]),
      "-e",
      pattern,
      ".",
    ],
    cwd,
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(result.stdout).split("\n").filter((line) => line !== "")
    .map((line) => line.replace(/^\.\//, "").split(":").slice(0, 2).join(":")).sort();
}

Deno.test({
  name: "fs.grep_files finds the same lines as rg on the same tree for every kind of pattern",
  ignore: !hasRipgrep,
  async fn() {
    await using sandbox = await createTempSandbox();
    const filler = (seed: number) =>
      Array.from({ length: 40 }, (_, index) => `line ${seed}.${index} alpha beta`).join("\n");
    await writeTree(sandbox.workspace, {
      "a/one.ts": `${filler(1)}\nconst token = process.env.API_TOKEN;\n${filler(2)}\n`,
      "a/two.ts": `${filler(3)}\n// process.env but no name\n`, // the literal alone: no match
      "a/b/c/deep.md": "# Title\nneedle_1234 here\r\nand needle_99 not\r\nfoo\r\n",
      "a/crlf.txt": "foo\r\nbar foo\r\nfoo bar\r\n",
      ".hidden/x.txt": "NEEDLE_4321 upper\nNeedle_1111 mixed\n",
      "long.txt": `${"x".repeat(5000)} needle_5555 ${"y".repeat(5000)}\nlast line no newline`,
      "unicode.txt": "naïve café needle_0001\nüber 12345\n",
      "empty.txt": "",
      "bin.dat": "no match here\u0000\u0001\u0002",
    });
    const context = await createTestContext({ workspace: sandbox.workspace });
    const patterns: [string, boolean][] = [
      ["process\\.env\\.[A-Z_]+", true], // a literal prefix
      ["needle_[0-9]{4}", true],
      ["needle_[0-9]{4}", false], // case-insensitive: no literal prefilter
      ["[0-9]{5}", true], // no literal at all
      ["^foo$", true], // anchors, CRLF lines
      ["foo$|^bar", true],
      ["(alpha|omega) beta$", true],
      ["caf. needle", true], // non-ASCII
      ["y needle|last line", true], // a line of 10,000 characters and a last line without newline
      ["absent_[a-z]+", true], // no file at all
    ];
    for (const [pattern, caseSensitive] of patterns) {
      const outcome = await callTool(
        grepFilesTool,
        { pattern, path: ".", limit: 1000, case_sensitive: caseSensitive },
        context,
      );
      assert.ok(outcome.ok, outcome.summary);
      const data = outcome.data as GrepFilesData;
      const ours = data.matches.map((match) => `${match.path}:${match.line}`).sort();
      const theirs = await ripgrepLines(sandbox.workspace, pattern, caseSensitive);
      assert.deepEqual(ours, theirs, `pattern ${pattern} (case sensitive: ${caseSensitive})`);
      // Every pattern but the last finds something: an empty agreement proves nothing.
      assert.equal(ours.length > 0, pattern !== "absent_[a-z]+", `${pattern}: ${ours}`);
      assert.equal(data.files_scanned, 8, `${pattern}: every text file is searched`);
    }
  },
});
