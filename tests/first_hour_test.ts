// The first hour of a CI user (issue 24, "Done when"): README's workflow steps (action/run.sh with
// the variables the runner sets) on a small npm repository with node_modules/ ignored by
// .gitignore and a tape-like test script, run from that checkout (not kagent-run's), with README's
// `.github/agent.jsonc` pasted as it is (only the model swapped for a scripted one). The scripted
// agent lists the repository, greps for FIXME (node_modules/ left out), reads and fixes the bug,
// runs `npm test`: exit 0, the tests pass in the checkout, and the run folder is not in it.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { repository } from "./_cli_helpers.ts";

const decoder = new TextDecoder();
const NPM = await new Deno.Command("sh", { args: ["-c", "command -v npm && command -v node"] })
  .output().then((output) => output.code === 0, () => false);

/** README's `.github/agent.jsonc`: the jsonc block under "The GitHub Action". */
async function readmeConfig(): Promise<string> {
  const readme = await Deno.readTextFile(nodePath.join(repository, "README.md"));
  const section = readme.slice(readme.indexOf("### The GitHub Action"));
  const block = /```jsonc\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, "README shows the workflow's config");
  assert.match(block, /^\/\/ \.github\/agent\.jsonc/);
  return block;
}

/** README's workflow: the `with:` of the step that uses the Action. */
async function readmeInputs(): Promise<Record<string, string>> {
  const readme = await Deno.readTextFile(nodePath.join(repository, "README.md"));
  const section = readme.slice(readme.indexOf("### The GitHub Action"));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const { parse } = await import("yaml");
  const workflow = parse(block) as {
    jobs: Record<string, { steps: { uses?: string; with?: Record<string, string> }[] }>;
  };
  const step = Object.values(workflow.jobs).flatMap((job) => job.steps)
    .find((candidate) => /kagent-run@/.test(candidate.uses ?? ""));
  return step?.with ?? {};
}

async function fixtureRepository(root: string, config: string): Promise<string> {
  const checkout = nodePath.join(root, "checkout");
  const files: Record<string, string> = {
    "package.json": JSON.stringify(
      {
        name: "tiny-sum",
        version: "1.0.0",
        main: "lib/sum.js",
        scripts: { test: "node test/run.js" },
      },
      null,
      2,
    ),
    ".gitignore": "node_modules/\n",
    "lib/sum.js": "// FIXME: sum adds one too many\nmodule.exports = function sum(a, b) {\n" +
      "  return a + b + 1;\n};\n",
    "test/run.js": [
      "// A tape-like runner: TAP output, exit 1 on a failed assertion.",
      'const sum = require("../lib/sum.js");',
      "let count = 0;",
      "let failed = 0;",
      "function equal(actual, expected, name) {",
      "  count += 1;",
      "  if (actual !== expected) failed += 1;",
      '  console.log(`${actual === expected ? "ok" : "not ok"} ${count} ${name}`);',
      "}",
      'console.log("TAP version 13");',
      'equal(sum(1, 2), 3, "sum adds");',
      'equal(sum(-1, 1), 0, "sum of opposites");',
      "console.log(`1..${count}`);",
      "process.exit(failed === 0 ? 0 : 1);",
      "",
    ].join("\n"),
    // A dependency tree the search must leave out (17,369 files in the repository).
    ...Object.fromEntries(
      Array.from({ length: 40 }, (_, index) => [
        `node_modules/dep${index}/index.js`,
        `// FIXME in dependency ${index}: never the agent's business\n`,
      ]),
    ),
    ".github/agent.jsonc": config,
    ".github/agent-task.md": "Fix the failing test in lib/sum.js and run the tests.\n",
  };
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(nodePath.dirname(nodePath.join(checkout, path)), { recursive: true });
    await Deno.writeTextFile(nodePath.join(checkout, path), text);
  }
  return checkout;
}

/** The scripted agent: list, grep, read, edit, run the tests, answer. */
const PLAN = [
  {
    tool_calls: [
      { id: "tree", name: "fs.list_files", arguments: { path: ".", recursive: true } },
      { id: "fixme", name: "fs.grep_files", arguments: { pattern: "FIXME" } },
      { id: "source", name: "fs.read_file", arguments: { path: "lib/sum.js" } },
    ],
  },
  {
    tool_calls: [{
      id: "fix",
      name: "fs.edit_file",
      arguments: {
        path: "lib/sum.js",
        edits: [
          { old: "// FIXME: sum adds one too many\n", new: "" },
          { old: "return a + b + 1;", new: "return a + b;" },
        ],
      },
    }],
  },
  { tool_calls: [{ id: "tests", name: "exec.run_command", arguments: { argv: ["npm", "test"] } }] },
  { content: "Fixed lib/sum.js. {{tests.summary}}" },
].map((turn) => JSON.stringify(turn)).join("\n") + "\n";

