// The GitHub Action (action.yml, issue 17 §1): what can be checked off GitHub. The file is valid
// YAML with the documented inputs and outputs; its run script uses the kagent-run task's flags and,
// run here with the environment the runner would set, runs the agent from the action's checkout,
// fills GITHUB_OUTPUT and the step summary, and takes an approvals file.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { parse } from "yaml";
import { GITHUB_OUTPUT_NAMES } from "../src/cli/_github_output.ts";
import { createProject, repository, taskFlags } from "./_cli_helpers.ts";

interface ActionStep {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

interface Action {
  name: string;
  description: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

const action = parse(
  await Deno.readTextFile(nodePath.join(repository, "action.yml")),
) as Action;

/** The scripts a step runs, as paths in the repository (`"$GITHUB_ACTION_PATH/x"` → `x`). */
const scriptOf = (step: ActionStep) =>
  /\$GITHUB_ACTION_PATH\/([\w./-]+)/.exec(step.run ?? "")?.[1] ?? null;

Deno.test("action.yml is a composite action with the documented inputs and outputs", async () => {
  assert.equal(action.runs.using, "composite");
  assert.ok(action.name !== "" && action.description !== "");
  for (const name of ["config", "task", "task-file", "workspace", "approvals", "deno-version"]) {
    assert.ok(action.inputs[name]?.description, `input "${name}" is described`);
  }
  assert.equal(action.inputs["deno-version"]?.default, "2.9.6");
  // The version CI installs (.ci/run) is the action's default.
  const ci = await Deno.readTextFile(nodePath.join(repository, ".ci/run"));
  assert.match(ci, /^DENO_VERSION=2\.9\.6$/m);
  for (const name of [...GITHUB_OUTPUT_NAMES, "exit_code"]) {
    assert.equal(action.outputs[name]?.value, `\${{ steps.run.outputs.${name} }}`, name);
  }
  const steps = action.runs.steps;
  for (const step of steps) {
    if (step.run !== undefined) assert.equal(step.shell, "bash", `${step.name} names its shell`);
    const script = scriptOf(step);
    if (script !== null) {
      const info = await Deno.stat(nodePath.join(repository, script));
      assert.ok(info.isFile && ((info.mode ?? 0) & 0o111) !== 0, `${script} is executable`);
    }
  }
  const install = steps.find((step) => scriptOf(step) === "action/install_deno.sh");
  assert.equal(install?.env?.DENO_VERSION, "${{ inputs.deno-version }}");
  assert.match(
    await Deno.readTextFile(nodePath.join(repository, "action/install_deno.sh")),
    /npm install -g "deno@\$\{version\}"/,
  );
  const bubblewrap = steps.find((step) => scriptOf(step) === "action/setup_bubblewrap.sh");
  assert.match(bubblewrap?.if ?? "", /runner\.os == 'Linux'/);
  const run = steps.find((step) => step.id === "run");
  assert.equal(scriptOf(run as ActionStep), "action/run.sh");
  assert.deepEqual(run?.env, {
    DENO_DIR: "${{ steps.deno-cache.outputs.dir }}",
    INPUT_CONFIG: "${{ inputs.config }}",
    INPUT_TASK: "${{ inputs.task }}",
    INPUT_TASK_FILE: "${{ inputs.task-file }}",
    INPUT_WORKSPACE: "${{ inputs.workspace }}",
    INPUT_RUNS_DIR: "${{ inputs.runs-dir }}",
    INPUT_APPROVALS: "${{ inputs.approvals }}",
    INPUT_MODE: "${{ inputs.mode }}",
    INPUT_RUN_FOLDER: "${{ inputs.run-folder }}",
  });
  // Deno's folder is restored by actions/cache under the key the key script names, before the
  // run step, which uses it as DENO_DIR.
  const cache = steps.find((step) => /^actions\/cache@v\d+$/.test(step.uses ?? ""));
  assert.equal(cache?.with?.key, "${{ steps.deno-cache.outputs.key }}");
  assert.equal(cache?.with?.path, "${{ steps.deno-cache.outputs.dir }}");
  assert.equal(cache?.if, "inputs.cache == 'true'");
  assert.ok(steps.indexOf(cache as ActionStep) < steps.indexOf(run as ActionStep));
  assert.equal(
    scriptOf(steps.find((step) => step.id === "deno-cache") as ActionStep),
    "action/deno_cache_key.sh",
  );
  // Inputs reach the script through the environment, never pasted into the script's text.
  for (const step of steps) assert.doesNotMatch(step.run ?? "", /\$\{\{/);
  const upload = steps.at(-1);
  assert.match(upload?.uses ?? "", /^actions\/upload-artifact@v\d+$/);
  assert.match(upload?.if ?? "", /^always\(\)/);
  assert.equal(upload?.with?.path, "${{ steps.run.outputs.run_dir }}");
  // The setup scripts parse (they change the machine, so they are not run here).
  for (
    const script of [
      "action/install_deno.sh",
      "action/setup_bubblewrap.sh",
      "action/run.sh",
      "action/deno_cache_key.sh",
    ]
  ) {
    const check = await new Deno.Command("bash", {
      args: ["-n", nodePath.join(repository, script)],
    }).output();
    assert.equal(check.code, 0, `${script}: ${new TextDecoder().decode(check.stderr)}`);
  }
});

Deno.test("action/run.sh runs kagent-run with exactly the kagent-run task's flags", async () => {
  const script = await Deno.readTextFile(nodePath.join(repository, "action/run.sh"));
  const flags = /^flags=\(([^)]*)\)$/m.exec(script)?.[1]?.split(/\s+/) ?? [];
  assert.deepEqual(flags, taskFlags("kagent-run"));
});

/** Runs action/run.sh as the runner would: in the job's folder, with INPUT_* and GITHUB_* set. */
async function runAction(
  cwd: string,
  inputs: Record<string, string>,
  github: { output: string; summary: string },
) {
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
      GITHUB_OUTPUT: github.output,
      GITHUB_STEP_SUMMARY: github.summary,
      ...inputs,
    },
  }).output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

/** The last value of each output in a `$GITHUB_OUTPUT` file (`name<<D … D` and `name=value`). */
function readOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const multi = /^([\w-]+)<<(.+)$/.exec(line);
    if (multi !== null) {
      const end = lines.indexOf(multi[2] as string, index + 1);
      assert.ok(end > index, `output "${multi[1]}" has no closing delimiter`);
      outputs[multi[1] as string] = lines.slice(index + 1, end).join("\n");
      index = end;
      continue;
    }
    const single = /^([\w-]+)=(.*)$/.exec(line);
    if (single !== null) outputs[single[1] as string] = single[2] as string;
    else assert.equal(line, "", `line ${index + 1} of GITHUB_OUTPUT`);
  }
  return outputs;
}

