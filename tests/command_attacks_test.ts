/**
 * Black-box attack pairs for `exec.run_command` (attacks/CASES.md "Commands (argv)"): availability,
 * the program allowlist, literal metacharacters, the child environment, the working folder,
 * options that execute or write, git safe mode, floods, failures, and what `kagent-run policy`
 * shows of it. Every call goes through the whole pipeline with `run.call`: the attack must fail
 * with the right `error.type` and rule and leave no effect (no marker file, no secret), the near
 * miss must work.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { ConfigError } from "../src/config/mod.ts";
import { openTestRun, type TestRun, type TestRunOptions } from "../src/testing/run_harness.ts";
import type { TempSandbox } from "../src/testing/temp_sandbox.ts";
import { unconfinedCommandApprover } from "../src/testing/unconfined_approver.ts";
import type { ToolResult } from "../src/result/tool_result.ts";
import {
  ALLOW_ALL,
  assertAudited,
  assertDenied,
  assertLogsClean,
  assertRefused,
  assertWorked,
  exists,
  git,
  PATH_GUARD,
  programOnPath,
  sha256File,
  withEnvironment,
} from "./_attack_helpers.ts";
import { createProject, runCli } from "./_cli_helpers.ts";

const ALLOWLIST = { rule: "sandbox:command-allowlist", layer: "sandbox" } as const;
const UNRESTRICTED = { rule: "runtime:unrestricted-execution", layer: "runtime" } as const;
const UNCHECKED = "runtime:unchecked-arguments";

const HAS_RG = (await programOnPath("rg")) !== null;
const PROGRAMS = ["echo", "printenv", "pwd", "git", "yes", "seq", "ls", ...(HAS_RG ? ["rg"] : [])];

/**
 * exec.run_command is dangerous: only a rule naming it exactly turns it on, and only a rule that
 * also narrows it (here to the programs these tests allowlist) lets calls run without asking.
 */
const ALLOW_RUN_COMMAND = {
  rules: [{
    id: "allow-run-command",
    tools: ["exec.run_command"],
    commands: [...PROGRAMS, "rg", "cp", "sh", "env"],
    decision: "allow",
  }],
};

/** The API key canary: never in a child's environment, an output or a log. */
const CANARY_ENV = "canary-123-kagent";

/** Isolation "none", with the person at the terminal approving each unconfined command. */
const UNCONFINED = {
  config: { sandbox: { command_isolation: "none" } },
  approver: unconfinedCommandApprover,
} as const;

/**
 * A run with `commands` allowlisted, isolation bwrap (the argument policy is the same in every
 * mode; under "none" every command would also ask), and a rule enabling exec.run_command.
 */
function openCommandRun(
  options: Omit<TestRunOptions, "tools"> & {
    commands?: string[];
    /** The config's `tools` key. */
    toolSettings?: Record<string, unknown>;
  } = {},
): Promise<TestRun> {
  const { commands, toolSettings, config, ...rest } = options;
  return openTestRun({
    permissions: ALLOW_RUN_COMMAND,
    ...rest,
    config: {
      commands: commands ?? PROGRAMS,
      sandbox: { command_isolation: "bwrap" },
      ...(toolSettings === undefined ? {} : { tools: toolSettings }),
      ...config,
    },
  });
}

function runCommand(
  run: TestRun,
  argv: string[],
  extra: Record<string, unknown> = {},
): Promise<ToolResult> {
  return run.call("exec.run_command", { argv, ...extra });
}

function dataOf(result: ToolResult): Record<string, unknown> {
  assert.ok(typeof result.data === "object" && result.data !== null, "the result has no data");
  return result.data as Record<string, unknown>;
}

function stdoutOf(result: ToolResult): string {
  const stdout = dataOf(result).stdout as { text?: unknown } | undefined;
  assert.equal(typeof stdout?.text, "string", "the result has no stdout text");
  return stdout?.text as string;
}

/** A marker path outside every root: an attack that ran would create it. */
function marker(run: TestRun, name: string): string {
  return nodePath.join(run.sandbox.outside, `marker-${name}`);
}

async function assertNoMarkers(run: TestRun): Promise<void> {
  const left: string[] = [];
  for await (const entry of Deno.readDir(run.sandbox.outside)) {
    if (entry.name.startsWith("marker-")) left.push(entry.name);
  }
  for await (const entry of Deno.readDir(run.sandbox.workspace)) {
    if (entry.name.startsWith("marker-") || entry.name === "M") left.push(entry.name);
  }
  assert.deepEqual(left, [], "an attack left a marker file");
}

/** `git init` in the workspace with one commit and a committer identity in .git/config. */
async function prepareRepository(sandbox: TempSandbox): Promise<void> {
  const workspace = sandbox.workspace;
  await git(workspace, "init", "-q", "-b", "main");
  await git(workspace, "config", "user.email", "agent@example.invalid");
  await git(workspace, "config", "user.name", "Agent");
  await Deno.writeTextFile(nodePath.join(workspace, "README.md"), "# Demo\n");
  await git(workspace, "add", "README.md");
  await git(workspace, "commit", "-q", "-m", "first");
  await Deno.writeTextFile(nodePath.join(workspace, "README.md"), "# Demo\n\nChanged.\n");
}

async function writeExecutable(path: string, text: string): Promise<void> {
  await Deno.mkdir(nodePath.dirname(path), { recursive: true });
  await Deno.writeTextFile(path, text);
  await Deno.chmod(path, 0o755);
}

// ---------------------------------------------------------------------------------------------
// Availability
// ---------------------------------------------------------------------------------------------

Deno.test("exec.run_command is not available when the config names no commands", async () => {
  await using run = await openTestRun({ permissions: ALLOW_RUN_COMMAND });
  const result = await runCommand(run, ["echo", "hi"]);
  assertRefused(result, "tool_not_available");
  await assertAudited(run, result, "tool.denied", null);
});

