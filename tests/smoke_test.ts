import assert from "node:assert/strict";
import { openTestRun } from "../src/testing/run_harness.ts";

Deno.test("a test run lists its workspace through the pipeline", async () => {
  await using run = await openTestRun({
    prepare: (sandbox) => Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "hello\n"),
  });
  const result = await run.call("fs.list_files", { path: "." });
  assert.equal(result.ok, true, result.output);
  assert.match(result.output, /a\.txt/);
  await run.session.recorder.close();
  const tools = await run.readLog("tools");
  assert.equal(tools.length, 1);
});
