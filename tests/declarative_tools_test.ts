/**
 * Black-box tests of declarative command tools (`tools.dirs`, one JSON file a tool): input is
 * substituted into argv elements (exec mode) or single-quoted into an sh script (shell mode) and
 * never evaluated; stdout JSON becomes the result; a bad tool file, a tool folder the agent could
 * write, or a program outside the allowlist stops the run at start-up with a ConfigError.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { ConfigError } from "../src/config/mod.ts";
import type { TestRun } from "../src/testing/run_harness.ts";
import type { TempSandbox } from "../src/testing/temp_sandbox.ts";
import {
  assertStartRefused,
  dataOf,
  openToolRun,
  SHELL_ECHO,
  stdoutOf,
  toolFile,
  writeTools,
} from "./_declarative_tool_helpers.ts";
import {
  assertAudited,
  assertRefused,
  assertWorked,
  exists,
  PATH_GUARD,
  withEnvironment,
} from "./_attack_helpers.ts";

// ---------------------------------------------------------------------------------------------
// Substitution never evaluates input
// ---------------------------------------------------------------------------------------------

const HOSTILE_TEXTS = (marker: string) => [
  `$(touch ${marker}); rm -rf /`,
  `\`touch ${marker}\``,
  `'; touch ${marker}; '`,
  `"; touch ${marker}; "`,
  `a\ntouch ${marker}`,
  `x' "$(touch ${marker})" '`,
  `\\'; touch ${marker}; #`,
  "$0 $@ $1 ${PATH}",
];

Deno.test("an exec-mode declarative tool passes input as one literal argv element", async () => {
  await using run = await openToolRun({ files: { echo_text: toolFile() } });
  // Commands run under bubblewrap and may write the workspace: a marker there would exist if any
  // text had run.
  const marker = nodePath.join(run.sandbox.workspace, "marker-exec");
  for (const text of HOSTILE_TEXTS(marker)) {
    const result = await run.call("demo.echo_text", { text });
    assertWorked(result);
    assert.equal(stdoutOf(result), `${text}\n`);
    assert.deepEqual(dataOf(result).argv, ["echo", text]);
  }
  assert.equal(await exists(marker), false);
});

Deno.test("a shell-mode declarative tool single-quotes every substitution", async () => {
  await using run = await openToolRun({ files: { shell_echo: SHELL_ECHO } });
  const marker = nodePath.join(run.sandbox.workspace, "marker-shell");
  for (const text of HOSTILE_TEXTS(marker)) {
    const result = await run.call("demo.shell_echo", { text });
    assertWorked(result);
    // Once through the quoted script, once as the positional parameter "$1".
    assert.equal(stdoutOf(result), `${text}\n[${text}]\n`);
  }
  assert.equal(await exists(marker), false);
});

Deno.test("a shell-mode declarative tool runs its own script (near miss)", async () => {
  await using run = await openToolRun({
    files: {
      shell_echo: {
        ...SHELL_ECHO,
        command: "printf '%s|' {{text}} $(echo computed); echo",
        args: [],
      },
    },
  });
  const result = await run.call("demo.shell_echo", { text: "a b" });
  assertWorked(result);
  assert.equal(stdoutOf(result), "a b|computed|\n");
});

Deno.test("a declarative tool refuses input its schema does not allow", async () => {
  await using run = await openToolRun({ files: { echo_text: toolFile() } });
  for (
    const args of [
      { text: ["a", "b"] },
      { text: { toString: "x" } },
      { text: "x", extra: "y" },
      {},
      { text: 1 },
    ]
  ) {
    const result = await run.call("demo.echo_text", args);
    assertRefused(result, "invalid_arguments");
  }
});

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------

Deno.test("a declarative tool's stdout JSON becomes the tool result", async () => {
  await using run = await openToolRun({
    files: {
      report: toolFile({
        name: "demo.report",
        input_schema: { type: "object", properties: {} },
        args: ['{"ok":true,"summary":"s","output":"o","data":{"n":1}}'],
      }),
    },
  });
  const result = await run.call("demo.report", {});
  assertWorked(result);
  assert.equal(result.summary, "s");
  assert.equal(result.output, "o");
  assert.deepEqual(result.data, { n: 1 });
});

Deno.test("a declarative tool whose command exits non-zero fails with exit_nonzero", async () => {
  await using run = await openToolRun({
    files: {
      list: toolFile({
        name: "demo.list",
        input_schema: { type: "object", properties: { path: { type: "string" } } },
        command: "ls",
        args: ["{{path}}"],
      }),
    },
  });
  const result = await run.call("demo.list", { path: "nope" });
  assertRefused(result, "exit_nonzero");
  assert.match(result.error?.message ?? "", /No such file or directory/);
  await assertAudited(run, result, "tool.failed");
  const listed = await run.call("demo.list", {});
  assertWorked(listed);
});

// ---------------------------------------------------------------------------------------------
// Arguments and places the input must not reach
// ---------------------------------------------------------------------------------------------

async function prepareRepository(sandbox: TempSandbox): Promise<void> {
  for (
    const args of [
      ["init", "-q", "-b", "main"],
      ["config", "user.email", "agent@example.invalid"],
      ["config", "user.name", "Agent"],
      ["commit", "-q", "--allow-empty", "-m", "first"],
    ]
  ) {
    const done = await new Deno.Command("git", {
      args,
      cwd: sandbox.workspace,
      clearEnv: true,
      env: {
        PATH: "/usr/local/bin:/usr/bin:/bin",
        HOME: sandbox.workspace,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
      },
      stdout: "null",
      stderr: "null",
    }).output();
    assert.ok(done.success, `git ${args.join(" ")} failed`);
  }
}

const GIT_SHOW = toolFile({
  name: "demo.git_show",
  input_schema: { type: "object", properties: { rev: { type: "string" } }, required: ["rev"] },
  command: "git",
  args: ["show", "--stat", "{{rev}}"],
});

Deno.test("a declarative git tool refuses input that turns into a git option writing a file", async () => {
  await using run = await openToolRun({
    files: { git_show: GIT_SHOW },
    prepare: prepareRepository,
  });
  const written = nodePath.join(run.sandbox.outside, "marker-show");
  // A path outside the roots is denied; an option that makes git show not known-safe asks,
  // since no rule names git (the tool's rule names the tool only).
  const denied = await run.call("demo.git_show", { rev: `--output=${written}` });
  assertRefused(denied, "permission_denied");
  assert.equal(denied.error?.details.rule, "runtime:unchecked-arguments");
  for (const rev of ["--output", "--textconv", "--ext-diff"]) {
    const result = await run.call("demo.git_show", { rev });
    assertRefused(result, "approval_required");
    assert.equal(result.error?.details.rule, "runtime:program-not-named");
  }
  assert.equal(await exists(written), false);
});

Deno.test("a declarative git tool shows a revision (near miss)", async () => {
  await using run = await openToolRun({
    files: { git_show: GIT_SHOW },
    prepare: prepareRepository,
  });
  const result = await run.call("demo.git_show", { rev: "HEAD" });
  assertWorked(result);
  assert.match(stdoutOf(result), /first/);
});

Deno.test("a declarative tool whose working_dir leaves the workspace is refused", async () => {
  const outsideDir = toolFile({
    name: "demo.outside_pwd",
    input_schema: { type: "object", properties: {} },
    command: "ls",
    args: [],
  });
  let run: TestRun | undefined;
  try {
    run = await openToolRun({ files: { outside: { ...outsideDir, working_dir: "../outside" } } });
  } catch (error) {
    // Refusing the tool file at start-up is as good as refusing every call.
    assert.ok(error instanceof ConfigError, String(error));
    return;
  }
  try {
    const result = await run.call("demo.outside_pwd", {});
    assertRefused(result, "path_outside_sandbox");
    await assertAudited(run, result, "tool.denied", PATH_GUARD);
  } finally {
    await run.close();
  }
});

Deno.test("a declarative tool gets only the environment names it declares within tools.env", async () => {
  await withEnvironment({
    KAGENT_TEST_VISIBLE: "yes",
    KAGENT_TEST_OTHER: "other",
    ANTHROPIC_API_KEY: "canary-123-kagent",
  }, async () => {
    await using run = await openToolRun({
      toolSettings: { env: ["KAGENT_TEST_*"] },
      files: {
        env: toolFile({
          name: "demo.env",
          input_schema: { type: "object", properties: {} },
          command: "printenv",
          args: [],
          env_allowlist: ["KAGENT_TEST_VISIBLE", "ANTHROPIC_API_KEY"],
        }),
      },
    });
    const result = await run.call("demo.env", {});
    assertWorked(result);
    const text = stdoutOf(result);
    assert.match(text, /^KAGENT_TEST_VISIBLE=yes$/m);
    assert.doesNotMatch(text, /KAGENT_TEST_OTHER|ANTHROPIC_API_KEY|canary-123/);
  });
});

// ---------------------------------------------------------------------------------------------
// Start-up refusals
// ---------------------------------------------------------------------------------------------

Deno.test("a tool file with an unknown field stops the run at start-up, naming the file", async () => {
  const error = await assertStartRefused({
    files: { echo_text: toolFile({ shell: true }) },
  });
  assert.equal(error.code, "tool_invalid");
  assert.match(error.file, /\/tools\/echo_text\.json$/);
  assert.ok(error.message.includes(error.file), error.message);
});

Deno.test("a shell-mode tool file without a write or dangerous tag stops the run at start-up", async () => {
  const error = await assertStartRefused({
    files: { shell_echo: { ...SHELL_ECHO, tags: ["demo"] } },
  });
  assert.equal(error.code, "tool_invalid");
  assert.equal(error.key, "tags");
  assert.match(error.file, /\/tools\/shell_echo\.json$/);
});

Deno.test("a tool file whose template names an undeclared field stops the run at start-up", async () => {
  const error = await assertStartRefused({
    files: { echo_text: toolFile({ args: ["{{text}}", "{{secret}}"] }) },
  });
  assert.equal(error.code, "tool_invalid");
  assert.equal(error.key, "args[1]");
});

Deno.test("an exec-mode tool file whose program is a template stops the run at start-up", async () => {
  const error = await assertStartRefused({
    files: { echo_text: toolFile({ command: "{{text}}" }) },
  });
  assert.equal(error.code, "tool_invalid");
  assert.equal(error.key, "command");
});

Deno.test("a tool folder inside the workspace stops the run at start-up", async () => {
  const error = await assertStartRefused({
    files: {},
    toolSettings: { dirs: ["../workspace/tools"] },
    prepare: (sandbox) =>
      writeTools(sandbox, { echo_text: toolFile() }, nodePath.join(sandbox.workspace, "tools")),
  });
  assert.equal(error.key, "tools.dirs[0]");
  assert.match(error.message, /outside the workspace/);
});

Deno.test("a tool whose program is not in commands stops the run at start-up, naming the file", async () => {
  const error = await assertStartRefused({
    commands: ["ls"],
    files: { echo_text: toolFile() },
  });
  assert.equal(error.code, "commands_invalid");
  assert.match(error.file, /\/tools\/echo_text\.json$/);
  assert.match(error.message, /"echo"/);
  const shell = await assertStartRefused({
    commands: ["echo"],
    files: { shell_echo: SHELL_ECHO },
  });
  assert.match(shell.message, /"sh"/);
});

Deno.test("a tool file that reuses a built-in tool's name stops the run at start-up", async () => {
  for (const name of ["fs.read_file", "exec.run_command"]) {
    const error = await assertStartRefused({ files: { clash: toolFile({ name }) } });
    assert.match(error.file, /\/tools\/clash\.json$/);
  }
});

Deno.test("a valid tool folder beside the config starts and lists its tools (near miss)", async () => {
  await using run = await openToolRun({
    files: { echo_text: toolFile(), shell_echo: SHELL_ECHO },
  });
  assert.ok(run.session.policy.isAvailable("demo.echo_text"));
  assert.ok(run.session.policy.isAvailable("demo.shell_echo"));
  assert.equal(run.session.policy.toolPolicy("demo.echo_text")?.decision, "allow");
});