Deno.test("exec.run_command is not available when no rule names it exactly, even with commands", async () => {
  await using run = await openCommandRun({ permissions: ALLOW_ALL });
  const result = await runCommand(run, ["echo", "hi"]);
  assertRefused(result, "tool_not_available");
  assert.match(result.error?.message ?? "", /names it exactly/);
  assert.equal(run.session.policy.toolPolicy("exec.run_command")?.rule, "runtime:destructive-off");
  await assertAudited(run, result, "tool.denied", null);
});

Deno.test("exec.run_command runs echo when commands and a rule naming it are both there (near miss)", async () => {
  await using run = await openCommandRun(UNCONFINED);
  const result = await runCommand(run, ["echo", "hi"]);
  assertWorked(result);
  assert.equal(stdoutOf(result), "hi\n");
  assert.equal(dataOf(result).exit_code, 0);
  assert.equal(dataOf(result).isolation, "none");
});

// ---------------------------------------------------------------------------------------------
// The program allowlist
// ---------------------------------------------------------------------------------------------

Deno.test("exec.run_command refuses shells, interpreters and exec wrappers the allowlist does not name", async () => {
  await using run = await openCommandRun();
  const m = (name: string) => marker(run, name);
  const attacks: string[][] = [
    ["bash", "-c", `touch ${m("bash")}`],
    ["sh", "-c", `touch ${m("sh")}`],
    ["env", "touch", m("env")],
    ["env", "rm", "x"],
    ["xargs", "rm"],
    ["python3", "-c", `open(${JSON.stringify(m("python"))}, "w")`],
    ["node", "-e", `require("fs").writeFileSync(${JSON.stringify(m("node"))}, "")`],
    ["deno", "eval", `Deno.writeTextFileSync(${JSON.stringify(m("deno"))}, "")`],
  ];
  let last: ToolResult | undefined;
  for (const argv of attacks) {
    last = await runCommand(run, argv);
    assertDenied(last, "permission_denied", ALLOWLIST);
    assert.equal(last.error?.details.program, argv[0]);
    assert.match(last.error?.message ?? "", /not an allowlisted program/);
  }
  assert.ok(last !== undefined);
  await assertAudited(run, last, "tool.denied", ALLOWLIST);
  await assertNoMarkers(run);
});

Deno.test("exec.run_command refuses argv[0] spelled as another path or with spaces", async () => {
  await using run = await openCommandRun({
    prepare: (sandbox) =>
      writeExecutable(
        nodePath.join(sandbox.workspace, "echo"),
        `#!/bin/sh\ntouch ${nodePath.join(sandbox.outside, "marker-dot-echo")}\n`,
      ),
  });
  for (const argv of [["/bin/echo", "x"], ["./echo"], ["echo "], [" echo"], ["ECHO"]]) {
    const result = await runCommand(run, argv);
    assertDenied(result, "permission_denied", ALLOWLIST);
  }
  await assertNoMarkers(run);
});

Deno.test("exec.run_command runs a program by its resolved path from the allowlist (near miss)", async () => {
  await using run = await openCommandRun();
  const path = await programOnPath("echo");
  assert.ok(path !== null);
  const result = await runCommand(run, [path, "by path"]);
  assertWorked(result);
  assert.equal(stdoutOf(result), "by path\n");
});

/** Enables exec.run_command with an allow rule that names echo only. */
const ALLOW_ECHO_ONLY = {
  rules: [{ tools: ["exec.run_command"], commands: ["echo"], decision: "allow" }],
};

Deno.test("exec.run_command asks before running sh when the allowlist names it but no allow rule does", async () => {
  await using run = await openCommandRun({
    commands: ["echo", "sh", "env"],
    permissions: ALLOW_ECHO_ONLY,
  });
  const touched = marker(run, "allowlisted-sh");
  for (
    const argv of [
      ["sh", "-c", "echo hi"],
      ["sh", "-c", `touch ${touched}`],
      ["env", "touch", "marker-env"],
    ]
  ) {
    const result = await runCommand(run, argv);
    assertDenied(result, "approval_required", UNRESTRICTED);
    assert.equal(result.error?.details.layer, "runtime");
    await assertAudited(run, result, "tool.denied", UNRESTRICTED);
  }
  await assertNoMarkers(run);
});

Deno.test("exec.run_command under bwrap runs sh unasked when an allow rule names it, and the kernel keeps it inside (near miss)", async () => {
  await using run = await openCommandRun({ commands: ["echo", "sh", "env"] });
  const hello = await runCommand(run, ["sh", "-c", "echo hi"]);
  assertWorked(hello);
  assert.equal(stdoutOf(hello), "hi\n");
  assert.equal(dataOf(hello).isolation, "bwrap");
  // Outside every root nothing exists inside the sandbox: the touch fails, no marker appears.
  const outside = await runCommand(run, ["sh", "-c", `touch ${marker(run, "named-sh")}`]);
  assert.equal(outside.ok, false, "touch outside the roots succeeded");
  assert.equal(outside.error?.type, "exit_nonzero");
  await assertNoMarkers(run);
  // Inside the workspace it writes: that is the job, and the diff shows it.
  const inside = await runCommand(run, ["sh", "-c", "echo made > made.txt"]);
  assertWorked(inside);
  assert.equal(await Deno.readTextFile(nodePath.join(run.sandbox.workspace, "made.txt")), "made\n");
});

// ---------------------------------------------------------------------------------------------
// Metacharacters stay literal
// ---------------------------------------------------------------------------------------------

Deno.test("exec.run_command passes shell metacharacters to the program literally", async () => {
  await using run = await openCommandRun();
  const m = marker(run, "meta");
  const literals = [
    `$(touch ${m})`,
    `\`touch ${m}\``,
    `a\ntouch ${m}`,
    `; touch ${m}`,
    `| touch ${m}`,
    `&& touch ${m} &`,
    `> ${m}`,
    "$HOME ${PATH} *",
  ];
  for (const text of literals) {
    const result = await runCommand(run, ["echo", text]);
    assertWorked(result);
    assert.equal(stdoutOf(result), `${text}\n`);
  }
  const several = await runCommand(run, ["echo", ...literals]);
  assertWorked(several);
  assert.equal(stdoutOf(several), `${literals.join(" ")}\n`);
  assert.equal(await exists(m), false);
  await assertNoMarkers(run);
});

