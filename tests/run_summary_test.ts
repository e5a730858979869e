// One finished run, one model (issue 26, point 3): `--output json`, the GitHub step outputs, the
// step summary and the report's header are all made from the RunSummary read back from the sealed
// run folder, so they carry the same facts; a fact changed in the folder changes every one of
// them; a value that appears nowhere in the folder is still redacted on the way out; and a resumed
// run's summary counts its segments and their duration together.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";
import { readRunSummary } from "../src/report/run_summary.ts";
import { readRunFolder } from "../src/report/run_reading.ts";
import { buildReportModel } from "../src/report/report_model.ts";
import { renderMarkdownReport } from "../src/report/markdown_report.ts";
import { reportJson, stepSummary } from "../src/cli/_ci_output.ts";
import { githubOutputs } from "../src/cli/_github_output.ts";
import { runEndedLine } from "../src/cli/_stream_json.ts";
import { Redactor } from "../src/audit/mod.ts";

/** Read, a write that waits for an approval, a deliverable, an answer. */
const PLAN = [
  JSON.stringify({
    tool_calls: [{ id: "r", name: "fs.read_file", arguments: { path: "README.md" } }],
  }),
  JSON.stringify({
    tool_calls: [{ id: "w", name: "fs.write_file", arguments: { path: "notes.md", content: "x" } }],
  }),
  JSON.stringify({
    tool_calls: [{
      id: "d",
      name: "fs.write_file",
      arguments: { path: "{{run.deliverables}}/out.md", content: "done" },
    }],
  }),
  JSON.stringify({ content: "All done." }),
];

/** The name=value pairs of a `$GITHUB_OUTPUT` file (multiline form). */
function parseGithubOutput(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const match = /^([\w-]+)<<(.+)$/.exec(lines[index] as string);
    if (match === null) continue;
    const end = lines.indexOf(match[2] as string, index + 1);
    outputs[match[1] as string] = lines.slice(index + 1, end).join("\n");
    index = end;
  }
  return outputs;
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const none = new Redactor({ secrets: [] });

