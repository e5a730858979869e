/**
 * A policy that trusts the kernel (issue 23 §3, §4), black-box through the whole pipeline:
 *
 * - read-only means read-only in the kernel: a `readonly` declarative tool and a known-safe
 *   command run with every root mounted read-only, so a script behind them that writes fails and
 *   leaves no file (near miss: a `write` tool, and a program a rule names, write the workspace);
 * - an argv that is not known-safe (`zip -T -TT cmd`, `zip --unzip-command=cmd`) never runs
 *   unasked through a rule that does not name its program;
 * - under bubblewrap an allow rule that names an interpreter holds (`node --version`), narrowed by
 *   `arguments`; under isolation none it still asks.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import { assertDenied, assertWorked, exists, programOnPath } from "./_attack_helpers.ts";
import { dataOf, stdoutOf, toolFile, writeTools } from "./_declarative_tool_helpers.ts";

const HAS_ZIP = (await programOnPath("zip")) !== null;
const HAS_NODE = (await programOnPath("node")) !== null;
const NOT_NAMED = { rule: "runtime:program-not-named", layer: "runtime" } as const;
const UNRESTRICTED = { rule: "runtime:unrestricted-execution", layer: "runtime" } as const;

/**
 * A run whose allowlist holds `<temp>/bin/<name>`, a script that writes `written-<name>.txt` into
 * its working folder, with `permissions`. Named `cat` it is known-safe by name, so it runs
 * read-only.
 */
async function openScriptRun(
  name: string,
  permissions: (program: string) => unknown,
  tools: (program: string) => Record<string, unknown> = () => ({}),
): Promise<TestRun & { program: string }> {
  const folder = await Deno.makeTempDir({ prefix: "kagent-program-" });
  const program = nodePath.join(folder, "bin", name);
  await Deno.mkdir(nodePath.dirname(program), { recursive: true });
  await Deno.writeTextFile(program, `#!/bin/sh\necho made > "written-${name}.txt"\n`);
  await Deno.chmod(program, 0o755);
  const files = tools(program);
  const run = await openTestRun({
    config: {
      commands: [program],
      sandbox: { command_isolation: "bwrap" },
      ...(Object.keys(files).length === 0 ? {} : { tools: { dirs: ["../tools"] } }),
    },
    permissions: permissions(program),
    prepare: (sandbox) => writeTools(sandbox, files),
  });
  return Object.assign(run, {
    program,
    async [Symbol.asyncDispose]() {
      await run.close();
      await Deno.remove(folder, { recursive: true });
    },
  });
}

Deno.test("a known-safe command runs with every root read-only: a cat that writes fails and writes nothing", async () => {
  // The rule enables the tool for git only: cat runs by the default for known-safe commands.
  await using run = await openScriptRun("cat", () => ({
    rules: [{ tools: ["exec.run_command"], commands: ["git"], decision: "allow" }],
  }));
  const result = await run.call("exec.run_command", { argv: [run.program] });
  assert.equal(result.ok, false, `the write went through: ${result.summary}`);
  assert.equal(result.error?.type, "exit_nonzero");
  assert.match(result.error?.message ?? "", /read-only/);
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "written-cat.txt")), false);
});

Deno.test("the same script under another name, named by an allow rule, writes the workspace (near miss)", async () => {
  await using run = await openScriptRun("writer", (program) => ({
    rules: [{ tools: ["exec.run_command"], commands: [program], decision: "allow" }],
  }));
  const result = await run.call("exec.run_command", { argv: [run.program] });
  assertWorked(result);
  assert.equal(dataOf(result).isolation, "bwrap");
  assert.equal(
    await Deno.readTextFile(nodePath.join(run.sandbox.workspace, "written-writer.txt")),
    "made\n",
  );
});

/** A declarative tool that runs `program` (a script that writes) with fixed arguments. */
function scriptTool(program: string, permission: "readonly" | "write"): Record<string, unknown> {
  return toolFile({
    name: `demo.${permission}_script`,
    description: "Runs a script that writes a file where it runs",
    input_schema: { type: "object", properties: {} },
    permission,
    tags: permission === "write" ? ["demo", "write"] : ["demo"],
    command: program,
    args: [],
  });
}

Deno.test("a readonly declarative tool whose script writes into the workspace fails and writes nothing", async () => {
  await using run = await openScriptRun(
    "writer",
    () => ({ rules: [] }),
    (program) => ({ reader: scriptTool(program, "readonly") }),
  );
  const result = await run.call("demo.readonly_script", {});
  assert.equal(result.ok, false, `the readonly tool wrote: ${result.summary}`);
  assert.equal(result.error?.type, "exit_nonzero");
  assert.match(result.error?.message ?? "", /read-only/);
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "written-writer.txt")), false);
});

