// CI output (issue 6): --output json, --task-file, the GitHub step summary and annotations.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, runCli } from "./_cli_helpers.ts";

const plan = [
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

Deno.test("--output json prints one JSON object with the end reason, counts, deliverables and grants", async () => {
  await using project = await createProject({ plan });
  const taskFile = nodePath.join(project.sandbox.root, "task.txt");
  await Deno.writeTextFile(taskFile, "Task from a file");
  const { code, stdout } = await runCli([
    "--config",
    project.configPath,
    "--output",
    "json",
    "--task-file",
    taskFile,
    "--quiet",
  ]);
  assert.equal(code, 0);
  const lines = stdout.trim().split("\n");
  assert.equal(lines.length, 1, "stdout is exactly one JSON object");
  const report = JSON.parse(lines[0] as string);
  assert.equal(report.end_reason, "completed");
  assert.equal(report.final_text, "All done.");
  assert.deepEqual([report.calls, report.denied, report.failed], [3, 1, 0]);
  assert.deepEqual(report.deliverables, ["out.md"]);
  assert.equal(report.approvals_needed[0].tool, "fs.write_file");
  const bad = await runCli(["--config", project.configPath, "--output", "yaml"]);
  assert.equal(bad.code, 2);
});

const repository = nodePath.resolve(nodePath.dirname(new URL(import.meta.url).pathname), "..");

Deno.test("under GitHub Actions the run appends a step summary and prints annotations", async () => {
  await using project = await createProject({ plan });
  const summary = nodePath.join(project.sandbox.root, "summary.md");
  // A process of its own: deno test --parallel shares one environment between test files.
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-worker-options",
      "--allow-all",
      nodePath.join(repository, "main.ts"),
      "--config",
      project.configPath,
      "--task",
      "Summarise",
      "--quiet",
    ],
    env: { GITHUB_STEP_SUMMARY: summary, GITHUB_ACTIONS: "true", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  assert.match(stdout, /^::warning title=kagent-run fs\.write_file::Cannot call tool/m);
  const text = await Deno.readTextFile(summary);
  assert.match(text, /\*\*Task:\*\* Summarise/);
  assert.match(text, /\| 2 \| `fs\.write_file` \| approval_required \|/);
  assert.match(text, /--approve '/);
  assert.match(text, /- `out\.md`/);
});
