/**
 * The environment fails, the run does not lie: closed output pipes, a runs folder that is a file,
 * read-only or full, start-up failures (hook program, command, step summary), and an argument
 * deeper than any limit a config may set. Each attack has its near miss.
 *
 * Tests run as root here, and root ignores mode bits: a read-only runs folder is a read-only
 * bind mount and a full disk a small tmpfs, both made by bubblewrap around the CLI.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { MAX_ARGUMENT_DEPTH } from "../src/config/defaults.ts";
import { EXIT } from "../src/cli/_common.ts";
import { openTestRun } from "../src/testing/run_harness.ts";
import { exists } from "../src/testing/path_exists.ts";
import { createProject, onlyRunDir, type Project, readJsonl, runCli } from "./_cli_helpers.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

/** `kagent-run --config <project>` as a subprocess, optionally inside `bwrap <wrap> --`. */
function cliCommand(
  project: Project,
  options: { wrap?: string[]; env?: Record<string, string> } = {},
): Deno.Command {
  const deno = [Deno.execPath(), "run", "--unstable-worker-options", "--allow-all", MAIN];
  const argv = [...deno, "--config", project.configPath, "--non-interactive"];
  const [program, ...args] = options.wrap === undefined
    ? argv
    : ["bwrap", "--dev-bind", "/", "/", ...options.wrap, "--", ...argv];
  return new Deno.Command(program as string, {
    args,
    stdout: "piped",
    stderr: "piped",
    ...(options.env === undefined ? {} : { env: options.env }),
  });
}

/** The names in the project's runs folder (none when it does not exist). */
async function runFolders(project: Project): Promise<string[]> {
  if (!(await exists(project.runsDir))) return [];
  return (await Array.fromAsync(Deno.readDir(project.runsDir))).map((entry) => entry.name);
}

/** No stack trace and no "internal error": a failure message a person can act on. */
function assertCleanMessage(stderr: string): void {
  assert.doesNotMatch(stderr, /internal error/, stderr);
  assert.doesNotMatch(stderr, /\n\s+at .*:\d+:\d+/, stderr);
}

// ---------------------------------------------------------------------------------------------
// Closed output pipes
// ---------------------------------------------------------------------------------------------

/** The answer: larger than a pipe's buffer (64 KiB), so writing it to a closed pipe must fail. */
const LONG_ANSWER = "All done. ".repeat(20_000);

/**
 * Turn 1: 30 reads of missing files with 3,000-character names, each a progress line of about
 * 3 KiB on stderr (90 KiB in all: more than a pipe holds, so a closed stderr fails during the
 * turn); turn 2 writes the deliverable; then the long answer on stdout.
 */
function pipePlan(): string[] {
  const reads = Array.from({ length: 30 }, (_, index) => ({
    id: `read-${index}`,
    name: "fs.read_file",
    arguments: { path: `missing-${index}/${"x".repeat(3000)}` },
  }));
  const write = {
    id: "report",
    name: "fs.write_file",
    arguments: { path: "{{run.deliverables}}/report.md", content: "The report.\n" },
  };
  return [
    JSON.stringify({ tool_calls: reads }),
    JSON.stringify({ tool_calls: [write] }),
    JSON.stringify({ content: LONG_ANSWER }),
  ];
}

async function assertRunRecorded(project: Project): Promise<void> {
  const runDir = await onlyRunDir(project);
  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  const completed = events.find((event) => event.type === "run.completed");
  assert.equal(completed?.end_reason, "completed");
  assert.equal(completed?.calls, 31);
  assert.equal(
    await Deno.readTextFile(nodePath.join(runDir, "deliverables", "report.md")),
    "The report.\n",
  );
}

Deno.test("kagent-run finishes and records its run when stdout and stderr close after one line", async () => {
  await using project = await createProject({ plan: pipePlan() });
  const child = cliCommand(project).spawn();
  // `kagent-run … 2>&1 | head -n 1`: the first line is read, then both pipes are closed.
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    first += value;
  }
  await reader.cancel();
  await child.stdout.cancel();
  const status = await child.status;
  assert.match(first, /^kagent-run: run \S+ in /);
  assert.equal(status.code, EXIT.ok, "the run did not end as completed");
  await assertRunRecorded(project);
});

Deno.test("kagent-run prints everything when nobody closes its output (near miss)", async () => {
  await using project = await createProject({ plan: pipePlan() });
  const { code, stdout, stderr } = await cliCommand(project).output();
  const errors = new TextDecoder().decode(stderr);
  assert.equal(code, EXIT.ok, errors);
  assert.equal(new TextDecoder().decode(stdout), `${LONG_ANSWER}\n`);
  assert.equal(errors.split("\n").filter((line) => line.includes("fs.read_file")).length, 30);
  assert.match(errors, /ok {5}fs\.write_file/);
  await assertRunRecorded(project);
});

