/**
 * `fs.grep_files` and recursive `fs.list_files` leave out what `.gitignore`/`.ignore` files do, as
 * ripgrep and other agents' search tools do (issue 24 §6), with `include_ignored` to search them;
 * the built-in searcher and ripgrep (the real `rg`) agree.
 */

import assert from "node:assert/strict";
import { callTool } from "../../testing/call_tool.ts";
import { createTempSandbox, writeTree } from "../../testing/temp_sandbox.ts";
import { createTestContext } from "../../testing/tool_context.ts";
import { grepWith, RIPGREP, testPrefilter } from "./_ripgrep_test_support.ts";

import { listFilesTool } from "./list_files.ts";

async function repositoryTree(workspace: string): Promise<void> {
  await writeTree(workspace, {
    ".gitignore": "node_modules/\n*.log\ncoverage\n",
    "index.js": "module.exports = function add(a, b) { return a + b; } // needle\n",
    "test/index.js": "// needle in the tests\n",
    "node_modules/tape/index.js": "// needle in a dependency\n",
    "node_modules/tape/lib/test.js": "// needle again\n",
    "debug.log": "needle in a log\n",
    "coverage/report.txt": "needle in coverage\n",
    "docs/.gitignore": "!important.log\n",
    "docs/important.log": "needle kept by a deeper rule\n",
    ".ignore": "fixtures/big/\n",
    "fixtures/big/data.txt": "needle in .ignore'd fixtures\n",
  });
}

const KEPT = ["docs/important.log", "index.js", "test/index.js"];

Deno.test("fs.grep_files leaves out ignored files by default, and include_ignored searches them", async () => {
  await using sandbox = await createTempSandbox();
  await repositoryTree(sandbox.workspace);
  const context = await createTestContext({ workspace: sandbox.workspace });
  const kept = await grepWith(null, { pattern: "needle" }, context);
  assert.deepEqual([...new Set(kept.data.matches.map((match) => match.path))].sort(), KEPT);
  assert.match(kept.outcome.summary, /left out 4 entries ignored by \.gitignore or \.ignore/);
  const all = await grepWith(null, { pattern: "needle", include_ignored: true }, context);
  assert.equal(all.data.matches.length, 8);
  assert.equal(all.data.stats.ignored, 0);
});

Deno.test({
  name: "fs.grep_files: ripgrep and the built-in agree on what is ignored",
  ignore: RIPGREP === null,
  async fn() {
    await using sandbox = await createTempSandbox();
    await repositoryTree(sandbox.workspace);
    const context = await createTestContext({ workspace: sandbox.workspace });
    for (const include_ignored of [false, true]) {
      const args = { pattern: "needle", include_ignored };
      const builtin = await grepWith(null, args, context);
      const fast = await grepWith(testPrefilter(), args, context);
      assert.equal(fast.data.engine, "ripgrep");
      assert.deepEqual(
        fast.data.matches,
        builtin.data.matches,
        `include_ignored ${include_ignored}`,
      );
    }
  },
});

Deno.test("fs.list_files: a recursive listing leaves out ignored entries, one folder's listing shows them", async () => {
  await using sandbox = await createTempSandbox();
  await repositoryTree(sandbox.workspace);
  const context = await createTestContext({ workspace: sandbox.workspace });
  const list = async (args: Record<string, unknown>) => {
    const result = await callTool(listFilesTool, args, context);
    assert.ok(result.ok, result.summary);
    return result;
  };
  const recursive = await list({ recursive: true });
  assert.doesNotMatch(recursive.output, /node_modules|debug\.log|coverage|fixtures\/big/);
  assert.match(recursive.output, /docs\/important\.log/);
  assert.match(recursive.summary, /4 ignored by \.gitignore or \.ignore/);
  const all = await list({ recursive: true, include_ignored: true });
  assert.match(all.output, /node_modules\/tape\/lib\/test\.js/);
  // Near miss: the top folder alone, as ls shows it.
  const top = await list({});
  assert.match(top.output, /node_modules\//);
});