Deno.test("action/run.sh, run as the runner would, hands on the outputs, and the printed grant lets the refused call through", async () => {
  await using project = await createProject({
    plan: [
      JSON.stringify({
        tool_calls: [{
          id: "w",
          name: "fs.write_file",
          arguments: { path: "notes.md", content: "from the action" },
        }],
      }),
      JSON.stringify({ content: "Wrote the notes." }),
    ],
  });
  const github = {
    output: nodePath.join(project.sandbox.root, "github_output"),
    summary: nodePath.join(project.sandbox.root, "step_summary.md"),
  };
  const taskFile = nodePath.join(project.sandbox.root, "task.md");
  await Deno.writeTextFile(taskFile, "Write the notes");
  // Relative to the job's folder, as a workflow names them.
  const inputs = {
    INPUT_CONFIG: "config/agent.jsonc",
    INPUT_TASK: "",
    INPUT_TASK_FILE: "task.md",
    INPUT_WORKSPACE: "workspace",
    INPUT_APPROVALS: "",
  };
  const first = await runAction(project.sandbox.root, inputs, github);
  assert.equal(first.code, 3, first.stderr);
  const refused = readOutputs(await Deno.readTextFile(github.output));
  assert.equal(refused.end_reason, "completed");
  assert.equal(refused.approval_required, "1");
  assert.equal(refused.exit_code, "3");
  assert.equal(await Deno.stat(refused.run_dir as string).then((info) => info.isDirectory), true);
  assert.equal(
    await Deno.stat(nodePath.join(project.sandbox.workspace, "notes.md")).then(() => 1, () => 0),
    0,
    "the refused write did not happen",
  );
  assert.match(first.stderr, /::group::kagent-run progress/);
  // Near miss of the extraheader warning: a checkout without one is not warned about.
  assert.doesNotMatch(first.stdout + first.stderr, /extraheader/);
  assert.match(await Deno.readTextFile(github.summary), /\*\*Approvals needed\*\*/);

  // The grant lines the run printed, as a file for the approvals input: the call goes through.
  const grants = first.stderr.split("\n").filter((line) => line.startsWith('  {"tool"'))
    .map((line) => line.trim());
  assert.equal(grants.length, 1, first.stderr);
  await Deno.writeTextFile(nodePath.join(project.sandbox.root, "grants.jsonl"), grants.join("\n"));
  await Deno.writeTextFile(github.output, "");
  const second = await runAction(
    project.sandbox.root,
    { ...inputs, INPUT_APPROVALS: "grants.jsonl" },
    github,
  );
  assert.equal(second.code, 0, second.stderr);
  const allowed = readOutputs(await Deno.readTextFile(github.output));
  assert.deepEqual(
    [allowed.end_reason, allowed.calls, allowed.denied, allowed.approval_required],
    ["completed", "1", "0", "0"],
  );
  assert.equal(allowed.exit_code, "0");
  assert.notEqual(allowed.run_id, refused.run_id);
  assert.equal(
    await Deno.readTextFile(nodePath.join(project.sandbox.workspace, "notes.md")),
    "from the action",
  );
  assert.match(second.stdout, /Wrote the notes\./);
});

