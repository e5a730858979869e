// The Action's approval mode (issue 26 §4), run as the runner would: job 1 (mode approval) ends
// waiting for an approval, passes its step, and writes the waiting call, its arguments and why it
// asked to the step summary; the run folder travels as an artifact (moved away and brought back
// to its path); job 2 (mode resume, behind the environment's reviewers) resumes it with the grants
// it waited for, the call runs, and the joined run verifies. Near miss: job 2 without run-folder
// is refused and nothing runs.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { parse } from "yaml";
import { createProject, repository, runCli } from "./_cli_helpers.ts";

/** Runs action/run.sh as the runner would: in the job's folder, with INPUT_* and GITHUB_* set. */
async function runAction(cwd: string, inputs: Record<string, string>, root: string) {
  const github = {
    GITHUB_OUTPUT: nodePath.join(root, `output-${crypto.randomUUID()}`),
    GITHUB_STEP_SUMMARY: nodePath.join(root, `summary-${crypto.randomUUID()}.md`),
  };
  const output = await new Deno.Command("bash", {
    args: [nodePath.join(repository, "action/run.sh")],
    cwd,
    clearEnv: true,
    env: {
      PATH: `${nodePath.dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
      HOME: Deno.env.get("HOME") ?? "/root",
      ...(Deno.env.get("DENO_DIR") === undefined ? {} : { DENO_DIR: Deno.env.get("DENO_DIR")! }),
      NO_COLOR: "1",
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_ACTION_PATH: repository,
      ...github,
      ...inputs,
    },
  }).output();
  const read = (path: string) => Deno.readTextFile(path).catch(() => "");
  const outputs: Record<string, string> = {};
  const lines = (await read(github.GITHUB_OUTPUT)).split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const multi = /^([\w-]+)<<(.+)$/.exec(line);
    if (multi !== null) {
      const end = lines.indexOf(multi[2] as string, index + 1);
      outputs[multi[1] as string] = lines.slice(index + 1, end).join("\n");
      index = end;
      continue;
    }
    const single = /^([\w-]+)=(.*)$/.exec(line);
    if (single !== null) outputs[single[1] as string] = single[2] as string;
  }
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
    outputs,
    summary: await read(github.GITHUB_STEP_SUMMARY),
  };
}

Deno.test("approval mode: job 1 waits and tells the reviewer what for; job 2 resumes the downloaded run folder with those grants", async () => {
  await using project = await createProject({
    plan: [
      JSON.stringify({
        tool_calls: [{
          id: "w",
          name: "fs.write_file",
          arguments: { path: "notes.md", content: "from the reviewed job" },
        }],
      }),
      JSON.stringify({ content: "The notes need an approval." }),
      JSON.stringify({ content: "Wrote the notes: {{w.summary}}" }),
    ],
  });
  const root = project.sandbox.root;
  const runnerTemp = nodePath.join(root, "runner_temp");
  await Deno.mkdir(runnerTemp);
  const job = { INPUT_CONFIG: "config/agent.jsonc", INPUT_WORKSPACE: "workspace" };
  const runner = { RUNNER_TEMP: runnerTemp };
  const notes = nodePath.join(project.sandbox.workspace, "notes.md");

  const first = await runAction(root, { ...job, ...runner, INPUT_MODE: "approval" }, root);
  assert.equal(first.code, 0, `the waiting run passes its step:\n${first.stderr}`);
  assert.deepEqual([first.outputs.exit_code, first.outputs.approval_required], ["3", "1"]);
  await assert.rejects(Deno.stat(notes), Deno.errors.NotFound);
  // In words a reviewer can judge: the call, its arguments, why it asked.
  assert.match(first.summary, /\*\*Calls waiting for an approval:\*\*/);
  // (Markdown escapes aside: the model's words are escaped in the summary.)
  assert.match(
    first.summary.replaceAll("\\", ""),
    /\| `fs\.write_file` \| \{"path":"notes\.md","content":"from the reviewed job"\} \| write tools ask by default \(rule default:write-ask\) \|/,
  );
  const runDir = first.outputs.run_dir as string;
  assert.equal(nodePath.dirname(runDir), nodePath.join(runnerTemp, "kagent-run/runs"));

  // The artifact: only the folder's bytes travel, back to the path the first job had.
  const carried = nodePath.join(root, "artifact");
  await Deno.rename(runDir, carried);
  // As upload-artifact does, the empty folders are left behind.
  await new Deno.Command("find", { args: [carried, "-type", "d", "-empty", "-delete"] }).output();
  await assert.rejects(Deno.stat(nodePath.join(carried, "deliverables")));
  await new Deno.Command("cp", { args: ["-a", carried, runDir] }).output();
  await Deno.remove(carried, { recursive: true });

  // Near miss: mode resume without the folder runs nothing.
  const lost = await runAction(root, { ...job, ...runner, INPUT_MODE: "resume" }, root);
  assert.equal(lost.code, 2);
  assert.match(lost.stderr, /Cannot resume: mode resume needs the run-folder input/);

  const second = await runAction(
    root,
    { ...job, ...runner, INPUT_MODE: "resume", INPUT_RUN_FOLDER: runDir },
    root,
  );
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(
    [second.outputs.exit_code, second.outputs.approval_required, second.outputs.run_id],
    ["0", "0", first.outputs.run_id],
  );
  assert.equal(await Deno.readTextFile(notes), "from the reviewed job");
  assert.match(second.stdout, /Wrote the notes: Wrote 21 bytes to "notes\.md"/);
  assert.equal((await runCli(["verify", runDir])).code, 0);
});

Deno.test("README's two-job approval workflow parses and uses only the Action's inputs and outputs", async () => {
  const action = parse(await Deno.readTextFile(nodePath.join(repository, "action.yml"))) as {
    inputs: Record<string, unknown>;
    outputs: Record<string, unknown>;
  };
  const readme = await Deno.readTextFile(nodePath.join(repository, "README.md"));
  const section = readme.slice(readme.indexOf("### Approve between two CI jobs"));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, "README has a yaml block under Approve between two CI jobs");
  const workflow = parse(block) as {
    jobs: Record<string, {
      environment?: unknown;
      needs?: string;
      outputs?: Record<string, string>;
      steps: { uses?: string; with?: Record<string, unknown> }[];
    }>;
  };
  const jobs = Object.values(workflow.jobs);
  assert.equal(jobs.length, 2);
  const [agent, approved] = jobs as [typeof jobs[0], typeof jobs[0]];
  const modes = jobs.map((job) =>
    job.steps.find((step) => /kagent-run@/.test(step.uses ?? ""))?.with?.mode
  );
  assert.deepEqual(modes, ["approval", "resume"]);
  assert.ok(approved.environment, "the second job runs in an environment (required reviewers)");
  assert.ok(approved.needs, "the second job needs the first");
  assert.ok(approved.steps.some((step) => /^actions\/download-artifact@/.test(step.uses ?? "")));
  for (const step of jobs.flatMap((job) => job.steps)) {
    if (!/kagent-run@/.test(step.uses ?? "")) continue;
    for (const input of Object.keys(step.with ?? {})) {
      assert.ok(action.inputs[input], `input "${input}" exists in action.yml`);
    }
  }
  for (const value of Object.values(agent.outputs ?? {})) {
    const output = /steps\.[\w-]+\.outputs\.(\w+)/.exec(value)?.[1];
    assert.ok(output && action.outputs[output], `output of "${value}" exists in action.yml`);
  }
});
