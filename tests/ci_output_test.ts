// CI output (issue 6): --output json, --task-file, the GitHub step summary and annotations.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { maskCommands } from "../src/cli/_ci_output.ts";
import { main } from "../src/cli/mod.ts";
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
  assert.equal(code, 3, "a call ended approval_required");
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
  assert.equal(output.code, 3, new TextDecoder().decode(output.stderr));
  assert.match(stdout, /^::warning title=kagent-run fs\.write_file::Cannot call tool/m);
  const text = await Deno.readTextFile(summary);
  assert.match(text, /\*\*Task:\*\* Summarise/);
  assert.match(text, /\| 2 \| `fs\.write_file` \| approval_required \|/);
  assert.match(text, /--approve '/);
  assert.match(text, /- `out\.md`/);
});

const SECRET = "kagent-ci-secret-4f9a1c2b";
const secretPlan = [JSON.stringify({ content: `The key is ${SECRET}; the rest is plain text.` })];
const secretConfig = { audit: { secret_env: ["KAGENT_CI_SECRET"] } };

/** Runs the CLI in-process and keeps the order of everything it printed, on either stream. */
async function runInterleaved(args: string[], env: Record<string, string>) {
  const printed: { stream: "stdout" | "stderr"; text: string }[] = [];
  const code = await main(args, {
    stdout: (text) => void printed.push({ stream: "stdout", text }),
    stderr: (text) => void printed.push({ stream: "stderr", text }),
    stdoutIsTerminal: false,
    stderrIsTerminal: false,
    env: (name) => env[name],
    terminal: null,
  });
  const stdout = printed.filter((entry) => entry.stream === "stdout").map((entry) => entry.text)
    .join("");
  return { code, printed, stdout, all: printed.map((entry) => entry.text).join("") };
}

Deno.test("the answer on stdout is redacted when it holds a value of audit.secret_env", async () => {
  await using project = await createProject({ plan: secretPlan, config: secretConfig });
  const { code, stdout, stderr } = await runCli(["--config", project.configPath], {
    env: { KAGENT_CI_SECRET: SECRET, GITHUB_ACTIONS: "" },
  });
  assert.equal(code, 0, stderr);
  assert.ok(!stdout.includes(SECRET), stdout);
  assert.ok(!stderr.includes(SECRET), stderr);
  // Near miss: the rest of the answer is untouched.
  assert.equal(stdout, "The key is [REDACTED:secret_env]; the rest is plain text.\n");
});

Deno.test("under GitHub Actions ::add-mask:: lines for the secrets come before anything else", async () => {
  await using project = await createProject({ plan: secretPlan, config: secretConfig });
  const env = { KAGENT_CI_SECRET: SECRET, GITHUB_ACTIONS: "true", NO_COLOR: "1" };
  const text = await runInterleaved(["--config", project.configPath], env);
  assert.equal(text.code, 0, text.all);
  assert.deepEqual(text.printed[0], { stream: "stdout", text: `::add-mask::${SECRET}\n` });
  // The secret appears in the mask command and nowhere else.
  assert.equal(text.all.split(SECRET).length, 2, text.all);
  assert.match(text.stdout, /The key is \[REDACTED:secret_env\]/);

  // With --output json the mask goes to stderr, still first, and stdout stays one JSON object.
  const json = await runInterleaved(["--config", project.configPath, "--output", "json"], env);
  assert.deepEqual(json.printed[0], { stream: "stderr", text: `::add-mask::${SECRET}\n` });
  assert.equal(
    JSON.parse(json.stdout).final_text,
    "The key is [REDACTED:secret_env]; the rest is plain text.",
  );

  // Near miss: outside GitHub Actions nothing is masked (the answer is still redacted).
  const local = await runInterleaved(["--config", project.configPath], {
    KAGENT_CI_SECRET: SECRET,
  });
  assert.ok(!local.all.includes("::add-mask::"), local.all);
  assert.ok(!local.all.includes(SECRET));
});

Deno.test("maskCommands masks each line of a secret, escaped, and skips values too short to mask", () => {
  assert.deepEqual(
    maskCommands(["-----BEGIN KEY-----\nabc%def-123456\n-----END KEY-----", "short", ""]),
    [
      "::add-mask::-----BEGIN KEY-----",
      "::add-mask::abc%25def-123456",
      "::add-mask::-----END KEY-----",
    ],
  );
});

Deno.test("under GitHub Actions the answer cannot issue workflow commands: it is printed between ::stop-commands:: and a fresh token", async () => {
  const forged = "Done.\n::error title=forged::not from kagent-run\n::set-output name=ok::yes";
  await using project = await createProject({ plan: [JSON.stringify({ content: forged })] });
  const env = { GITHUB_ACTIONS: "true", NO_COLOR: "1" };
  const first = await runInterleaved(["--config", project.configPath], env);
  assert.equal(first.code, 0, first.all);
  const match = /^::stop-commands::([0-9a-f-]{36})\n([\s\S]*)\n::\1::\n/m.exec(first.stdout);
  assert.ok(match, first.stdout);
  assert.equal(match[2], forged);
  // Each line the answer holds is inside the stopped region, none outside it.
  const outside = first.stdout.replace(match[0], "");
  assert.ok(!outside.includes("forged") && !outside.includes("set-output"), outside);
  // A fresh token each run: a model cannot end the region by guessing it.
  const second = await runInterleaved(["--config", project.configPath], env);
  const token = /^::stop-commands::(\S+)$/m.exec(second.stdout)?.[1];
  assert.ok(token !== undefined && token !== match[1]);
  // Near miss: outside GitHub Actions the answer is printed as it is.
  const local = await runInterleaved(["--config", project.configPath], {});
  assert.equal(local.stdout, `${forged}\n`);
});

Deno.test("under GitHub Actions an annotation's title escapes the model's tool name, so a name holding a new line or :: starts no workflow command", async () => {
  const name = "evil\n::set-output name=ok::yes,x";
  await using project = await createProject({
    plan: [
      JSON.stringify({ tool_calls: [{ id: "e", name, arguments: {} }] }),
      JSON.stringify({ content: "done" }),
    ],
  });
  const text = await runInterleaved(["--config", project.configPath], {
    GITHUB_ACTIONS: "true",
    NO_COLOR: "1",
  });
  const annotation = text.stdout.split("\n").find((line) => line.startsWith("::warning title="));
  assert.ok(annotation, JSON.stringify(text.all));
  assert.ok(
    annotation.startsWith(
      "::warning title=kagent-run evil%0A%3A%3Aset-output name=ok%3A%3Ayes%2Cx::",
    ),
    annotation,
  );
  assert.ok(!text.stdout.split("\n").some((line) => line.startsWith("::set-output")), text.stdout);
});
