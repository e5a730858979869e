// The end of a run is published from its sealed folder only: a folder that cannot be read back
// publishes nothing (no answer, no step summary, no step outputs) and says why; the near miss, a
// readable folder, publishes its summary everywhere.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { Redactor } from "../audit/mod.ts";
import type { CommandIo } from "./_common.ts";
import { painter } from "./_colour.ts";
import { RunFeed } from "./_run_feed.ts";
import { publishRunEnd } from "./_run_end.ts";

function capture(env: Record<string, string>) {
  const out = { stdout: "", stderr: "" };
  const io: CommandIo = {
    stdout: (text) => void (out.stdout += text),
    stderr: (text) => void (out.stderr += text),
    stdoutIsTerminal: false,
    env: (name) => env[name],
    terminal: null,
  };
  return { io, out };
}

Deno.test("publishRunEnd publishes nothing and says why when the run folder cannot be read back, and the summary everywhere when it can", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const stepFile = nodePath.join(dir, "summary.md");
    const outputFile = nodePath.join(dir, "output.txt");
    const env = { GITHUB_ACTIONS: "true" };
    const redactor = new Redactor({ secrets: [] });
    const context = (io: CommandIo) => ({
      io,
      output: "json" as const,
      feed: new RunFeed({
        io,
        paint: painter(io),
        redactor,
        quiet: true,
        output: "json",
        model: null,
      }),
      redactor,
      summaryFile: stepFile,
      outputFile,
    });

    const lost = capture(env);
    const missing = nodePath.join(dir, "runs", "gone");
    assert.equal(await publishRunEnd(missing, context(lost.io)), null);
    assert.equal(lost.out.stdout, "");
    assert.match(
      lost.out.stderr,
      /^kagent-run: Cannot publish the end of the run in ".*gone": Cannot read run folder ".*gone": it is not a folder\n$/,
    );
    await assert.rejects(Deno.stat(stepFile), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(outputFile), Deno.errors.NotFound);

    // Near miss: a folder that reads back is published on stdout and in both files.
    const runDir = nodePath.join(dir, "runs", "r1");
    await Deno.mkdir(runDir, { recursive: true });
    await Deno.writeTextFile(
      nodePath.join(runDir, "events.jsonl"),
      '{"type":"run.started","run_id":"r1","task":"t"}\n' +
        '{"type":"run.completed","end_reason":"completed","turns":1,"duration_ms":40,' +
        '"final_text":"Done.","replay":null}\n',
    );
    const read = capture(env);
    const summary = await publishRunEnd(runDir, context(read.io));
    assert.equal(summary?.end_reason, "completed");
    assert.deepEqual(
      [JSON.parse(read.out.stdout).final_text, JSON.parse(read.out.stdout).summary_version],
      ["Done.", 1],
    );
    assert.match(await Deno.readTextFile(stepFile), /\*\*End:\*\* completed in 0\.04 s/);
    assert.match(await Deno.readTextFile(outputFile), /^end_reason<<.*\ncompleted\n/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