// ---------------------------------------------------------------------------------------------
// Environment
// ---------------------------------------------------------------------------------------------

const BASE_NAMES = ["PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TERM"];

function environmentOf(text: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const line of text.split("\n")) {
    const equals = line.indexOf("=");
    if (equals > 0) names.set(line.slice(0, equals), line.slice(equals + 1));
  }
  return names;
}

/** Variables that load or run code, set in this process for the duration of `body`. */
async function withHostileEnvironment(
  outside: string,
  body: () => Promise<void>,
): Promise<void> {
  await withEnvironment({
    ANTHROPIC_API_KEY: CANARY_ENV,
    LD_PRELOAD: "/nonexistent/kagent-canary.so",
    NODE_OPTIONS: "--require=/nonexistent/kagent-canary.js",
    BASH_ENV: nodePath.join(outside, "bash_env.sh"),
    GIT_SSH_COMMAND: `touch ${nodePath.join(outside, "marker-ssh")}`,
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "alias.kagentcanary",
    GIT_CONFIG_VALUE_0: `!touch ${nodePath.join(outside, "marker-alias")}`,
    PYTHONSTARTUP: nodePath.join(outside, "startup.py"),
    KAGENT_TEST_VISIBLE: "yes",
  }, body);
}

const HOSTILE_NAMES = [
  "ANTHROPIC_API_KEY",
  "LD_PRELOAD",
  "NODE_OPTIONS",
  "BASH_ENV",
  "GIT_SSH_COMMAND",
  "GIT_CONFIG_COUNT",
  "GIT_CONFIG_KEY_0",
  "GIT_CONFIG_VALUE_0",
  "PYTHONSTARTUP",
];