Deno.test("a write declarative tool running the same script writes into the workspace (near miss)", async () => {
  await using run = await openScriptRun(
    "writer",
    () => ({ rules: [{ tools: ["demo.write_script"], decision: "allow" }] }),
    (program) => ({ writer: scriptTool(program, "write") }),
  );
  const result = await run.call("demo.write_script", {});
  assertWorked(result);
  assert.equal(
    await Deno.readTextFile(nodePath.join(run.sandbox.workspace, "written-writer.txt")),
    "made\n",
  );
});

Deno.test({
  name: "zip -T -TT and --unzip-command never run unasked through a rule that does not name zip",
  ignore: !HAS_ZIP, // zip is not installed: nothing to run
  fn: async () => {
    await using run = await openTestRun({
      config: { commands: ["zip", "echo"], sandbox: { command_isolation: "bwrap" } },
      // "z*" narrows the tool (it is not only "*"), but names no program.
      permissions: {
        rules: [{ tools: ["exec.run_command"], commands: ["z*"], decision: "allow" }],
      },
      prepare: (sandbox) => Deno.writeTextFile(nodePath.join(sandbox.workspace, "a.txt"), "a\n"),
    });
    const marker = nodePath.join(run.sandbox.workspace, "marker-zip");
    for (
      const argv of [
        ["zip", "-T", "-TT", `touch ${marker}`, "out.zip", "a.txt"],
        ["zip", "-T", `--unzip-command=touch ${marker}`, "out.zip", "a.txt"],
        ["zip", "out.zip", "a.txt"],
      ]
    ) {
      const result = await run.call("exec.run_command", { argv });
      assertDenied(result, "approval_required", NOT_NAMED);
      assert.match(result.error?.message ?? "", /name "zip" in the "commands"/);
    }
    assert.equal(await exists(marker), false);
    assert.equal(await exists(nodePath.join(run.sandbox.workspace, "out.zip")), false);
  },
});

Deno.test({
  name: "zip runs unasked when an allow rule names it, and what it runs stays inside (near miss)",
  ignore: !HAS_ZIP, // zip is not installed: nothing to run
  fn: async () => {
    await using run = await openTestRun({
      config: { commands: ["zip"], sandbox: { command_isolation: "bwrap" } },
      permissions: {
        rules: [{ tools: ["exec.run_command"], commands: ["zip"], decision: "allow" }],
      },
      prepare: (sandbox) => Deno.writeTextFile(nodePath.join(sandbox.workspace, "a.txt"), "a\n"),
    });
    const result = await run.call("exec.run_command", { argv: ["zip", "-q", "out.zip", "a.txt"] });
    assertWorked(result);
    assert.equal(await exists(nodePath.join(run.sandbox.workspace, "out.zip")), true);
    const outside = nodePath.join(run.sandbox.outside, "marker-zip");
    await run.call("exec.run_command", {
      argv: ["zip", "-T", "-TT", `touch ${outside}`, "out2.zip", "a.txt"],
    });
    assert.equal(await exists(outside), false, "zip's test command wrote outside the roots");
  },
});

function nodeRun(isolation: "bwrap" | "none"): Promise<TestRun> {
  return openTestRun({
    config: { commands: ["node"], sandbox: { command_isolation: isolation } },
    permissions: {
      rules: [{
        tools: ["exec.run_command"],
        commands: ["node"],
        arguments: ["--version", "test.js"],
        decision: "allow",
      }],
    },
  });
}

Deno.test({
  name: "under bwrap an allow rule naming node runs node --version unasked; other arguments ask",
  ignore: !HAS_NODE, // node is not installed
  fn: async () => {
    await using run = await nodeRun("bwrap");
    const version = await run.call("exec.run_command", { argv: ["node", "--version"] });
    assertWorked(version);
    assert.match(stdoutOf(version), /^v\d+\./);
    const evaluated = await run.call("exec.run_command", { argv: ["node", "-e", "1"] });
    assertDenied(evaluated, "approval_required", UNRESTRICTED);
  },
});

Deno.test({
  name: "under isolation none the same rule naming node still asks (near miss: no kernel)",
  ignore: !HAS_NODE, // node is not installed
  fn: async () => {
    await using run = await nodeRun("none");
    const version = await run.call("exec.run_command", { argv: ["node", "--version"] });
    assert.equal(version.ok, false);
    assert.equal(version.error?.type, "approval_required");
  },
});
