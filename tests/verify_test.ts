// kagent-run verify (issue 15 §1, §2): a sealed run verifies; each tampering is caught with the
// right message, file and line; a run killed with SIGKILL is incomplete, and what it wrote whole
// still verifies; a signed manifest checks with the key, fails with a wrong one or a re-forged seal,
// and says "not checked" without one. One real run through the CLI is the fixture; each case edits
// its own copy.
import assert from "node:assert/strict";
import { sleepMarker } from "./_attack_helpers.ts";
import * as nodePath from "node:path";
import { lineHash } from "../src/audit/mod.ts";
import { EXIT } from "../src/cli/_common.ts";
import { type VerifyReport, verifyRun } from "../src/verify/mod.ts";
import {
  createProject,
  onlyRunDir,
  type Project,
  repository,
  runCli,
  taskFlags,
} from "./_cli_helpers.ts";

const KEY_ENV = "KAGENT_TEST_SIGNING_KEY";
const KEY = "k".repeat(16) + "-signing-key-for-the-tests-0123456789";

/** Read README, write a deliverable, write a 20 KB one (its arguments kept as an artifact), fail once. */
const PLAN = [
  JSON.stringify({
    tool_calls: [
      { id: "r", name: "fs.read_file", arguments: { path: "README.md" } },
      {
        id: "w",
        name: "fs.write_file",
        arguments: { path: "{{run.deliverables}}/report.md", content: "# Report\n" },
      },
    ],
  }),
  JSON.stringify({
    tool_calls: [
      {
        id: "big",
        name: "fs.write_file",
        arguments: { path: "{{run.deliverables}}/data.txt", content: "x".repeat(20_000) },
      },
      { id: "m", name: "fs.read_file", arguments: { path: "missing.md" } },
    ],
  }),
  JSON.stringify({ content: "done" }),
];

async function sealedRun(config: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const project = await createProject({ plan: PLAN, config });
  const run = await runCli(["--config", project.configPath, "--non-interactive"], { env });
  return { project, run };
}

const fixture = await sealedRun();
const fixtureDir = await onlyRunDir(fixture.project);
let copies = 0;

/** A copy of the fixture's run folder to tamper with (same run id: the folder's name). */
async function copyOfRun(): Promise<string> {
  const parent = nodePath.join(fixture.project.sandbox.root, `copy-${copies++}`);
  await Deno.mkdir(parent);
  const target = nodePath.join(parent, nodePath.basename(fixtureDir));
  const copied = await new Deno.Command("cp", { args: ["-a", fixtureDir, target] }).output();
  assert.equal(copied.code, 0);
  return target;
}

async function readLines(path: string): Promise<string[]> {
  return (await Deno.readTextFile(path)).split("\n").slice(0, -1);
}

async function writeLines(path: string, lines: string[]): Promise<void> {
  await Deno.writeTextFile(path, lines.map((line) => `${line}\n`).join(""));
}

function problemsOf(report: VerifyReport, kind: string) {
  return report.problems.filter((problem) => problem.kind === kind);
}

Deno.test.afterAll?.(async () => await fixture.project[Symbol.asyncDispose]());

Deno.test("kagent-run verify says verified and exits 0 when the run is sealed and intact", async () => {
  assert.equal(fixture.run.code, EXIT.ok, fixture.run.stderr);
  const verified = await runCli(["verify", fixtureDir]);
  assert.equal(verified.code, EXIT.ok, verified.stdout + verified.stderr);
  assert.match(
    verified.stdout,
    /^verified: run \S+ \(\d+ events, 4 tool records, 1 error records, 4 calls, 1 artifacts, 2 deliverables, \d+ sealed files\)\n/,
  );
  assert.match(verified.stdout, /unsigned/);
  const json = await runCli(["verify", fixtureDir, "--json"]);
  const report = JSON.parse(json.stdout) as VerifyReport;
  assert.equal(report.verdict, "verified");
  assert.deepEqual(report.problems, []);
  const manifest = JSON.parse(await Deno.readTextFile(nodePath.join(fixtureDir, "manifest.json")));
  assert.ok(manifest.files["deliverables/report.md"]);
  assert.ok(Object.keys(manifest.files).some((path) => path.startsWith("artifacts/")));
  assert.ok(manifest.files["policy.json"] && manifest.files["system_prompt.md"]);
  // Every record is chained; tool records name their events.
  const tools = await readLines(nodePath.join(fixtureDir, "logs/tools.jsonl"));
  const first = JSON.parse(tools[0] as string);
  assert.equal(first.seq, 1);
  assert.equal(typeof first.events.started, "number");
  assert.equal(JSON.parse(tools[1] as string).prev, lineHash(tools[0] as string));
});