// ---------------------------------------------------------------------------------------------
// A runs folder that cannot be written
// ---------------------------------------------------------------------------------------------

const SIMPLE_PLAN = [JSON.stringify({ content: "Nothing to do." })];

Deno.test("kagent-run refuses to start naming runs_dir when runs_dir is a file", async () => {
  await using project = await createProject({ plan: SIMPLE_PLAN });
  await Deno.writeTextFile(project.runsDir, "a file\n");
  const { code, stderr } = await runCli(["--config", project.configPath]);
  assert.equal(code, EXIT.usage, stderr);
  assert.match(stderr, /Cannot start a run in ".*runs" \(key "runs_dir" of config/);
  assert.match(stderr, /a part of the path is a file, not a folder.*point "runs_dir" at a folder/);
  assertCleanMessage(stderr);
  assert.equal(await Deno.readTextFile(project.runsDir), "a file\n", "the file was changed");
});

Deno.test("kagent-run starts when runs_dir does not exist yet (near miss)", async () => {
  await using project = await createProject({ plan: SIMPLE_PLAN });
  const { code, stdout, stderr } = await runCli(["--config", project.configPath]);
  assert.equal(code, EXIT.ok, stderr);
  assert.equal(stdout, "Nothing to do.\n");
  assert.equal((await runFolders(project)).length, 1);
});

Deno.test("kagent-run refuses to start naming runs_dir when it is read-only, and leaves no run folder", async () => {
  await using project = await createProject({ plan: SIMPLE_PLAN });
  await Deno.mkdir(project.runsDir);
  const command = cliCommand(project, { wrap: ["--ro-bind", project.runsDir, project.runsDir] });
  const { code, stderr } = await command.output();
  const errors = new TextDecoder().decode(stderr);
  assert.equal(code, EXIT.usage, errors);
  assert.match(errors, /key "runs_dir" of config .*the file system is read-only/);
  assert.match(errors, /point "runs_dir" at a folder this process can write/);
  assertCleanMessage(errors);
  assert.deepEqual(await runFolders(project), []);
});

Deno.test("kagent-run refuses to start naming runs_dir when its disk is full, and leaves no run folder", async () => {
  await using project = await createProject({ plan: SIMPLE_PLAN });
  await Deno.mkdir(project.runsDir);
  // One page: the folders fit, the policy snapshot or the system prompt does not.
  const wrap = ["--size", "4096", "--tmpfs", project.runsDir];
  const { code, stderr } = await cliCommand(project, { wrap }).output();
  const errors = new TextDecoder().decode(stderr);
  assert.equal(code, EXIT.usage, errors);
  assert.match(errors, /key "runs_dir" of config .*the disk is full/);
  assert.match(errors, /free space on that disk or point "runs_dir" at another one/);
  assertCleanMessage(errors);
  // The tmpfs is gone with bwrap; what matters is that the host's runs folder holds nothing.
  assert.deepEqual(await runFolders(project), []);
});

Deno.test("kagent-run stops a run whose disk fills, with whole lines and a message naming the file", async () => {
  // Each call writes 48 KiB into deliverables/ on a 512 KiB disk: the disk fills during the run.
  const writes = Array.from({ length: 16 }, (_, index) => ({
    id: `write-${index}`,
    name: "fs.write_file",
    arguments: { path: `{{run.deliverables}}/part-${index}.txt`, content: "y".repeat(48 * 1024) },
  }));
  const plan = [
    ...writes.map((write) => JSON.stringify({ tool_calls: [write] })),
    JSON.stringify({ content: "never reached" }),
  ];
  await using project = await createProject({ plan, config: { agent: { max_turns: 50 } } });
  await Deno.mkdir(project.runsDir);
  const runsDir = project.runsDir;
  // Inside bwrap, copy the logs out before the tmpfs goes: the test reads what the run left.
  const copy = nodePath.join(project.sandbox.root, "copied");
  const script = `"$@"; status=$?; cp -r ${runsDir} ${copy}; exit $status`;
  const deno = [Deno.execPath(), "run", "--unstable-worker-options", "--allow-all", MAIN];
  const { code, stderr } = await new Deno.Command("bwrap", {
    args: [
      "--dev-bind",
      "/",
      "/",
      "--size",
      String(512 * 1024),
      "--tmpfs",
      runsDir,
      "--",
      "sh",
      "-c",
      script,
      "sh",
      ...deno,
      "--config",
      project.configPath,
      "--non-interactive",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const errors = new TextDecoder().decode(stderr);
  assert.equal(code, EXIT.failed, errors);
  assert.match(errors, /kagent-run: Cannot write ".*": the disk is full .*"runs_dir"/);
  assertCleanMessage(errors);
  const [runName] = await Array.fromAsync(Deno.readDir(copy));
  assert.ok(runName !== undefined, "no run folder was left");
  const runDir = nodePath.join(copy, runName.name);
  // Never half a line: every log parses whole (readJsonl throws on a cut line).
  for (const log of ["events.jsonl", "logs/tools.jsonl", "logs/errors.jsonl"]) {
    await readJsonl(nodePath.join(runDir, log));
  }
  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  assert.ok(events.some((event) => event.type === "tool.completed"), "no call ran at all");
  // The run stopped at the failure instead of going on unaudited, and said so.
  const completed = events.find((event) => event.type === "run.completed");
  assert.equal(completed?.end_reason, "aborted_tools");
  assert.ok(!(await exists(nodePath.join(runDir, "deliverables", "part-15.txt"))));
  // Every call that started ended recorded (the small event lines still fit in their page).
  const ended = new Set(
    events.filter((event) => /^tool\.(completed|failed|denied)$/.test(String(event.type)))
      .map((event) => event.tool_call_id),
  );
  for (const started of events.filter((event) => event.type === "tool.started")) {
    assert.ok(ended.has(started.tool_call_id), `call ${started.tool_call_id} never ended`);
  }
  const logged = await readJsonl(nodePath.join(runDir, "logs", "errors.jsonl"));
  assert.ok(logged.some((line) => line.source === "audit"), "the failure is not in errors.jsonl");
});

// ---------------------------------------------------------------------------------------------
// Start-up failures are configuration errors
// ---------------------------------------------------------------------------------------------

/** The only run folder's errors.jsonl lines, or null when the run left no folder. */
async function startErrors(project: Project): Promise<Record<string, unknown>[] | null> {
  const names = await runFolders(project);
  if (names.length === 0) return null;
  return await readJsonl(nodePath.join(await onlyRunDir(project), "logs", "errors.jsonl"));
}

Deno.test("kagent-run refuses to start naming the key when a hook program is missing", async () => {
  await using project = await createProject({
    plan: SIMPLE_PLAN,
    config: { hooks: { pre_tool_use: [{ command: ["no-such-hook-program"] }] } },
  });
  const { code, stderr } = await runCli(["--config", project.configPath]);
  assert.equal(code, EXIT.usage, stderr);
  assert.match(stderr, /key "hooks\.pre_tool_use\[0\]\.command"/);
  assertCleanMessage(stderr);
  const errors = await startErrors(project);
  assert.ok(errors !== null, "the run folder is gone; this run keeps it, saying why");
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.source, "startup");
  assert.equal(errors[0]?.key, "hooks.pre_tool_use[0].command");
  assert.match(String(errors[0]?.message), /no-such-hook-program/);
});

Deno.test("kagent-run refuses to start naming the key when a command is unknown", async () => {
  await using project = await createProject({
    plan: SIMPLE_PLAN,
    config: { commands: ["no-such-program-xyz"], sandbox: { command_isolation: "bwrap" } },
  });
  const { code, stderr } = await runCli(["--config", project.configPath]);
  assert.equal(code, EXIT.usage, stderr);
  assert.match(stderr, /"commands(\[0\])?"/);
  assert.match(stderr, /no-such-program-xyz/);
  assertCleanMessage(stderr);
  const errors = await startErrors(project);
  assert.ok(errors !== null, "the run folder is gone; this run keeps it, saying why");
  assert.match(String(errors[0]?.message), /no-such-program-xyz/);
});

Deno.test("kagent-run with a hook and a known command starts (near miss)", async () => {
  await using project = await createProject({
    plan: SIMPLE_PLAN,
    config: {
      hooks: { pre_tool_use: [{ command: ["true"] }] },
      commands: ["echo"],
      sandbox: { command_isolation: "bwrap" },
    },
  });
  const { code, stderr } = await runCli(["--config", project.configPath]);
  assert.equal(code, EXIT.ok, stderr);
  assert.deepEqual(await startErrors(project), []);
});

Deno.test("kagent-run refuses to start naming GITHUB_STEP_SUMMARY when it cannot be written", async () => {
  await using project = await createProject({ plan: SIMPLE_PLAN });
  // A folder where the summary file should be: appending fails (also for root).
  const summary = nodePath.join(project.sandbox.root, "summary-folder");
  await Deno.mkdir(summary);
  const { code, stderr } = await runCli(["--config", project.configPath], {
    env: { GITHUB_STEP_SUMMARY: summary },
  });
  assert.equal(code, EXIT.usage, stderr);
  assert.match(stderr, /Cannot use GITHUB_STEP_SUMMARY ".*summary-folder": .*unset it/);
  assertCleanMessage(stderr);
  assert.deepEqual(await runFolders(project), [], "a run folder was made for a run that never ran");
});

Deno.test("kagent-run appends its step summary when GITHUB_STEP_SUMMARY is writable (near miss)", async () => {
  await using project = await createProject({ plan: SIMPLE_PLAN });
  const summary = nodePath.join(project.sandbox.root, "summary.md");
  await Deno.writeTextFile(summary, "# Earlier step\n");
  const { code, stderr } = await runCli(["--config", project.configPath], {
    env: { GITHUB_STEP_SUMMARY: summary },
  });
  assert.equal(code, EXIT.ok, stderr);
  const text = await Deno.readTextFile(summary);
  assert.ok(text.startsWith("# Earlier step\n"));
  assert.ok(text.length > "# Earlier step\n".length, "nothing was appended");
});

// ---------------------------------------------------------------------------------------------
// Nesting limits
// ---------------------------------------------------------------------------------------------

Deno.test("a config cannot raise limits.max_argument_depth past the maximum", async () => {
  await using project = await createProject({
    plan: SIMPLE_PLAN,
    config: { limits: { max_argument_depth: MAX_ARGUMENT_DEPTH + 1 } },
  });
  const { code, stderr } = await runCli(["--config", project.configPath]);
  assert.equal(code, EXIT.usage, stderr);
  assert.match(stderr, /"limits\.max_argument_depth"/);
  assert.deepEqual(await runFolders(project), []);
});

Deno.test("a call nested deeper than the maximum depth is invalid_arguments, never a stack overflow", async () => {
  await using run = await openTestRun({
    config: { limits: { max_argument_depth: MAX_ARGUMENT_DEPTH } },
    permissions: { rules: [{ tools: ["fs.edit_file"], paths: ["a.txt"], decision: "allow" }] },
  });
  for (const levels of [MAX_ARGUMENT_DEPTH + 1, 200_000]) {
    const deep = `{"path":"a.txt","edits":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
    const result = await run.call("fs.edit_file", deep);
    assert.equal(result.error?.type, "invalid_arguments", result.summary);
    assert.match(result.summary, new RegExp(`more than the limit of ${MAX_ARGUMENT_DEPTH}`));
  }
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "a.txt")), false);
  // Near miss: a normally nested call still runs under the raised limit.
  await Deno.writeTextFile(nodePath.join(run.sandbox.workspace, "a.txt"), "old line\n");
  const edited = await run.call("fs.edit_file", {
    path: "a.txt",
    edits: [{ old: "old line", new: "new line" }],
  });
  assert.equal(edited.ok, true, edited.summary);
  assert.equal(
    await Deno.readTextFile(nodePath.join(run.sandbox.workspace, "a.txt")),
    "new line\n",
  );
});

Deno.test("a call whose output the file system refuses to keep ends io_error, not internal_error, and the run goes on", async () => {
  await using run = await openTestRun({
    config: { limits: { max_output_bytes: 1024 } },
    prepare: async (sandbox) => {
      await Deno.writeTextFile(nodePath.join(sandbox.workspace, "big.txt"), "line\n".repeat(2000));
    },
  });
  // The artifacts folder becomes a file: every artifact write is refused, as on a full disk.
  const artifacts = run.session.folder.paths.artifacts;
  await Deno.remove(artifacts, { recursive: true });
  await Deno.writeTextFile(artifacts, "");
  const refused = await run.call("fs.read_file", { path: "big.txt" });
  assert.equal(refused.error?.type, "io_error", refused.summary);
  assert.match(refused.summary, /^Cannot keep the output of "fs\.read_file": Cannot write "/);
  const [record] = (await run.readLog("tools")).filter((line) =>
    line.tool_call_id === refused.tool_call_id
  );
  assert.equal((record?.result as { error_type?: string }).error_type, "io_error");
  // Near miss: an output under the inline cap needs no artifact and is read.
  await Deno.writeTextFile(nodePath.join(run.sandbox.workspace, "small.txt"), "small\n");
  const small = await run.call("fs.read_file", { path: "small.txt" });
  assert.equal(small.ok, true, small.summary);
});