Deno.test("the Deno cache key changes with deno.lock and the Deno version, and names a folder outside the checkout", async () => {
  const lock = await Deno.readFile(nodePath.join(repository, "deno.lock"));
  const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", lock))]
    .map((byte) => byte.toString(16).padStart(2, "0")).join("");
  const keyFor = async (version: string) => {
    const output = await new Deno.Command("bash", {
      args: [nodePath.join(repository, "action/deno_cache_key.sh")],
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        GITHUB_ACTION_PATH: repository,
        RUNNER_OS: "Linux",
        RUNNER_ARCH: "X64",
        RUNNER_TEMP: "/runner/temp",
        DENO_VERSION: version,
      },
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    return readOutputs(new TextDecoder().decode(output.stdout));
  };
  const first = await keyFor("2.9.6");
  assert.equal(first.key, `kagent-run-deno-Linux-X64-2.9.6-${digest}`);
  assert.equal(first.dir, "/runner/temp/kagent-run-deno");
  // Near miss: another Deno version is another cache.
  assert.notEqual((await keyFor("2.9.7")).key, first.key);
});

Deno.test("action/run.sh with a config in .github/ and no workspace input gives the agent the checkout, and the run lands in RUNNER_TEMP", async () => {
  await using project = await createProject({
    plan: [
      JSON.stringify({
        tool_calls: [{ id: "read", name: "fs.read_file", arguments: { path: "README.md" } }],
      }),
      JSON.stringify({ content: "Read {{read.summary}}" }),
    ],
  });
  // The checkout is the project's workspace; its config lives in .github/ and names no workspace
  // and no runs_dir, as README's workflow has it.
  const checkout = project.sandbox.workspace;
  await Deno.mkdir(nodePath.join(checkout, ".github"));
  const config = JSON.parse(await Deno.readTextFile(project.configPath));
  delete config.workspace;
  delete config.runs_dir;
  config.model.script = nodePath.join(project.configDir, "plan.jsonl");
  await Deno.writeTextFile(nodePath.join(checkout, ".github/agent.jsonc"), JSON.stringify(config));
  const runnerTemp = nodePath.join(project.sandbox.root, "runner_temp");
  await Deno.mkdir(runnerTemp);
  const github = {
    output: nodePath.join(project.sandbox.root, "github_output"),
    summary: nodePath.join(project.sandbox.root, "step_summary.md"),
  };
  const result = await runAction(checkout, {
    INPUT_CONFIG: ".github/agent.jsonc",
    GITHUB_WORKSPACE: checkout,
    RUNNER_TEMP: runnerTemp,
  }, github);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Read 3 lines of "README\.md"/);
  const outputs = readOutputs(await Deno.readTextFile(github.output));
  assert.equal(
    nodePath.dirname(outputs.run_dir as string),
    nodePath.join(runnerTemp, "kagent-run/runs"),
  );
  const runJson = JSON.parse(
    await Deno.readTextFile(nodePath.join(outputs.run_dir as string, "run.json")),
  );
  assert.equal(runJson.workspace, await Deno.realPath(checkout));
  for (const leftover of [".github/runs", "runs"]) {
    assert.equal(
      await Deno.stat(nodePath.join(checkout, leftover)).then(() => 1, () => 0),
      0,
      `no ${leftover} in the checkout`,
    );
  }
});

