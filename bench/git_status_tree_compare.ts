/**
 * `git status` under the command boundary (`exec.run_command ["git", "status", "--short"]` through
 * the whole pipeline, under bubblewrap, git safe mode on) in a 100-file workspace and in a
 * 100,000-file workspace, against a bare `git status --short` (`Deno.Command`, no sandbox) in the
 * small one. Both workspaces are git repositories with the same 100 tracked files; the large one
 * adds 99,900 files in an ignored `node_modules/` (100 packages of 10 folders of 99 or 100 files),
 * the shape of a JavaScript project after `npm install`. The variants take turns, one call each
 * per round (a shared, noisy machine moves every row alike); each row is the median of its rounds.
 * Not a `Deno.bench` file (`deno bench` skips it); run it alone:
 *
 * Optionally the same rows from another tree (e.g. the commit before a change), loaded in this
 * process beside this one:
 *
 * ```sh
 * git archive <commit> src | tar -x -C /tmp/before   # a copy of the other tree's src/
 * deno run --unstable-worker-options --allow-all bench/git_status_tree_compare.ts [rounds = 30] \
 *   [/tmp/before]
 * ```
 *
 * Prints one line per row: the median in ms, its ratio to the bare `git status`, and the ratio of
 * the large tree's row to the small one's.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { TestRun, TestRunOptions } from "../src/testing/run_harness.ts";
import type { TempSandbox } from "../src/testing/temp_sandbox.ts";

const rounds = Number(Deno.args[0] ?? 30);
const otherTree = Deno.args[1] ?? null;
const TRACKED_FILES = 100;
const LARGE_TREE_FILES = 100_000;

async function git(cwd: string, ...args: string[]): Promise<void> {
  const output = await new Deno.Command("git", { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  if (!output.success) {
    throw new Error(`Cannot run git ${args.join(" ")}: ${new TextDecoder().decode(output.stderr)}`);
  }
}

/** A repository of {@linkcode TRACKED_FILES} tracked files, plus `ignored` files in node_modules/. */
async function prepareRepository(workspace: string, ignored: number): Promise<void> {
  await git(workspace, "init", "-q", "-b", "main");
  await git(workspace, "config", "user.email", "bench@example.invalid");
  await git(workspace, "config", "user.name", "Bench");
  for (let index = 0; index < TRACKED_FILES - 1; index++) {
    const folder = nodePath.join(workspace, "src", `module_${index % 10}`);
    Deno.mkdirSync(folder, { recursive: true });
    Deno.writeTextFileSync(
      nodePath.join(folder, `file_${index}.ts`),
      `export const n = ${index};\n`,
    );
  }
  Deno.writeTextFileSync(nodePath.join(workspace, ".gitignore"), "node_modules/\n");
  let written = 0;
  for (let item = 0; written < ignored; item++) {
    const folder = nodePath.join(
      workspace,
      "node_modules",
      `package_${Math.floor(item / 10)}`,
      `lib_${item % 10}`,
    );
    Deno.mkdirSync(folder, { recursive: true });
    for (let file = 0; file < 100 && written < ignored; file++, written++) {
      Deno.writeTextFileSync(nodePath.join(folder, `f${file}.js`), "");
    }
  }
  await git(workspace, "add", ".");
  await git(workspace, "commit", "-q", "-m", "first");
}

async function openRepositoryRun(root: string, ignored: number): Promise<TestRun> {
  const harness = await import(new URL("src/testing/run_harness.ts", root).href);
  const openTestRun = harness.openTestRun as (options: TestRunOptions) => Promise<TestRun>;
  const run = await openTestRun({
    config: { commands: ["git"], sandbox: { command_isolation: "bwrap" } },
    permissions: {
      rules: [{ tools: ["exec.run_command"], commands: ["git"], decision: "allow" }],
    },
    prepare: (sandbox: TempSandbox) => prepareRepository(sandbox.workspace, ignored),
  });
  const started = performance.now();
  const check = await run.call("exec.run_command", { argv: ["git", "status", "--short"] });
  if (!check.ok) throw new Error(`Cannot benchmark git status: ${check.output}`);
  // The first call of a run pays the one scan of the roots (and the Worker's warm-up).
  console.log(
    `first call, ${TRACKED_FILES + ignored} files (${root}): ` +
      `${(performance.now() - started).toFixed(1)} ms`,
  );
  return run;
}

const trees: Record<string, string> = { "this tree": new URL("../", import.meta.url).href };
if (otherTree !== null) trees[otherTree] = `file://${otherTree.replace(/\/?$/, "/")}`;
const runs: Record<string, { small: TestRun; large: TestRun }> = {};
for (const [name, root] of Object.entries(trees)) {
  runs[name] = {
    small: await openRepositoryRun(root, 0),
    large: await openRepositoryRun(root, LARGE_TREE_FILES - TRACKED_FILES),
  };
}
const small = runs["this tree"]?.small as TestRun;

async function boundaryStatus(run: TestRun): Promise<void> {
  const result = await run.call("exec.run_command", { argv: ["git", "status", "--short"] });
  if (!result.ok) throw new Error(`git status failed: ${result.output}`);
}

const variants: Record<string, () => Promise<unknown>> = {
  "bare git status (100 files)": async () => {
    const output = await new Deno.Command("git", {
      args: ["status", "--short"],
      cwd: small.sandbox.workspace,
      stdout: "null",
    }).output();
    if (!output.success) throw new Error("Cannot run git status");
  },
  ...Object.fromEntries(
    Object.entries(runs).flatMap(([name, pair]) => [
      [`git status, bwrap, 100 files (${name})`, () => boundaryStatus(pair.small)],
      [`git status, bwrap, 100,000 files (${name})`, () => boundaryStatus(pair.large)],
    ]),
  ),
};

const times: Record<string, number[]> = {};
for (let round = 0; round < rounds + 3; round++) {
  for (const [name, run] of Object.entries(variants)) {
    const started = performance.now();
    await run();
    // The first 3 rounds warm up.
    if (round >= 3) (times[name] ??= []).push(performance.now() - started);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

const medians = Object.fromEntries(
  Object.entries(times).map(([name, values]) => [name, median(values)]),
);
const bare = medians["bare git status (100 files)"] ?? NaN;
for (const [name, value] of Object.entries(medians)) {
  console.log(`${name}: ${value.toFixed(1)} ms (${(value / bare).toFixed(2)}× bare)`);
}
for (const name of Object.keys(runs)) {
  const smallRow = medians[`git status, bwrap, 100 files (${name})`] ?? NaN;
  const largeRow = medians[`git status, bwrap, 100,000 files (${name})`] ?? NaN;
  console.log(`100,000 files ÷ 100 files (${name}): ${(largeRow / smallRow).toFixed(2)}×`);
}
for (const pair of Object.values(runs)) {
  await pair.small.close();
  await pair.large.close();
}