Deno.test("exec.run_command children get only the base environment, HOME and TMPDIR in the run folder", async () => {
  const outside = await Deno.makeTempDir({ prefix: "kagent-env-" });
  try {
    await withHostileEnvironment(outside, async () => {
      await using run = await openCommandRun();
      const result = await runCommand(run, ["printenv"]);
      assertWorked(result);
      const shown = JSON.stringify([result.summary, result.output, result.data]);
      assert.ok(!shown.includes(CANARY_ENV), "the API key reached the child");
      for (const name of [...HOSTILE_NAMES, "KAGENT_TEST_VISIBLE"]) {
        assert.ok(!shown.includes(name), `"${name}" reached the child`);
      }
      const env = environmentOf(stdoutOf(result));
      for (const name of env.keys()) {
        // bubblewrap sets PWD to the working folder (--chdir), which the call named anyway.
        if (name === "PWD") continue;
        // The call's marker (`<run id>/<call id>`, nothing secret): the run's end finds by it
        // whatever of the command outlived the run.
        if (name === "KAGENT_RUN_CALL") {
          assert.equal(env.get(name), `${run.session.folder.id}/${result.tool_call_id}`);
          continue;
        }
        assert.ok(BASE_NAMES.includes(name), `the child got "${name}", outside the allowlist`);
      }
      const runDir = run.session.folder.dir;
      const home = env.get("HOME") ?? "";
      const tmp = env.get("TMPDIR") ?? "";
      assert.ok(home.startsWith(`${runDir}/`), `HOME is "${home}", not inside "${runDir}"`);
      assert.ok(tmp.startsWith(`${runDir}/`), `TMPDIR is "${tmp}", not inside "${runDir}"`);
      assert.notEqual(home, Deno.env.get("HOME"));

      // Unset in the child: printenv NAME exits 1 and prints nothing (not even a redaction).
      for (const name of HOSTILE_NAMES) {
        const one = await runCommand(run, ["printenv", name]);
        assertRefused(one, "exit_nonzero", [CANARY_ENV]);
        assert.equal(one.error?.details.exit_code, 1, name);
        assert.equal(stdoutOf(one), "");
      }
      await assertLogsClean(run, [CANARY_ENV]);
      assert.equal(await exists(nodePath.join(outside, "marker-ssh")), false);
      assert.equal(await exists(nodePath.join(outside, "marker-alias")), false);
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("exec.run_command passes variables a tools.env glob names (near miss)", async () => {
  const outside = await Deno.makeTempDir({ prefix: "kagent-env-" });
  try {
    await withHostileEnvironment(outside, async () => {
      await using run = await openCommandRun({ toolSettings: { env: ["KAGENT_TEST_*"] } });
      const result = await runCommand(run, ["printenv", "KAGENT_TEST_VISIBLE"]);
      assertWorked(result);
      assert.equal(stdoutOf(result), "yes\n");
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("exec.run_command never passes LD_PRELOAD and friends through a glob such as LD_* or *", async () => {
  const outside = await Deno.makeTempDir({ prefix: "kagent-env-" });
  try {
    await withHostileEnvironment(outside, async () => {
      await using run = await openCommandRun({
        toolSettings: { env: ["LD_*", "NODE_*", "BASH_*", "GIT_*", "PYTHON*", "*"] },
      });
      const result = await runCommand(run, ["printenv"]);
      assertWorked(result);
      const env = environmentOf(stdoutOf(result));
      for (const name of HOSTILE_NAMES.filter((name) => name !== "ANTHROPIC_API_KEY")) {
        assert.equal(env.has(name), false, `"${name}" passed through a glob`);
      }
      // "*" is not a way to spell nothing: ordinary variables do pass.
      assert.equal(env.get("KAGENT_TEST_VISIBLE"), "yes");
      assert.ok(!JSON.stringify([result.output, result.data]).includes(CANARY_ENV));
      await assertLogsClean(run, [CANARY_ENV]);
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("exec.run_command never hands a secret_env variable to a child through a glob", async () => {
  // audit.secret_env names the values the run must never show. The redactor only catches them
  // verbatim: a child that gets one can print it encoded (base64, reversed) past the redactor.
  const outside = await Deno.makeTempDir({ prefix: "kagent-env-" });
  try {
    await withHostileEnvironment(outside, async () => {
      await using run = await openCommandRun({ toolSettings: { env: ["*"] } });
      const result = await runCommand(run, ["printenv", "ANTHROPIC_API_KEY"]);
      assertRefused(result, "exit_nonzero", [CANARY_ENV]);
      assert.equal(result.error?.details.exit_code, 1, "the API key reached the child");
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("exec.run_command passes NODE_OPTIONS when tools.env names it exactly (near miss)", async () => {
  const outside = await Deno.makeTempDir({ prefix: "kagent-env-" });
  try {
    await withHostileEnvironment(outside, async () => {
      await using run = await openCommandRun({ toolSettings: { env: ["NODE_OPTIONS"] } });
      const result = await runCommand(run, ["printenv", "NODE_OPTIONS"]);
      assertWorked(result);
      assert.equal(stdoutOf(result), "--require=/nonexistent/kagent-canary.js\n");
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("a run whose tools.env names LD_PRELOAD exactly stops at start-up, not at every call", async () => {
  // Deno starts a child with LD_* or DYLD_* in its environment only under unrestricted run
  // permission, which the tool Worker never has: such an entry cannot work, so it must stop the
  // run with a ConfigError naming the key, not turn every command into an io_error.
  const outside = await Deno.makeTempDir({ prefix: "kagent-env-" });
  try {
    await withHostileEnvironment(outside, async () => {
      let run: TestRun | undefined;
      try {
        await assert.rejects(
          async () => {
            run = await openCommandRun({ toolSettings: { env: ["PATH", "LD_PRELOAD"] } });
          },
          (error: unknown) => {
            assert.ok(error instanceof ConfigError, String(error));
            assert.equal(error.key, "tools.env[1]");
            assert.match(error.message, /LD_PRELOAD/);
            return true;
          },
        );
      } finally {
        if (run !== undefined) {
          const result = await runCommand(run, ["printenv", "LD_PRELOAD"]);
          await run.close();
          assert.fail(
            `the run started; the call gave ${result.error?.type}: ${result.error?.message}`,
          );
        }
      }
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("exec.run_command refuses an env key from the model", async () => {
  await using run = await openCommandRun();
  const result = await run.call(
    "exec.run_command",
    JSON.stringify({ argv: ["printenv"], env: { X: "1" } }),
  );
  assertRefused(result, "invalid_arguments");
  await assertAudited(run, result, "tool.failed", null);
  for (
    const args of [
      { argv: ["printenv"], environment: { X: "1" } },
      { argv: "printenv X" },
      { argv: [] },
      { argv: ["printenv", 1] },
      { argv: ["printenv"], timeout_ms: -1 },
      { argv: ["printenv"], sandbox: false },
    ]
  ) {
    assertRefused(await run.call("exec.run_command", args), "invalid_arguments");
  }
});

// ---------------------------------------------------------------------------------------------
// Working folder
// ---------------------------------------------------------------------------------------------

Deno.test("exec.run_command refuses a cwd outside the workspace", async () => {
  await using run = await openCommandRun({
    prepare: async (sandbox) => {
      await Deno.mkdir(nodePath.join(sandbox.outside, "home"));
      await Deno.symlink(sandbox.outside, nodePath.join(sandbox.workspace, "link-to-out"));
      await Deno.symlink(
        nodePath.join(sandbox.outside, "home"),
        nodePath.join(sandbox.workspace, "link-to-home"),
      );
    },
  });
  let last: ToolResult | undefined;
  for (
    const cwd of [
      "/",
      nodePath.join(run.sandbox.outside, "home"),
      "../..",
      "..",
      "../outside",
      "link-to-out",
      "link-to-home",
      "link-to-out/home",
      "/proc/self/root",
      "/tmp",
    ]
  ) {
    last = await runCommand(run, ["pwd"], { cwd });
    assertDenied(last, "path_outside_sandbox", PATH_GUARD);
  }
  assert.ok(last !== undefined);
  await assertAudited(run, last, "tool.denied", PATH_GUARD);
});

Deno.test("exec.run_command runs in a workspace sub-folder given as cwd (near miss)", async () => {
  await using run = await openCommandRun({
    prepare: (sandbox) => Deno.mkdir(nodePath.join(sandbox.workspace, "sub")),
  });
  const result = await runCommand(run, ["pwd"], { cwd: "sub" });
  assertWorked(result);
  assert.equal(stdoutOf(result), `${nodePath.join(run.sandbox.workspace, "sub")}\n`);
  const root = await runCommand(run, ["pwd"]);
  assertWorked(root);
  assert.equal(stdoutOf(root), `${run.sandbox.workspace}\n`);
});

// ---------------------------------------------------------------------------------------------
// Options that execute or write
// ---------------------------------------------------------------------------------------------

/** Options that make git or rg run code or write files, with the markers they would leave. */
async function prepareOptionAttacks(sandbox: TempSandbox): Promise<void> {
  await prepareRepository(sandbox);
  await Deno.mkdir(nodePath.join(sandbox.outside, "home"));
  await writeExecutable(
    nodePath.join(sandbox.workspace, "evil.sh"),
    `#!/bin/sh\ntouch ${nodePath.join(sandbox.outside, "marker-rg-pre")}\ncat "$1"\n`,
  );
}

function optionAttacks(run: TestRun): { attacks: string[][]; bashrc: string } {
  const m = (name: string) => marker(run, name);
  const bashrc = nodePath.join(run.sandbox.outside, "home", ".bashrc");
  return {
    bashrc,
    attacks: [
      ["git", "diff", `--output=${bashrc}`],
      ["git", "diff", "--output", bashrc],
      ["git", "-c", `core.pager=touch ${m("pager")}`, "log"],
      ["git", `-ccore.sshCommand=touch ${m("ssh")}`, "fetch", "x"],
      ["git", "--config-env=core.pager=KAGENT_PAGER", "log"],
      ["git", "clone", `--upload-pack=touch ${m("upload-pack")}`, "x", "y"],
      ["git", "clone", `--upload-p=touch ${m("upload-p")}`, "x", "y"],
      ["git", "clone", `ext::sh -c touch% ${m("ext")}`, "y"],
      ...(HAS_RG ? [["rg", "--pre", "./evil.sh", "x"], ["rg", "--pre=./evil.sh", "x"]] : []),
    ],
  };
}

Deno.test("exec.run_command asks before git and rg options that run code or write files when no rule names the program", async () => {
  await using run = await openCommandRun({
    prepare: prepareOptionAttacks,
    permissions: {
      rules: [{ tools: ["exec.run_command"], commands: ["echo"], decision: "allow" }],
    },
  });
  const { attacks, bashrc } = optionAttacks(run);
  await withEnvironment({ KAGENT_PAGER: `touch ${marker(run, "config-env")}` }, async () => {
    for (const argv of attacks) {
      const result = await runCommand(run, argv);
      assert.equal(result.ok, false, `${JSON.stringify(argv)} ran unasked`);
      assert.ok(
        result.error?.type === "approval_required" || result.error?.type === "permission_denied",
        `${JSON.stringify(argv)}: ${result.error?.type}: ${result.error?.message}`,
      );
    }
    // The one that names a path outside the roots is denied outright.
    const output = await runCommand(run, ["git", "diff", `--output=${bashrc}`]);
    assertDenied(output, "permission_denied", { rule: UNCHECKED, layer: "runtime" });
    assert.equal(await exists(bashrc), false);
    assert.equal(await exists(nodePath.join(run.sandbox.workspace, "y")), false);
    await assertNoMarkers(run);
  });
});

Deno.test("exec.run_command under bwrap runs git and rg named by a rule with those options, and nothing outside changes", async () => {
  await using run = await openCommandRun({ prepare: prepareOptionAttacks });
  const { attacks, bashrc } = optionAttacks(run);
  await withEnvironment({ KAGENT_PAGER: `touch ${marker(run, "config-env")}` }, async () => {
    for (const argv of attacks) {
      const result = await runCommand(run, argv);
      // Denied (a path outside the roots), failed, or ran confined: never an effect outside.
      if (!result.ok) assert.ok(result.error !== null, JSON.stringify(argv));
    }
    assert.equal(await exists(bashrc), false);
    assert.equal(await exists(nodePath.join(run.sandbox.workspace, "y")), false);
    await assertNoMarkers(run);
  });
});

Deno.test("exec.run_command runs git status, log --oneline and diff --stat (near miss)", async () => {
  await using run = await openCommandRun({ prepare: prepareRepository });
  const status = await runCommand(run, ["git", "status", "--short"]);
  assertWorked(status);
  assert.match(stdoutOf(status), /M README\.md/);
  const log = await runCommand(run, ["git", "log", "--oneline"]);
  assertWorked(log);
  assert.match(stdoutOf(log), /first/);
  const diff = await runCommand(run, ["git", "diff", "--stat"]);
  assertWorked(diff);
  assert.match(stdoutOf(diff), /README\.md \| 2 \+\+/);
  if (HAS_RG) {
    const rg = await runCommand(run, ["rg", "--no-config", "Changed", "README.md"]);
    assertWorked(rg);
    assert.equal(stdoutOf(rg), "Changed.\n");
  }
});

Deno.test("exec.run_command shows a plain git diff in safe mode (near miss)", async () => {
  await using run = await openCommandRun({ prepare: prepareRepository });
  const diff = await runCommand(run, ["git", "diff"]);
  assertWorked(diff);
  assert.match(stdoutOf(diff), /^\+Changed\.$/m);
  const patch = await runCommand(run, ["git", "log", "-p", "-1"]);
  assertWorked(patch);
  assert.match(stdoutOf(patch), /^\+# Demo$/m);
});

Deno.test("exec.run_command under bwrap stages and commits in the workspace repository (near miss)", async () => {
  await using run = await openCommandRun({
    config: { sandbox: { command_isolation: "bwrap" } },
    toolSettings: { git_write: true },
    prepare: prepareRepository,
  });
  const add = await runCommand(run, ["git", "add", "README.md"]);
  assertWorked(add);
  assert.equal(dataOf(add).isolation, "bwrap");
  assertWorked(await runCommand(run, ["git", "commit", "-q", "-m", "second"]));
  const log = await runCommand(run, ["git", "log", "--oneline"]);
  assertWorked(log);
  assert.match(stdoutOf(log), /second/);
});

// ---------------------------------------------------------------------------------------------
// git safe mode
// ---------------------------------------------------------------------------------------------

/** A repository with an executable pre-commit hook that leaves a marker. */
async function prepareHookedRepository(sandbox: TempSandbox): Promise<void> {
  await prepareRepository(sandbox);
  await writeExecutable(
    nodePath.join(sandbox.workspace, ".git", "hooks", "pre-commit"),
    `#!/bin/sh\ntouch ${nodePath.join(sandbox.outside, "marker-hook")}\n`,
  );
}

/** A repository whose .git/config names an fsmonitor hook that leaves a marker. */
async function prepareFsmonitorRepository(sandbox: TempSandbox): Promise<void> {
  await prepareRepository(sandbox);
  const fsmonitor = nodePath.join(sandbox.outside, "fsmonitor.sh");
  await writeExecutable(
    fsmonitor,
    `#!/bin/sh\ntouch ${nodePath.join(sandbox.outside, "marker-fsmonitor")}\n`,
  );
  await git(sandbox.workspace, "config", "core.fsmonitor", fsmonitor);
}

Deno.test("exec.run_command commits in safe mode without running the repository's hooks", async () => {
  await using run = await openCommandRun({
    toolSettings: { git_write: true },
    prepare: prepareHookedRepository,
  });
  const commit = await runCommand(run, ["git", "commit", "--allow-empty", "-q", "-m", "x"]);
  assertWorked(commit);
  assert.equal(await exists(marker(run, "hook")), false, "the pre-commit hook ran");
  const log = await runCommand(run, ["git", "log", "--oneline"]);
  assertWorked(log);
  assert.match(stdoutOf(log), /^[0-9a-f]+ x$/m);
});

Deno.test("exec.run_command never runs the repository's core.fsmonitor in safe mode", async () => {
  await using run = await openCommandRun({ prepare: prepareFsmonitorRepository });
  const status = await runCommand(run, ["git", "status", "--short"]);
  // Running git with fsmonitor forced off, or refusing the repository, both keep it from running.
  if (!status.ok) assertRefused(status, "permission_denied");
  assert.equal(await exists(marker(run, "fsmonitor")), false, "core.fsmonitor ran");
});

Deno.test("git safe mode checks the repository's config again once the host changes it, after a remembered safe verdict", async () => {
  await using run = await openCommandRun({ prepare: prepareRepository });
  // Near miss: the config is safe, and the verdict is remembered for the next calls.
  assertWorked(await runCommand(run, ["git", "status", "--short"]));
  assertWorked(await runCommand(run, ["git", "status", "--short"]));
  // The host (never the run: .git/config is read-only to every process) adds a shell alias.
  await git(run.sandbox.workspace, "config", "alias.st", `!touch ${marker(run, "alias")}`);
  const refused = await runCommand(run, ["git", "status", "--short"]);
  assertRefused(refused, "permission_denied");
  assert.match(refused.error?.message ?? "", /alias\.st/);
  assert.equal(await exists(marker(run, "alias")), false, "the alias ran");
});

for (
  const [what, prepare, argv, name] of [
    [
      "the pre-commit hook",
      prepareHookedRepository,
      ["commit", "--allow-empty", "-q", "-m", "x"],
      "hook",
    ],
    ["core.fsmonitor", prepareFsmonitorRepository, ["status", "--short"], "fsmonitor"],
  ] as const
) {
  Deno.test(`git runs ${what} with tools.git_safe_mode false (near miss: the test is live)`, async () => {
    // Unconfined (and approved), so that nothing but safe mode keeps git from running them.
    await using run = await openCommandRun({
      ...UNCONFINED,
      toolSettings: { git_safe_mode: false },
      prepare,
    });
    await runCommand(run, ["git", ...argv]);
    assert.equal(await exists(marker(run, name)), true, `${what} did not run`);
  });
}

/**
 * A repository whose own config names commands for every hook-like setting git has besides
 * hooks, fsmonitor and pagers: clean filters, textconv and external diff drivers, a signing
 * program, editors, a remote's upload-pack, a git:// proxy, a shell alias. Each leaves its own
 * marker in `$OUT`.
 */
async function prepareHostileConfigRepository(sandbox: TempSandbox): Promise<void> {
  await prepareRepository(sandbox);
  const workspace = sandbox.workspace;
  const touch = (name: string) => `touch ${nodePath.join(sandbox.outside, `marker-${name}`)}`;
  await writeExecutable(nodePath.join(sandbox.outside, "gpg.sh"), `#!/bin/sh\n${touch("gpg")}\n`);
  await writeExecutable(
    nodePath.join(sandbox.outside, "proxy.sh"),
    `#!/bin/sh\n${touch("git-proxy")}\n`,
  );
  await Deno.writeTextFile(nodePath.join(workspace, "notes.rst"), "notes\n");
  await git(workspace, "add", "notes.rst");
  await git(workspace, "commit", "-q", "-m", "notes");
  await Deno.writeTextFile(nodePath.join(workspace, "notes.rst"), "notes, changed\n");
  await Deno.writeTextFile(
    nodePath.join(workspace, ".gitattributes"),
    "*.txt filter=evil\n*.md diff=tconv\n*.rst diff=extcmd\n",
  );
  await Deno.writeTextFile(nodePath.join(workspace, "a.txt"), "text\n");
  const settings: [string, string][] = [
    ["filter.evil.clean", `${touch("filter-clean")}; cat`],
    ["filter.evil.smudge", `${touch("filter-smudge")}; cat`],
    ["diff.tconv.textconv", `${touch("textconv")}; cat`],
    ["diff.extcmd.command", touch("diff-command")],
    ["commit.gpgSign", "true"],
    ["gpg.program", nodePath.join(sandbox.outside, "gpg.sh")],
    ["core.editor", touch("editor")],
    ["sequence.editor", touch("sequence-editor")],
    ["remote.origin.url", "."],
    ["remote.origin.uploadpack", `${touch("remote-uploadpack")}; git-upload-pack`],
    ["remote.proxied.url", "git://example.invalid/x"],
    ["core.gitProxy", nodePath.join(sandbox.outside, "proxy.sh")],
    ["alias.st", `!${touch("alias")}`],
  ];
  for (const [key, value] of settings) await git(workspace, "config", key, value);
}

async function markersIn(folder: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    if (entry.name.startsWith("marker-")) found.push(entry.name.slice("marker-".length));
  }
  return found.sort();
}

Deno.test("exec.run_command runs git in safe mode without any command the repository's config names", async () => {
  await using run = await openCommandRun({ prepare: prepareHostileConfigRepository });
  const allowedCalls: string[][] = [
    ["git", "status", "--short"],
    ["git", "diff"],
    ["git", "log", "-p", "-1"],
    ["git", "add", "a.txt"],
    ["git", "commit", "--allow-empty", "-m", "signed?"],
    ["git", "commit", "--allow-empty"],
    ["git", "rebase", "-i", "HEAD"],
    ["git", "fetch", "origin"],
    ["git", "fetch", "proxied"],
    ["git", "checkout", "--", "a.txt"],
  ];
  const outcomes: string[] = [];
  for (const argv of allowedCalls) {
    const result = await runCommand(run, argv, { timeout_ms: 10_000 });
    outcomes.push(`${argv.join(" ")}: ${result.ok ? "ok" : result.error?.type}`);
  }
  // A shell alias is a command name the analysis cannot check: refused before it runs.
  const alias = await runCommand(run, ["git", "st"]);
  assertRefused(alias, "permission_denied");
  assert.deepEqual(
    await markersIn(run.sandbox.outside),
    [],
    `git ran commands from the repository's config; calls: ${outcomes.join("; ")}`,
  );
});

// ---------------------------------------------------------------------------------------------
// Arguments that name paths outside the roots
// ---------------------------------------------------------------------------------------------

Deno.test("exec.run_command refuses git commands that create repositories outside the workspace", async () => {
  await using run = await openCommandRun({ prepare: prepareRepository });
  const targets: [string[], string][] = [
    [["git", "init", "-q", marker(run, "init")], marker(run, "init")],
    [["git", "clone", "-q", ".", marker(run, "clone")], marker(run, "clone")],
    [["git", "worktree", "add", marker(run, "worktree")], marker(run, "worktree")],
    [["git", "init", "-q", "../outside/marker-relative"], marker(run, "relative")],
  ];
  for (const [argv] of targets) {
    const result = await runCommand(run, argv);
    assert.equal(result.ok, false, `${argv.join(" ")} ran: ${result.summary}`);
    assert.ok(
      result.error?.type === "permission_denied" || result.error?.type === "path_outside_sandbox",
      `${argv.join(" ")}: ${result.error?.type}: ${result.error?.message}`,
    );
  }
  await assertNoMarkers(run);
});

Deno.test("exec.run_command refuses arguments that write protected paths or outside the roots", async () => {
  // fs.write_file may not write .git/hooks, the permissions file or outside the workspace; an
  // allowlisted cp must not be a way around that ("Writes that later execute").
  await using run = await openCommandRun({
    commands: ["cp", "echo"],
    permissions: ALLOW_RUN_COMMAND,
    prepare: async (sandbox) => {
      await prepareRepository(sandbox);
      await Deno.writeTextFile(nodePath.join(sandbox.workspace, "payload.sh"), "#!/bin/sh\nid\n");
    },
  });
  const permissionsFile = nodePath.join(run.configDir, "permissions.json");
  const permissionsBefore = await Deno.readTextFile(permissionsFile);
  const hook = nodePath.join(run.sandbox.workspace, ".git", "hooks", "pre-commit");
  const targets = [
    ".git/hooks/pre-commit",
    hook,
    permissionsFile,
    nodePath.join(run.configDir, "agent.jsonc"),
    marker(run, "cp"),
    "../outside/marker-cp-relative",
  ];
  for (const target of targets) {
    const result = await runCommand(run, ["cp", "payload.sh", target]);
    assert.equal(result.ok, false, `cp payload.sh ${target} ran`);
    assert.ok(
      result.error?.type === "permission_denied" || result.error?.type === "path_outside_sandbox",
      `cp payload.sh ${target}: ${result.error?.type}: ${result.error?.message}`,
    );
  }
  assert.equal(await exists(hook), false, "a pre-commit hook was written");
  assert.equal(await Deno.readTextFile(permissionsFile), permissionsBefore);
  await assertNoMarkers(run);
  const copy = await runCommand(run, ["cp", "payload.sh", "copy.sh"]);
  assertWorked(copy);
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "copy.sh")), true);
});

/**
 * Runs `kagent-run call exec.run_command` in a new process whose environment holds the API key
 * from the start (as a real run's does: /proc/<pid>/environ shows the initial environment).
 */
async function callInFreshProcess(
  isolation: "none" | "bwrap",
  argv: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  await using project = await createProject({
    config: { commands: ["rg"], sandbox: { command_isolation: isolation } },
    permissions: ALLOW_RUN_COMMAND,
  });
  const main = new URL("../main.ts", import.meta.url).pathname;
  const done = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--unstable-worker-options",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-run",
      main,
      "call",
      "exec.run_command",
      JSON.stringify({ argv }),
      "--config",
      project.configPath,
    ],
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/root",
      ANTHROPIC_API_KEY: CANARY_ENV,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: done.code,
    stdout: decoder.decode(done.stdout),
    stderr: decoder.decode(done.stderr),
  };
}

/** rg walks /proc/<pid>/environ of every process, the runtime's own included. */
const ENVIRON_GREP = [
  "rg",
  "-a",
  "-o",
  "--no-messages",
  "--max-depth",
  "2",
  "-g",
  "environ",
  "ANTHROPIC_API_KEY=.{0,9}",
  "/proc",
];

for (const isolation of ["none", "bwrap"] as const) {
  Deno.test({
    name: isolation === "none"
      ? "exec.run_command does not let rg read the runtime's own environment through /proc"
      : "exec.run_command under bwrap does not let rg read the runtime's environment either",
    ignore: !HAS_RG,
    fn: async () => {
      // Printed in pieces, the key passes a redactor that only knows the whole value. Refusing
      // the call is as good as running rg where the runtime's /proc cannot be seen.
      const done = await callInFreshProcess(isolation, ENVIRON_GREP);
      assert.ok(done.code === 0 || done.code === 1, `exit ${done.code}: ${done.stderr}`);
      const result = JSON.parse(done.stdout) as ToolResult;
      assert.equal(result.tool, "exec.run_command");
      if (result.ok || result.error?.type === "exit_nonzero") {
        assert.equal((result.data as { isolation?: unknown } | null)?.isolation, isolation);
      } else {
        assert.ok(
          result.error?.type === "path_outside_sandbox" ||
            result.error?.type === "permission_denied",
          `${result.error?.type}: ${result.error?.message}`,
        );
      }
      const shown = JSON.stringify(result);
      assert.ok(
        !shown.includes("ANTHROPIC_API_KEY=canary"),
        `rg printed a piece of the runtime's API key: ${result.output.slice(0, 300)}`,
      );
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Floods
// ---------------------------------------------------------------------------------------------

const MAX_ARTIFACT = 8 * 1024 * 1024;
const STDOUT_LIMIT = 4096;
const FLOOD_TIMEOUT_MS = 3000;
/** tools' kill grace (2 s) plus the drain and the pipeline's own time. */
const LATE_MS = 2000 + 1500;

for (const argv of [["yes"], ["seq", "1", "1000000000"]]) {
  Deno.test(`exec.run_command stops ${argv.join(" ")} on time and keeps a capped artifact`, async () => {
    await using run = await openCommandRun({
      config: { limits: { max_artifact_bytes: MAX_ARTIFACT } },
      toolSettings: { stdout_limit_bytes: STDOUT_LIMIT },
    });
    const started = performance.now();
    const result = await runCommand(run, argv, { timeout_ms: FLOOD_TIMEOUT_MS });
    const elapsed = performance.now() - started;
    assertRefused(result, "timeout");
    assert.equal(result.error?.details.timed_out, true);
    assert.ok(elapsed >= FLOOD_TIMEOUT_MS - 50, `returned after ${elapsed} ms, before the timeout`);
    assert.ok(elapsed <= FLOOD_TIMEOUT_MS + LATE_MS, `returned after ${elapsed} ms`);
    const inline = new TextEncoder().encode(result.output).byteLength;
    assert.ok(inline <= STDOUT_LIMIT + 1024, `${inline} bytes inline`);
    const artifact = result.artifacts[0];
    assert.ok(artifact !== undefined, "no artifact for the flood");
    const path = nodePath.join(run.session.folder.dir, artifact.ref);
    assert.ok(path.startsWith(`${run.session.folder.paths.artifacts}/`), artifact.ref);
    const size = (await Deno.stat(path)).size;
    assert.equal(size, artifact.bytes);
    assert.ok(size <= MAX_ARTIFACT, `artifact of ${size} bytes`);
    assert.ok(size > STDOUT_LIMIT, `artifact of only ${size} bytes`);
    assert.equal(await sha256File(path), artifact.sha256);
    const head = new TextDecoder().decode((await Deno.readFile(path)).subarray(0, 8));
    assert.equal(head, argv[0] === "yes" ? "y\ny\ny\ny\n" : "1\n2\n3\n4\n");
    await assertAudited(run, result, "tool.failed");
  });
}

// ---------------------------------------------------------------------------------------------
// Failures
// ---------------------------------------------------------------------------------------------

Deno.test("exec.run_command reports exit_nonzero with the stderr summary", async () => {
  await using run = await openCommandRun();
  const result = await runCommand(run, ["ls", "nope"]);
  assertRefused(result, "exit_nonzero");
  assert.equal(result.error?.details.exit_code, 2);
  assert.match(result.error?.message ?? "", /nope.*No such file or directory/);
  await assertAudited(run, result, "tool.failed", {
    rule: "allow-run-command",
    layer: "config",
  });
});

// ---------------------------------------------------------------------------------------------
// kagent-run policy --json
// ---------------------------------------------------------------------------------------------

async function policyJson(config: Record<string, unknown>): Promise<Record<string, unknown>> {
  await using project = await createProject({ config, permissions: ALLOW_RUN_COMMAND });
  const done = await runCli(["policy", "--config", project.configPath, "--json"]);
  assert.equal(done.code, 0, done.stderr);
  return JSON.parse(done.stdout);
}

function denoPermissions(snapshot: Record<string, unknown>): Record<string, unknown> {
  const layers = snapshot.layers as { sandbox: { deno_permissions: Record<string, unknown> } };
  return layers.sandbox.deno_permissions;
}

async function resolved(names: string[]): Promise<string[]> {
  const paths: string[] = [];
  for (const name of names) {
    const path = await programOnPath(name);
    assert.ok(path !== null, `"${name}" is not on PATH`);
    paths.push(path);
  }
  return paths;
}

Deno.test("kagent-run policy --json lists exactly the allowlisted programs and env names the Worker gets", async () => {
  await withEnvironment({ KAGENT_TEST_VISIBLE: "yes" }, async () => {
    const snapshot = await policyJson({
      commands: ["echo", "git"],
      sandbox: { command_isolation: "none" },
      tools: { interpreters: {}, env: ["KAGENT_TEST_*"] },
    });
    const permissions = denoPermissions(snapshot);
    const expected = await resolved(["echo", "git", "setsid", "kill"]);
    assert.deepEqual([...(permissions.run as string[])].sort(), [...new Set(expected)].sort());
    const env = permissions.env as string[];
    const commands = (snapshot.layers as { sandbox: { commands: Record<string, unknown> } })
      .sandbox.commands;
    assert.deepEqual(env, commands.environment_names);
    assert.ok(env.includes("PATH") && env.includes("KAGENT_TEST_VISIBLE"), env.join());
    for (const name of env) {
      assert.ok(
        BASE_NAMES.includes(name) || name.startsWith("KAGENT_TEST_"),
        `the Worker may read "${name}"`,
      );
    }
    assert.equal(permissions.net, false);

    const confined = denoPermissions(
      await policyJson({
        commands: ["echo"],
        sandbox: { command_isolation: "bwrap" },
        tools: { interpreters: {} },
      }),
    );
    assert.deepEqual(
      [...(confined.run as string[])].sort(),
      [...new Set(await resolved(["echo", "setsid", "kill", "bwrap", "prlimit"]))].sort(),
    );
  });
});

Deno.test("kagent-run policy --json gives the Worker no run and no env without commands", async () => {
  const snapshot = await policyJson({});
  const permissions = denoPermissions(snapshot);
  assert.equal(permissions.run, false);
  assert.equal(permissions.env, false);
  const tools = snapshot.tools as { tool: string }[];
  assert.ok(!tools.some((tool) => tool.tool === "exec.run_command"));
});