Deno.test("kagent-run verify reports an edited record with its file and line when one value changes", async () => {
  const dir = await copyOfRun();
  const path = nodePath.join(dir, "events.jsonl");
  const lines = await readLines(path);
  const index = lines.findIndex((line) => line.includes('"type":"tool.completed"'));
  lines[index] = (lines[index] as string).replace('"ok":true', '"ok":false');
  await writeLines(path, lines);
  const result = await runCli(["verify", dir]);
  assert.equal(result.code, EXIT.tampered, result.stdout);
  assert.match(result.stdout, /^tampered: /);
  assert.match(
    result.stdout,
    new RegExp(`events\\.jsonl:${index + 1}: edited record: seq ${index + 1}`),
  );
  const [edited] = problemsOf(await verifyRun(dir), "edited_record");
  assert.deepEqual([edited?.file, edited?.line], ["events.jsonl", index + 1]);
});

Deno.test("kagent-run verify reports missing records when one call's lines are deleted from every log", async () => {
  const dir = await copyOfRun();
  for (const file of ["events.jsonl", "logs/tools.jsonl", "logs/errors.jsonl"]) {
    const path = nodePath.join(dir, file);
    await writeLines(
      path,
      (await readLines(path)).filter((line) => !line.includes('"tool_call_id":"m"')),
    );
  }
  const report = await verifyRun(dir);
  assert.equal(report.verdict, "tampered");
  const missing = problemsOf(report, "missing_records");
  assert.ok(
    missing.some((problem) =>
      problem.file === "events.jsonl" &&
      /^missing records between seq \d+ and \d+$/.test(problem.message)
    ),
    JSON.stringify(report.problems),
  );
  // The call's tools record was the last one, its error line the only one: the seal names them.
  for (const file of ["logs/tools.jsonl", "logs/errors.jsonl"]) {
    assert.ok(
      missing.some((problem) => problem.file === file),
      `${file}: ${JSON.stringify(missing)}`,
    );
  }
});

Deno.test("kagent-run verify reports records out of order when two lines are swapped", async () => {
  const dir = await copyOfRun();
  const path = nodePath.join(dir, "events.jsonl");
  const lines = await readLines(path);
  [lines[2], lines[3]] = [lines[3] as string, lines[2] as string];
  await writeLines(path, lines);
  const report = await verifyRun(dir);
  assert.equal(report.verdict, "tampered");
  const reordered = problemsOf(report, "reordered_records");
  assert.deepEqual(reordered.map((problem) => problem.line), [3, 4]);
  assert.equal(reordered[0]?.message, "records out of order: seq 4 comes before seq 3");
  // Swapped, every record still links to its predecessor by seq: nothing is called edited.
  assert.deepEqual(problemsOf(report, "edited_record"), []);
});

Deno.test("kagent-run verify reports a torn last line when the file is cut mid-record", async () => {
  const dir = await copyOfRun();
  const path = nodePath.join(dir, "logs/tools.jsonl");
  const bytes = await Deno.readFile(path);
  await Deno.writeFile(path, bytes.subarray(0, bytes.length - 40));
  const report = await verifyRun(dir);
  assert.equal(report.verdict, "tampered");
  const [torn] = problemsOf(report, "torn_last_line");
  assert.deepEqual([torn?.file, torn?.line, torn?.severity], ["logs/tools.jsonl", 4, "tampered"]);
  assert.match(torn?.message ?? "", /^torn last line: /);
  assert.ok(
    problemsOf(report, "missing_records").some((problem) => problem.file === "logs/tools.jsonl"),
  );
});