Deno.test("--output json, the step outputs, the step summary and the report's header carry the sealed folder's summary", async () => {
  await using project = await createProject({ plan: PLAN });
  const stepSummaryFile = nodePath.join(project.sandbox.root, "summary.md");
  const outputFile = nodePath.join(project.sandbox.root, "output.txt");
  const ran = await runCli(
    ["run", "--config", project.configPath, "--output", "json", "--report", "--quiet"],
    { env: { GITHUB_STEP_SUMMARY: stepSummaryFile, GITHUB_OUTPUT: outputFile } },
  );
  assert.equal(ran.code, 3, ran.stderr);
  const runDir = await onlyRunDir(project);
  const summary = await readRunSummary(runDir);

  // The facts, as the folder proves them.
  assert.equal(summary.summary_version, 1);
  assert.equal(summary.end_reason, "completed");
  assert.deepEqual(summary.counts, { calls: 3, denied: 1, failed: 0, skipped: 0 });
  assert.equal(summary.segments, 1);
  assert.deepEqual(summary.deliverables, ["out.md"]);
  assert.deepEqual(summary.pending.map((entry) => [entry.tool_call_id, entry.tool]), [
    ["w", "fs.write_file"],
  ]);
  assert.match(summary.replay ?? "", /^kagent-run run .* --approve '\{"tool":"fs\.write_file"/);
  const completed = (await readJsonl(nodePath.join(runDir, "events.jsonl")))
    .find((event) => event.type === "run.completed");
  assert.equal(summary.duration_ms, completed?.duration_ms);
  assert.equal(summary.replay, completed?.replay, "the replay is the one run.completed recorded");
  // The report was written before the outputs: the step summary names it.
  assert.deepEqual(summary.report_files, {
    html: nodePath.join(runDir, "report.html"),
    markdown: nodePath.join(runDir, "report.md"),
  });

  // --output json: the summary's object.
  const json = JSON.parse(ran.stdout);
  assert.equal(json.summary_version, 1);
  assert.deepEqual(
    [json.run_id, json.run_dir, json.end_reason, json.final_text, json.duration_ms, json.turns],
    [
      summary.run_id,
      summary.run_dir,
      summary.end_reason,
      summary.final_text,
      summary.duration_ms,
      summary.turns,
    ],
  );
  assert.deepEqual(
    [json.calls, json.denied, json.failed, json.skipped],
    [summary.counts.calls, summary.counts.denied, summary.counts.failed, summary.counts.skipped],
  );
  assert.deepEqual(json.approvals_needed, summary.pending.map((entry) => entry.grant));
  assert.equal(json.replay, summary.replay);
  assert.deepEqual(json.deliverables, summary.deliverables);
  assert.equal(`${JSON.stringify(json)}`, reportJson(summary, none));

  // GITHUB_OUTPUT.
  const outputs = parseGithubOutput(await Deno.readTextFile(outputFile));
  assert.deepEqual(outputs, {
    run_id: summary.run_id,
    run_dir: summary.run_dir,
    end_reason: "completed",
    calls: "3",
    denied: "1",
    approval_required: "1",
  });

  // The step summary: exactly the summary's rendering.
  const stepText = await Deno.readTextFile(stepSummaryFile);
  assert.equal(stepText, stepSummary(summary, none));
  assert.ok(
    stepText.includes(
      `**End:** completed in ${
        seconds(summary.duration_ms ?? 0)
      } s — 3 tool calls, 1 denied, 0 failed`,
    ),
    stepText,
  );
  assert.match(stepText, /\*\*Report:\*\* `report\.html` and `report\.md`/);

  // The report's header: the same summary, read from the same folder.
  const files = await readRunFolder(runDir);
  const model = buildReportModel(files, { status: "verified", headline: "ok", problems: [] });
  assert.deepEqual(model.summary, summary);
  const markdown = await Deno.readTextFile(nodePath.join(runDir, "report.md"));
  assert.match(markdown, /- \*\*End reason:\*\* completed/);
  assert.match(markdown, /- \*\*Tool calls:\*\* 3 \(1 denied, 0 failed, 0 skipped\)/);
});

Deno.test("a fact changed in a copied sealed folder changes --output json, run.ended, the step outputs, the step summary and the report alike", async () => {
  await using project = await createProject({ plan: PLAN });
  const ran = await runCli(["run", "--config", project.configPath, "--quiet"]);
  assert.equal(ran.code, 3, ran.stderr);
  const runDir = await onlyRunDir(project);
  const copy = nodePath.join(project.sandbox.root, "copy");
  await new Deno.Command("cp", { args: ["-a", runDir, copy] }).output();
  const eventsPath = nodePath.join(copy, "events.jsonl");
  const lines = (await Deno.readTextFile(eventsPath)).trimEnd().split("\n").map((line) => {
    const event = JSON.parse(line);
    if (event.type !== "run.completed") return line;
    return JSON.stringify({
      ...event,
      end_reason: "max_turns",
      final_text: "An answer edited in the copy",
      duration_ms: 98765,
    });
  });
  await Deno.writeTextFile(eventsPath, lines.join("\n") + "\n");
  const original = await readRunSummary(runDir);
  const edited = await readRunSummary(copy);
  // Near miss: the original folder still says what it said.
  assert.deepEqual(
    [original.end_reason, original.final_text],
    ["completed", "All done."],
  );
  assert.deepEqual(
    [edited.end_reason, edited.final_text, edited.duration_ms],
    ["max_turns", "An answer edited in the copy", 98765],
  );

  const json = JSON.parse(reportJson(edited, none));
  assert.deepEqual(
    [json.end_reason, json.final_text, json.duration_ms],
    ["max_turns", "An answer edited in the copy", 98765],
  );
  const ended = runEndedLine(edited, none);
  assert.deepEqual([ended.end_reason, ended.duration_ms], ["max_turns", 98765]);
  assert.equal(githubOutputs(edited, none).end_reason, "max_turns");
  const step = stepSummary(edited, none);
  assert.ok(step.includes("**End:** max_turns in 98.77 s"), step);
  assert.ok(step.includes("An answer edited in the copy"), step);
  const model = buildReportModel(await readRunFolder(copy), {
    status: "tampered",
    headline: "edited",
    problems: [],
  });
  assert.deepEqual(
    [model.end_reason, model.final_text, model.duration_ms],
    ["max_turns", "An answer edited in the copy", 98765],
  );
  assert.match(renderMarkdownReport(model), /- \*\*End reason:\*\* max\\?_turns\n/);
});

Deno.test("a secret that appears nowhere in the folder is still redacted from every output (the run's redactor passes again)", async () => {
  await using project = await createProject({ plan: PLAN });
  const ran = await runCli(["run", "--config", project.configPath, "--quiet"]);
  assert.equal(ran.code, 3, ran.stderr);
  const copy = nodePath.join(project.sandbox.root, "copy");
  await new Deno.Command("cp", { args: ["-a", await onlyRunDir(project), copy] }).output();
  // A secret the recorder never knew, as if a line of the folder had escaped its redaction.
  const secret = "kagent-summary-canary-6f1e2a9b4c";
  const eventsPath = nodePath.join(copy, "events.jsonl");
  const text = await Deno.readTextFile(eventsPath);
  await Deno.writeTextFile(eventsPath, text.replaceAll('"All done."', `"All done. ${secret}"`));
  const summary = await readRunSummary(copy);
  assert.ok(summary.final_text?.includes(secret), "the copy holds the secret");
  const redactor = new Redactor({ secrets: [secret] });
  const outputs = [
    reportJson(summary, redactor),
    JSON.stringify(runEndedLine(summary, redactor)),
    stepSummary(summary, redactor),
    JSON.stringify(githubOutputs(summary, redactor)),
  ];
  for (const output of outputs) {
    assert.ok(!output.includes(secret), output);
  }
  assert.ok(reportJson(summary, redactor).includes("All done. [REDACTED"));
  // Near miss: without the run's redactor the value would reach stdout.
  assert.ok(reportJson(summary, none).includes(secret));
});

Deno.test("a resumed run's summary counts its segments and their duration together, and only the last segment's pending calls", async () => {
  await using project = await createProject({
    plan: [
      JSON.stringify({
        tool_calls: [{
          id: "write-1",
          name: "fs.write_file",
          arguments: { path: "notes.txt", content: "approved" },
        }],
      }),
      JSON.stringify({ content: "The write needs an approval." }),
      JSON.stringify({ content: "Resumed: {{write-1.summary}}" }),
    ],
  });
  const first = await runCli(["run", "--config", project.configPath, "--non-interactive"]);
  assert.equal(first.code, 3, first.stderr);
  const runDir = await onlyRunDir(project);
  const waiting = await readRunSummary(runDir);
  assert.deepEqual([waiting.segments, waiting.pending.length], [1, 1]);
  const grant = first.stderr.match(/--approve '([^']+)'/)?.[1];
  assert.ok(grant !== undefined, first.stderr);

  const outputFile = nodePath.join(project.sandbox.root, "output.txt");
  const resumed = await runCli(
    ["resume", runDir, "--approve", grant, "--output", "json", "--report", "--quiet"],
    { env: { GITHUB_OUTPUT: outputFile } },
  );
  assert.equal(resumed.code, 0, resumed.stderr);
  const completions = (await readJsonl(nodePath.join(runDir, "events.jsonl")))
    .filter((event) => event.type === "run.completed");
  assert.equal(completions.length, 2);
  const total = completions.reduce((sum, event) => sum + (event.duration_ms as number), 0);
  const summary = await readRunSummary(runDir);
  assert.equal(summary.segments, 2);
  assert.equal(summary.duration_ms, total);
  assert.equal(summary.end_reason, "completed");
  // The call refused in segment 1 and run in segment 2: both recorded, both counted.
  assert.deepEqual(summary.calls.map((call) => [call.id, call.status]), [
    ["write-1", "denied"],
    ["write-1", "completed"],
  ]);
  // pending.jsonl still holds segment 1's line; what waits now is nothing.
  const pendingLines = await readJsonl(nodePath.join(runDir, "approvals", "pending.jsonl"));
  assert.equal(pendingLines.length, 1);
  assert.deepEqual([summary.pending, summary.replay], [[], null]);

  const json = JSON.parse(resumed.stdout);
  assert.deepEqual(
    [json.segments, json.duration_ms, json.approvals_needed],
    [2, total, []],
  );
  assert.equal(parseGithubOutput(await Deno.readTextFile(outputFile)).approval_required, "0");
  const markdown = await Deno.readTextFile(nodePath.join(runDir, "report.md"));
  assert.match(markdown, /- \*\*Duration:\*\* .* over 2 segments/);
  assert.match(markdown, /- \*\*Tool calls:\*\* 2 \(1 denied, 0 failed, 0 skipped\)/);
});