Deno.test("README's workflow for the Action parses, and uses only the Action's inputs and outputs", async () => {
  const readme = await Deno.readTextFile(nodePath.join(repository, "README.md"));
  const section = readme.slice(readme.indexOf("### The GitHub Action"));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, "README has a yaml block under The GitHub Action");
  const workflow = parse(block) as {
    jobs: Record<string, { steps: (ActionStep & { with?: Record<string, string> })[] }>;
  };
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
  const uses = steps.find((step) => /kagent-run@/.test(step.uses ?? ""));
  assert.ok(uses?.id, "the step that uses the Action has an id");
  // The job's token must not sit in .git/config where the agent's commands can read it.
  const checkout = steps.find((step) => /^actions\/checkout@/.test(step.uses ?? ""));
  assert.ok(checkout, "the workflow checks out the repository");
  assert.equal(checkout.with?.["persist-credentials"], false, "checkout persists no credentials");
  for (const input of Object.keys(uses?.with ?? {})) {
    assert.ok(action.inputs[input], `input "${input}" exists in action.yml`);
  }
  const referenced = [...block.matchAll(/steps\.[\w-]+\.outputs\.(\w+)/g)].map((match) => match[1]);
  assert.ok(referenced.length > 0);
  for (const output of referenced) {
    assert.ok(action.outputs[output as string], `output "${output}" exists in action.yml`);
  }
});

Deno.test("action/run.sh warns, escaped and without the value, when the checkout persisted an extraheader", async () => {
  await using project = await createProject({
    plan: [JSON.stringify({ content: "Nothing to do." })],
  });
  const token = `ghs_${"Pq4z".repeat(9)}`;
  const basic = btoa(`x-access-token:${token}`);
  // As actions/checkout writes it; the workspace's path holds a CR and a workflow command.
  const workspace = nodePath.join(project.sandbox.root, "work\r::stop-commands::x");
  await Deno.rename(project.sandbox.workspace, workspace);
  await Deno.mkdir(nodePath.join(workspace, ".git"));
  await Deno.writeTextFile(
    nodePath.join(workspace, ".git", "config"),
    `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${basic}\n`,
  );
  const github = {
    output: nodePath.join(project.sandbox.root, "github_output"),
    summary: nodePath.join(project.sandbox.root, "step_summary.md"),
  };
  const result = await runAction(project.sandbox.root, {
    INPUT_CONFIG: "config/agent.jsonc",
    INPUT_TASK: "Look around",
    INPUT_TASK_FILE: "",
    INPUT_WORKSPACE: nodePath.basename(workspace),
    INPUT_APPROVALS: "",
  }, github);
  assert.equal(result.code, 0, result.stderr);
  const printed = result.stdout + result.stderr;
  const warnings = printed.split("\n").filter((line) => line.startsWith("::warning"));
  assert.equal(warnings.length, 1, printed);
  assert.match(
    warnings[0] as string,
    /^::warning title=kagent-run::Set "persist-credentials: false" on actions\/checkout: "work%0D::stop-commands::x\/\.git\/config" holds an http extraheader/,
  );
  assert.ok(!printed.includes("\r"), "no carriage return is printed");
  assert.ok(
    !printed.includes(token) && !printed.includes(basic),
    "the credentials are not printed",
  );
});