Deno.test("kagent-run verify reports an artifact sha256 mismatch when an artifact or deliverable is replaced", async () => {
  const dir = await copyOfRun();
  const [artifact] = await Array.fromAsync(Deno.readDir(nodePath.join(dir, "artifacts")));
  assert.ok(artifact);
  await Deno.writeTextFile(nodePath.join(dir, "artifacts", artifact.name), "something else\n");
  await Deno.writeTextFile(nodePath.join(dir, "deliverables/report.md"), "# Forged\n");
  const result = await runCli(["verify", dir]);
  assert.equal(result.code, EXIT.tampered);
  assert.match(result.stdout, new RegExp(`artifacts/${artifact.name}: artifact sha256 mismatch`));
  assert.match(result.stdout, /deliverables\/report\.md: file sha256 mismatch/);
  // Near miss: the untouched copy's artifacts verify.
  assert.equal((await verifyRun(fixtureDir)).verdict, "verified");
});

Deno.test("kagent-run verify never follows a link or reads a FIFO in the run folder, and never reads an artifact a record names out of artifacts/", async () => {
  const dir = await copyOfRun();
  const [artifact] = await Array.fromAsync(Deno.readDir(nodePath.join(dir, "artifacts")));
  assert.ok(artifact);
  const artifactPath = nodePath.join(dir, "artifacts", artifact.name);
  // A link to an outside file with the very same bytes: still not the artifact the run wrote.
  const outside = nodePath.join(nodePath.dirname(dir), "same-bytes");
  await Deno.copyFile(artifactPath, outside);
  await Deno.remove(artifactPath);
  await Deno.symlink(outside, artifactPath);
  // A link to /dev/zero and a FIFO: reading either would never end.
  await Deno.symlink("/dev/zero", nodePath.join(dir, "deliverables/report.md.tmp"));
  await Deno.remove(nodePath.join(dir, "deliverables/report.md"));
  const made = await new Deno.Command("mkfifo", {
    args: [nodePath.join(dir, "deliverables/report.md")],
  })
    .output();
  assert.equal(made.code, 0);
  await Deno.remove(nodePath.join(dir, "run.json"));
  await Deno.symlink("/dev/zero", nodePath.join(dir, "run.json"));
  // A name that would erase the terminal's line: printed as text.
  await Deno.writeTextFile(nodePath.join(dir, "deliverables", "x\u001b[2K\rverified"), "x");
  const printed = await runCli(["verify", dir]);
  assert.equal(printed.code, EXIT.tampered);
  assert.ok(!printed.stdout.includes("\u001b"), printed.stdout);
  assert.match(
    printed.stdout,
    /deliverables\/x\\u001b\[2K\\u000dverified: file added after the seal/,
  );
  const report = await verifyRun(dir);
  assert.equal(report.verdict, "tampered");
  const files = report.problems.map((problem) => `${problem.kind} ${problem.file}`);
  assert.ok(files.includes(`artifact_mismatch artifacts/${artifact.name}`), files.join("\n"));
  assert.ok(files.includes("file_mismatch deliverables/report.md"), files.join("\n"));
  assert.ok(files.includes("file_added deliverables/report.md.tmp"), files.join("\n"));
  assert.ok(files.includes("file_mismatch run.json"), files.join("\n"));

  // A record naming artifacts/../../<a FIFO outside the folder>: refused by its name, not opened.
  const named = await copyOfRun();
  const fifo = nodePath.join(nodePath.dirname(named), "outside-fifo");
  assert.equal((await new Deno.Command("mkfifo", { args: [fifo] }).output()).code, 0);
  const toolsPath = nodePath.join(named, "logs/tools.jsonl");
  const lines = await readLines(toolsPath);
  const index = lines.findIndex((line) => line.includes(`artifacts/${artifact.name}`));
  assert.ok(index >= 0);
  lines[index] = (lines[index] as string).replaceAll(
    `artifacts/${artifact.name}`,
    "artifacts/../../outside-fifo",
  );
  await writeLines(toolsPath, lines);
  const crossed = await verifyRun(named);
  assert.equal(crossed.verdict, "tampered");
  assert.ok(
    crossed.problems.some((problem) =>
      problem.kind === "cross_reference" && problem.line === index + 1 &&
      problem.message.includes(
        '"artifacts/../../outside-fifo", which is not a path inside artifacts/',
      )
    ),
    JSON.stringify(crossed.problems),
  );
  // Near miss: the untouched run, whose artifact is a regular file, verifies.
  assert.equal((await verifyRun(fixtureDir)).verdict, "verified");
});

/** The processes running `sleep <marker>` (by name or path, not bwrap's line), with their pids. */
async function sleeping(marker: string): Promise<{ pid: number; args: string }[]> {
  const { stdout } = await new Deno.Command("ps", { args: ["-eo", "pid=,args="], stdout: "piped" })
    .output();
  return new TextDecoder().decode(stdout).split("\n")
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .filter((match) =>
      match !== null && /^(\S*\/)?sleep /.test(match[2] ?? "") &&
      (match[2] ?? "").endsWith(`sleep ${marker}`)
    )
    .map((match) => ({ pid: Number(match?.[1]), args: match?.[2] ?? "" }));
}

Deno.test("kagent-run verify says incomplete, and the whole records verify, when the run was killed with SIGKILL", async () => {
  const marker = sleepMarker("30.4833");
  await using project: Project = await createProject({
    config: { commands: ["sleep"], sandbox: { command_isolation: "bwrap" } },
    permissions: {
      rules: [{ tools: ["exec.run_command"], commands: ["sleep"], decision: "allow" }],
    },
    plan: [
      JSON.stringify({
        tool_calls: [{ id: "r", name: "fs.read_file", arguments: { path: "README.md" } }],
      }),
      JSON.stringify({
        tool_calls: [{
          id: "nap",
          name: "exec.run_command",
          arguments: { argv: ["sleep", marker] },
        }],
      }),
      JSON.stringify({ content: "never reached" }),
    ],
  });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      // The flags the shipped task and binary run with, not --allow-all.
      ...taskFlags("kagent-run"),
      nodePath.join(import.meta.dirname as string, "../main.ts"),
      "--config",
      project.configPath,
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    // Wait for the command to run: the run is then mid-call.
    const deadline = Date.now() + 30_000;
    while ((await sleeping(marker)).length === 0) {
      assert.ok(Date.now() < deadline, "the command never started");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill("SIGKILL");
    assert.equal((await child.status).signal, "SIGKILL");
  } finally {
    for (const { pid } of await sleeping(marker)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // Gone between the listing and the kill (bubblewrap ends it with its parent).
      }
    }
  }
  const dir = await onlyRunDir(project);
  const result = await runCli(["verify", dir]);
  assert.equal(result.code, EXIT.incomplete, result.stdout);
  assert.match(result.stdout, /^incomplete: /);
  assert.match(result.stdout, /incomplete: no run\.completed \(killed\?\)/);
  assert.match(
    result.stdout,
    /call "nap" \(exec\.run_command\) started at seq \d+ and never ended/,
  );
  const report = await verifyRun(dir);
  assert.equal(report.sealed, false);
  assert.deepEqual(report.problems.filter((problem) => problem.severity === "tampered"), []);
  await assert.rejects(Deno.stat(nodePath.join(dir, "manifest.json")), Deno.errors.NotFound);
  // Near miss: an edit in what the killed run wrote is still tampering.
  const path = nodePath.join(dir, "events.jsonl");
  const lines = await readLines(path);
  lines[0] = (lines[0] as string).replace('"type":"run.started"', '"type":"run.started" ');
  await writeLines(path, lines);
  assert.equal((await verifyRun(dir)).verdict, "tampered");
});