Deno.test("a child agent's call that waits is in the run's summary: read from the child's own folder", async () => {
  await using project = await createProject({
    config: {
      agents: {
        writer: {
          description: "Writes files",
          agent_type: "sub",
          model: { provider: "script", script: "writer.jsonl" },
        },
      },
    },
    plan: [
      JSON.stringify({
        tool_calls: [{
          id: "child",
          name: "agent.create_sub_agent",
          arguments: { agent_id: "writer", task: "Write" },
        }],
      }),
      JSON.stringify({ content: "done" }),
    ],
  });
  await Deno.writeTextFile(
    nodePath.join(project.configDir, "writer.jsonl"),
    [
      {
        tool_calls: [{
          id: "w",
          name: "fs.write_file",
          arguments: { path: "n.txt", content: "x" },
        }],
      },
      { content: "tried" },
    ].map((turn) => JSON.stringify(turn)).join("\n") + "\n",
  );
  const outputFile = nodePath.join(project.sandbox.root, "output.txt");
  const ran = await runCli(
    ["run", "--config", project.configPath, "--non-interactive", "--output", "json"],
    { env: { GITHUB_OUTPUT: outputFile } },
  );
  assert.equal(ran.code, 3, ran.stderr);
  const runDir = await onlyRunDir(project);
  // The root's own pending.jsonl has no line: the child's ask is in the child's folder only.
  await assert.rejects(Deno.stat(nodePath.join(runDir, "approvals", "pending.jsonl")));
  const summary = await readRunSummary(runDir);
  assert.deepEqual(summary.pending.map((entry) => [entry.tool_call_id, entry.tool]), [
    ["w", "fs.write_file"],
  ]);
  assert.match(summary.replay ?? "", /--approve '\{"tool":"fs\.write_file"/);
  const json = JSON.parse(ran.stdout);
  assert.deepEqual(json.approvals_needed, summary.pending.map((entry) => entry.grant));
  assert.equal(parseGithubOutput(await Deno.readTextFile(outputFile)).approval_required, "1");
});
