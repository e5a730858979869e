// The demo's first impression (issue 24 §3): `deno task demo` finishes with exit 0 off a terminal
// (CI=true, no stdin) and at one, shows its boundary checks as refusals (no approval prompt, no
// grant to paste), and README's transcript is a real one (the same calls, the same outcomes). The
// approval loop has its own example, examples/approvals/: exit 3 with the grant printed, and the
// printed grant lets exactly that write through.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { cp } from "node:fs/promises";
import { environmentForTask, repository } from "./_cli_helpers.ts";

const decoder = new TextDecoder();
const SCRIPT = "/usr/bin/script";
const hasScript = await Deno.stat(SCRIPT).then((info) => info.isFile, () => false);

async function denoTask(cwd: string, args: string[], env: Record<string, string> = {}) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--config", nodePath.join(repository, "deno.json"), ...args],
    cwd,
    clearEnv: true,
    env: environmentForTask({ NO_COLOR: "1", ...env }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** The (outcome, tool) of each progress line: `  ok     fs.list_files (69 ms) …`. */
function callOutcomes(text: string): string[] {
  return [...text.matchAll(/^ {2}(ok|denied|failed|skipped) +([\w.]+) \(/gm)].map((match) =>
    `${match[1]} ${match[2]}`
  );
}

/** The demo's refusals: none of them asks a person. */
const REFUSALS = [
  /denied fs\.write_file \(\d+ ms\) \[permission_denied\] .*The demo agent reports; it never changes the code/,
  /denied exec\.run_command \(\d+ ms\) \[permission_denied\] Cannot run "curl": it is not an allowlisted program/,
  /denied fs\.write_file \(\d+ ms\) \[path_outside_sandbox\] Cannot use path "\.\.\/kagent-run-demo-escape\.txt"/,
];

function assertDemoRun(result: { code: number; stdout: string; stderr: string }) {
  const all = result.stdout + result.stderr;
  assert.equal(result.code, 0, all);
  for (const refusal of REFUSALS) assert.match(all, refusal);
  assert.doesNotMatch(all, /approval|--approve|Approve\?/i);
  assert.match(all, /run completed in [\d.]+ s: 9 tool calls, 3 denied/);
  assert.match(result.stdout, /Survey written to .*deliverables\/report\.md/);
}

Deno.test("deno task demo exits 0 with CI=true and no stdin, and shows its boundary checks as refusals", async () => {
  const runs = await Deno.makeTempDir({ prefix: "kagent-demo-runs-" });
  try {
    const result = await denoTask(runs, ["demo", "--runs-dir", "."], { CI: "true" });
    assertDemoRun(result);
    // Nothing the refused calls named exists.
    for (const refused of ["src/kagent-run-demo.ts", "../kagent-run-demo-escape.txt"]) {
      await assert.rejects(Deno.stat(nodePath.join(repository, refused)), Deno.errors.NotFound);
    }
    // README's transcript is a real one: the same calls with the same outcomes, and exit 0.
    const readme = await Deno.readTextFile(nodePath.join(repository, "README.md"));
    const section = readme.slice(readme.indexOf("## What the demo does"));
    const transcript = /```\n(\$ deno task demo\n[\s\S]*?)```/.exec(section)?.[1] ?? "";
    assert.notEqual(transcript, "", "README shows a demo transcript");
    // Parallel reads finish in any order, and `git log` fails where the checkout's .git is not
    // mounted (a git worktree): compare the calls as a sorted list and the refusals in order.
    const tools = (lines: string[]) => lines.map((line) => line.split(" ")[1]).sort();
    const refusals = (lines: string[]) => lines.filter((line) => line.startsWith("denied "));
    const real = callOutcomes(result.stderr);
    assert.deepEqual(tools(callOutcomes(transcript)), tools(real));
    assert.deepEqual(refusals(callOutcomes(transcript)), refusals(real));
    assert.match(transcript, /\$ echo \$\?\n0\n$/);
  } finally {
    await Deno.remove(runs, { recursive: true });
  }
});

Deno.test({
  name: "deno task demo at a terminal finishes with exit 0 and asks nothing",
  ignore: !hasScript,
  fn: async () => {
    const runs = await Deno.makeTempDir({ prefix: "kagent-demo-runs-" });
    try {
      // script(1) gives the demo a pseudo-terminal for stdin, stdout and stderr; stdin is empty, so a
      // prompt would read end-of-input and the run would end in a refusal, not exit 0 silently.
      const quoted = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
      const inner = [
        Deno.execPath(),
        "task",
        "--config",
        nodePath.join(repository, "deno.json"),
        "demo",
        "--runs-dir",
        ".",
      ].map(quoted).join(" ");
      const output = await new Deno.Command(SCRIPT, {
        args: ["-qec", `${inner}; echo "exit=$?"`, "/dev/null"],
        cwd: runs,
        clearEnv: true,
        env: environmentForTask({ NO_COLOR: "1", CI: "" }),
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = decoder.decode(output.stdout).replaceAll("\r\n", "\n");
      assert.match(text, /exit=0\n?$/, text);
      assertDemoRun({ code: 0, stdout: text, stderr: "" });
    } finally {
      await Deno.remove(runs, { recursive: true });
    }
  },
});

Deno.test("examples/approvals: exit 3 with the grant printed; resume with it, or a re-run with it, lets exactly that write through", async () => {
  const folder = await Deno.makeTempDir({ prefix: "kagent-approvals-" });
  try {
    const workspace = nodePath.join(folder, "workspace");
    await cp(nodePath.join(repository, "examples/approvals/workspace"), workspace, {
      recursive: true,
    });
    // What a person's own run of the example left in the checkout (ignored by git) is not ours.
    await Deno.remove(nodePath.join(workspace, "CHANGELOG.md")).catch(() => {});
    const base = [
      "kagent-run",
      "--config",
      nodePath.join(repository, "examples/approvals/agent.jsonc"),
      "--workspace",
      "workspace",
      "--runs-dir",
      "runs",
    ];
    const refused = await denoTask(folder, base, { CI: "true" });
    assert.equal(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, /denied fs\.write_file .*\[approval_required\]/);
    const changelog = nodePath.join(workspace, "CHANGELOG.md");
    await assert.rejects(Deno.stat(changelog), Deno.errors.NotFound);
    // The printed whole command starts the way this one did, and can be pasted back.
    assert.match(refused.stderr, /^ {2}deno task kagent-run run --config /m);
    const grant = /^ {2}(\{"tool":"fs\.write_file".*\})$/m.exec(refused.stderr)?.[1];
    assert.ok(grant, refused.stderr);

    // The first way: continue the stopped run with the grant (the waiting write runs first, the
    // scripted model goes on, one run folder that verifies); nothing is asked of the model twice.
    const runs = nodePath.join(folder, "runs");
    const [stopped] = await Array.fromAsync(Deno.readDir(runs));
    assert.ok(stopped !== undefined);
    const resumed = await denoTask(folder, [
      "kagent-run",
      "resume",
      nodePath.join("runs", stopped.name),
      "--approve",
      grant,
    ], { CI: "true" });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /^Resumed: Wrote \d+ bytes to "CHANGELOG\.md"/m);
    assert.match(await Deno.readTextFile(changelog), /^# Changelog/);
    const verified = await denoTask(folder, [
      "kagent-run",
      "verify",
      nodePath.join("runs", stopped.name),
    ]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    await Deno.remove(changelog);

    // The second way: run the task again with the grant.
    const allowed = await denoTask(folder, [...base, "--approve", grant], { CI: "true" });
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(await Deno.readTextFile(changelog), /^# Changelog/);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