Deno.test("kagent-run verify checks the signature with the key, rejects a wrong key and a re-forged seal, and says not checked without a key", async () => {
  const signed = await sealedRun({ audit: { signing_key_env: KEY_ENV } }, { [KEY_ENV]: KEY });
  await using project = signed.project;
  assert.equal(signed.run.code, EXIT.ok, signed.run.stderr);
  const dir = await onlyRunDir(project);
  // The key is a secret: nowhere in the run folder.
  const found = await new Deno.Command("grep", { args: ["-rlF", KEY, dir] }).output();
  assert.equal(found.code, 1, new TextDecoder().decode(found.stdout));
  const manifest = JSON.parse(await Deno.readTextFile(nodePath.join(dir, "manifest.json")));
  assert.equal(manifest.signature.key_env, KEY_ENV);

  const valid = await runCli(["verify", dir, "--key-env", KEY_ENV], { env: { [KEY_ENV]: KEY } });
  assert.equal(valid.code, EXIT.ok, valid.stdout);
  assert.match(valid.stdout, /signature valid \(HMAC-SHA256, key from KAGENT_TEST_SIGNING_KEY\)/);

  const wrong = await runCli(["verify", dir, "--key-env", "OTHER_KEY"], {
    env: { OTHER_KEY: `${KEY}-but-another` },
  });
  assert.equal(wrong.code, EXIT.tampered, wrong.stdout);
  assert.match(wrong.stdout, /manifest\.json: signature does not match/);

  const unchecked = await runCli(["verify", dir]);
  assert.equal(unchecked.code, EXIT.ok, unchecked.stdout);
  assert.match(unchecked.stdout, /signature not checked: pass --key-env NAME/);

  // Re-forged: a record edited, the chain and the seal recomputed by someone without the key.
  const path = nodePath.join(dir, "logs/errors.jsonl");
  const [line] = await readLines(path);
  const forged = (line as string).replace("missing.md", "elsewhere.md");
  await writeLines(path, [forged]);
  manifest.chains["logs/errors.jsonl"].hash = lineHash(forged);
  manifest.signature.value = "0".repeat(64);
  await Deno.writeTextFile(nodePath.join(dir, "manifest.json"), JSON.stringify(manifest));
  const reforged = await verifyRun(dir, { key: KEY });
  assert.equal(reforged.signature, "invalid");
  assert.equal(reforged.verdict, "tampered");
});