async function runAction(checkout: string, root: string, inputs: Record<string, string>) {
  const github = {
    GITHUB_OUTPUT: nodePath.join(root, "github_output"),
    GITHUB_STEP_SUMMARY: nodePath.join(root, "step_summary.md"),
  };
  await Deno.writeTextFile(github.GITHUB_OUTPUT, "");
  const output = await new Deno.Command("bash", {
    args: [nodePath.join(repository, "action/run.sh")],
    cwd: checkout,
    clearEnv: true,
    env: {
      PATH: `${nodePath.dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
      HOME: Deno.env.get("HOME") ?? "/root",
      ...(Deno.env.get("DENO_DIR") === undefined ? {} : { DENO_DIR: Deno.env.get("DENO_DIR")! }),
      NO_COLOR: "1",
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_ACTION_PATH: repository,
      GITHUB_WORKSPACE: checkout,
      RUNNER_TEMP: nodePath.join(root, "runner_temp"),
      ...github,
      ...inputs,
    },
  }).output();
  // `name=value` and `name<<DELIMITER … DELIMITER` lines, as the runner reads them.
  const outputs: Record<string, string> = {};
  const lines = (await Deno.readTextFile(github.GITHUB_OUTPUT)).split("\n");
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
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
    outputs,
  };
}

Deno.test({
  name:
    "README's CI workflow on an npm repository: list, grep without node_modules, fix, npm test, exit 0",
  ignore: !NPM,
  async fn() {
    const root = await Deno.makeTempDir({ prefix: "kagent-first-hour-" });
    try {
      await Deno.mkdir(nodePath.join(root, "runner_temp"));
      // README's config as it is, but for the model: a scripted one (no provider in a test).
      const pasted = await readmeConfig();
      const parsed = parseJsonc(pasted) as Record<string, unknown>;
      assert.equal(parsed.workspace, undefined, "README's config names no workspace");
      const planPath = nodePath.join(root, "plan.jsonl");
      await Deno.writeTextFile(planPath, PLAN);
      const config = pasted.replace(
        /^ {2}"model": \{[^\n]*\},\n/m,
        `  "model": { "provider": "script", "script": ${JSON.stringify(planPath)} },\n`,
      );
      assert.notEqual(config, pasted, "the model line was swapped");
      const checkout = await fixtureRepository(root, config);
      // README's inputs, as the workflow passes them (relative to the checkout).
      const workflow = await readmeInputs();
      assert.equal(workflow.config, ".github/agent.jsonc");
      const inputs = {
        INPUT_CONFIG: workflow.config as string,
        INPUT_TASK_FILE: workflow["task-file"] as string,
      };
      let run = await runAction(checkout, root, inputs);

      // Until a rule can allow `npm` outright (helper "policy"), `npm test` asks: the first run
      // exits 3 with exactly that grant, and README's grants file (the `approvals` input) lets it
      // through on the next run. With that change the first run already exits 0.
      if (run.code === 3) {
        const grants = run.stderr.split("\n").filter((line) => line.startsWith('  {"tool"'))
          .map((line) => line.trim());
        assert.equal(grants.length, 1, run.stderr);
        assert.match(grants[0] as string, /"command:npm \[\\"test\\"\] in <workspace>"/);
        const grantsFile = workflow.approvals as string;
        assert.equal(grantsFile, ".github/agent-grants.jsonl");
        await Deno.writeTextFile(nodePath.join(checkout, grantsFile), `${grants[0]}\n`);
        await Deno.writeTextFile(
          nodePath.join(checkout, "lib/sum.js"),
          "// FIXME: sum adds one too many\nmodule.exports = function sum(a, b) {\n" +
            "  return a + b + 1;\n};\n",
        );
        run = await runAction(checkout, root, { ...inputs, INPUT_APPROVALS: grantsFile });
      }
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.outputs.end_reason, "completed");
      assert.equal(run.outputs.denied, "0");
      assert.match(run.stderr, /ok {5}fs\.list_files .*Listed \d+ entries of "\." \(1 ignored/);
      // The search saw lib/sum.js and nothing of node_modules/.
      assert.match(run.stderr, /ok {5}fs\.grep_files .*Found 1 match in 1 file/);
      assert.match(run.stderr, /ok {5}fs\.edit_file/);
      assert.match(run.stderr, /ok {5}exec\.run_command .*Ran "npm test" .*exit 0/);
      assert.match(run.stdout, /Fixed lib\/sum\.js/);
      // The effect: the repository's tests pass in the checkout itself.
      const tests = await new Deno.Command("npm", { args: ["test"], cwd: checkout }).output();
      assert.equal(tests.code, 0, decoder.decode(tests.stdout));
      // The run folder is in RUNNER_TEMP, not in the checkout (nor in .github/runs).
      assert.ok(run.outputs.run_dir?.startsWith(nodePath.join(root, "runner_temp")));
      for (const leftover of ["runs", ".github/runs"]) {
        await assert.rejects(Deno.stat(nodePath.join(checkout, leftover)), Deno.errors.NotFound);
      }
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