Deno.test("kagent-run refuses to start a signed run when the key's variable is unset, naming it", async () => {
  await using project = await createProject({
    plan: PLAN,
    config: { audit: { signing_key_env: KEY_ENV } },
  });
  const refused = await runCli(["--config", project.configPath, "--non-interactive"], {
    env: { [KEY_ENV]: "" },
  });
  assert.equal(refused.code, EXIT.usage, refused.stderr);
  assert.match(
    refused.stderr,
    /Cannot sign the run's manifest with the variable "KAGENT_TEST_SIGNING_KEY"/,
  );
  const dir = await onlyRunDir(project);
  await assert.rejects(Deno.stat(nodePath.join(dir, "manifest.json")), Deno.errors.NotFound);
  const report = await verifyRun(dir);
  assert.equal(report.verdict, "incomplete");
  assert.match(
    report.problems[0]?.message ?? "",
    /^incomplete: no run\.completed: the run failed to start \(logs\/errors\.jsonl line 1: Cannot sign/,
  );
});

Deno.test("kagent-run verify exits 2 when the folder is not a run folder", async () => {
  const result = await runCli(["verify", fixture.project.sandbox.workspace]);
  assert.equal(result.code, EXIT.usage);
  assert.match(result.stderr, /Cannot verify ".*": it is not a run folder \(no events\.jsonl\)/);
});

let agentsRunDir: Promise<string> | null = null;

/**
 * The run folder of the README's "Sub-agents and tasks" example (workers, a sub-agent and a fork),
 * made once; the tests that tamper with it work on copies, except the last one.
 */
function agentsRun(): Promise<string> {
  agentsRunDir ??= makeAgentsRun();
  return agentsRunDir;
}

async function makeAgentsRun(): Promise<string> {
  const example = nodePath.join(repository, "examples", "agents");
  const project = await createProject();
  agentsProject = project;
  await Deno.mkdir(nodePath.join(project.configDir, "plans"));
  for await (const entry of Deno.readDir(nodePath.join(example, "plans"))) {
    await Deno.copyFile(
      nodePath.join(example, "plans", entry.name),
      nodePath.join(project.configDir, "plans", entry.name),
    );
  }
  const config = (await Deno.readTextFile(nodePath.join(example, "agent.jsonc")))
    .replace('"$schema": "../../docs/config.schema.json",', "")
    .replace('"runs_dir": "runs"', '"runs_dir": "../runs"');
  await Deno.writeTextFile(project.configPath, config);
  const run = await runCli([
    "run",
    "--config",
    project.configPath,
    "--workspace",
    project.sandbox.workspace,
    "--non-interactive",
  ]);
  assert.equal(run.code, EXIT.ok, run.stderr);
  return await onlyRunDir(project);
}

let agentsProject: Project | null = null;
Deno.test.afterAll?.(async () => await agentsProject?.[Symbol.asyncDispose]());

/** A copy of a run folder, with the same name, in a fresh folder of the fixture's sandbox. */
async function copyOf(dir: string): Promise<string> {
  const parent = nodePath.join(fixture.project.sandbox.root, `copy-${copies++}`);
  await Deno.mkdir(parent);
  const target = nodePath.join(parent, nodePath.basename(dir));
  const copied = await new Deno.Command("cp", { args: ["-a", dir, target] }).output();
  assert.equal(copied.code, 0);
  return target;
}

Deno.test("kagent-run verify fails the parent when a child run named by agent.started is emptied, removed or swapped for a link", async () => {
  const original = await agentsRun();
  const childName = (await verifyRun(original)).children[0]?.run_dir.split("/").at(-1) as string;
  const events = `agents/${childName}/events.jsonl`;
  // Emptied: everything but the manifest the parent's seal names, so no sealed file changed.
  const emptied = await copyOf(original);
  for (const name of ["events.jsonl", "logs"]) {
    await Deno.remove(nodePath.join(emptied, "agents", childName, name), { recursive: true });
  }
  // Removed: the whole folder.
  const removed = await copyOf(original);
  await Deno.remove(nodePath.join(removed, "agents", childName), { recursive: true });
  // Swapped: the folder is a link to an intact copy elsewhere.
  const swapped = await copyOf(original);
  const elsewhere = await copyOf(nodePath.join(original, "agents", childName));
  await Deno.remove(nodePath.join(swapped, "agents", childName), { recursive: true });
  await Deno.symlink(elsewhere, nodePath.join(swapped, "agents", childName));
  for (const dir of [emptied, removed, swapped]) {
    const report = await verifyRun(dir);
    assert.equal(report.verdict, "tampered", dir);
    const missing = problemsOf(report, "file_missing").find((problem) => problem.file === events);
    assert.ok(missing, JSON.stringify(report.problems));
    assert.match(
      missing.message,
      /^child run missing: .*\(named by events\.jsonl line \d+, agent\.started\)$/,
    );
    assert.ok(!report.children.some((child) => child.run_dir.endsWith(childName)));
  }
  const result = await runCli(["verify", emptied]);
  assert.equal(result.code, EXIT.tampered, result.stdout);
  assert.match(result.stdout, /child run missing: agents\/\S+: its events\.jsonl is missing/);
  // Near miss: an untouched copy, its children included, verifies.
  const intact = await verifyRun(await copyOf(original));
  assert.equal(intact.verdict, "verified", JSON.stringify(intact.problems));
  assert.ok(intact.children.length >= 2);
});

Deno.test("kagent-run verify checks each child agent's run folder and fails the parent when a child was edited", async () => {
  const dir = await agentsRun();
  const report = await verifyRun(dir);
  assert.equal(report.verdict, "verified", JSON.stringify(report.problems));
  assert.ok(report.children.length >= 2);
  assert.ok(report.children.every((child) => child.verdict === "verified"));
  const manifest = JSON.parse(await Deno.readTextFile(nodePath.join(dir, "manifest.json")));
  const child = report.children[0] as VerifyReport;
  const childName = nodePath.basename(child.run_dir);
  assert.ok(manifest.files[`agents/${childName}/manifest.json`]);

  const path = nodePath.join(child.run_dir, "events.jsonl");
  const lines = await readLines(path);
  lines[0] = (lines[0] as string).replace('"type":"run.started"', '"type":"run.started" ');
  await writeLines(path, lines);
  const result = await runCli(["verify", dir]);
  assert.equal(result.code, EXIT.tampered, result.stdout);
  assert.match(result.stdout, new RegExp(`^  tampered: run ${childName} `, "m"));
  assert.match(
    result.stdout,
    /events\.jsonl:1: edited record: seq 1 does not hash to the prev of seq 2/,
  );
});

Deno.test("kagent-run verify says tampered when the run's scratch workspace is edited or added to after the seal", async () => {
  await using project = await createProject({
    plan: [
      JSON.stringify({
        tool_calls: [{
          id: "scratch",
          name: "fs.write_file",
          arguments: { path: "{{run.scratch}}/notes.md", content: "draft\n" },
        }],
      }),
      JSON.stringify({ content: "done" }),
    ],
  });
  const run = await runCli(["--config", project.configPath, "--non-interactive"]);
  assert.equal(run.code, EXIT.ok, run.stderr);
  const dir = await onlyRunDir(project);
  const manifest = JSON.parse(await Deno.readTextFile(nodePath.join(dir, "manifest.json")));
  assert.ok(
    Object.hasOwn(manifest.files, "workspace/notes.md"),
    Object.keys(manifest.files).join(),
  );
  // Near miss: untouched, it verifies.
  assert.equal((await runCli(["verify", dir])).code, EXIT.ok);
  await Deno.writeTextFile(nodePath.join(dir, "workspace/notes.md"), "rewritten\n");
  const edited = await verifyRun(dir);
  assert.equal(edited.verdict, "tampered");
  assert.deepEqual(problemsOf(edited, "file_mismatch").map((problem) => problem.file), [
    "workspace/notes.md",
  ]);
  await Deno.writeTextFile(nodePath.join(dir, "workspace/notes.md"), "draft\n");
  await Deno.writeTextFile(nodePath.join(dir, "workspace/planted.sh"), "echo hi\n");
  const added = await runCli(["verify", dir]);
  assert.equal(added.code, EXIT.tampered, added.stdout);
  assert.match(added.stdout, /file added after the seal: workspace\/planted\.sh/);
});

Deno.test("kagent-run verify says tampered (6) when the manifest of a signed completed run is deleted, incomplete (7) for an unsigned one", async () => {
  const signed = await sealedRun({ audit: { signing_key_env: KEY_ENV } }, { [KEY_ENV]: KEY });
  await using project = signed.project;
  assert.equal(signed.run.code, EXIT.ok, signed.run.stderr);
  const dir = await onlyRunDir(project);
  await Deno.remove(nodePath.join(dir, "manifest.json"));
  const removed = await runCli(["verify", dir]);
  assert.equal(removed.code, EXIT.tampered, removed.stdout);
  assert.match(
    removed.stdout,
    /manifest missing: run\.completed \(events\.jsonl line \d+\) says the seal was signed with the key in "KAGENT_TEST_SIGNING_KEY"/,
  );
  // Near miss: the unsigned run without its manifest is only incomplete, as after a kill.
  const unsigned = await copyOfRun();
  await Deno.remove(nodePath.join(unsigned, "manifest.json"));
  const incomplete = await runCli(["verify", unsigned]);
  assert.equal(incomplete.code, EXIT.incomplete, incomplete.stdout);
});

Deno.test("kagent-run verify counts the calls the run's summary counts, skipped ones included", async () => {
  await using project = await createProject({
    plan: [
      JSON.stringify({
        tool_calls: [
          // Fails (no path): the read after it in the turn is skipped, never started.
          { id: "bad", name: "fs.write_file", arguments: {} },
          { id: "after", name: "fs.read_file", arguments: { path: "README.md" } },
        ],
      }),
      JSON.stringify({ content: "done" }),
    ],
  });
  const run = await runCli(["--config", project.configPath, "--non-interactive"]);
  assert.match(
    run.stderr,
    /run completed in [\d.]+ s: 2 tool calls, 0 denied, 1 failed, 1 skipped/,
  );
  const report = await verifyRun(await onlyRunDir(project));
  assert.equal(report.verdict, "verified");
  assert.equal(report.counts.calls, 2);
  const printed = await runCli(["verify", await onlyRunDir(project)]);
  assert.match(printed.stdout, /, 2 calls,/);
});
