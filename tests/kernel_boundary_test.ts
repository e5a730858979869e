/**
 * The command boundary held by the kernel (issue 10, attacks/CASES.md "Classes found against this
 * project"): whatever the argument analysis lets through, a command under the bubblewrap mount
 * profile cannot plant files in `.git` (through an archive, `cp` with cwd `.git`, a workspace link
 * to `.git`), rewrite the config, permissions or an earlier run's logs, read or write outside the
 * roots through a workspace link, read a masked sensitive file, or reach the network unless granted.
 *
 * To test the kernel and not the policy, these runs allow `sh` and approve every ask: the only
 * thing standing between the command and the host is the mount profile. Each attack asserts the
 * effect on the host (the file does not exist, its hash is unchanged, the secret is absent) and
 * comes with its near miss (git status, git commit with `tools.git_write`, `tar -czf out.tgz src`,
 * `cp a b`, curl to a granted host). Under isolation "none" the same attacks need an approval and,
 * without one, leave nothing.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import type { Approver } from "../src/approval/mod.ts";
import { openTestRun, type TestRun, type TestRunOptions } from "../src/testing/run_harness.ts";
import type { TempSandbox } from "../src/testing/temp_sandbox.ts";
import type { ToolResult } from "../src/result/tool_result.ts";
import { assertWorked, exists, git, programOnPath, sha256File } from "./_attack_helpers.ts";
import { BWRAP_PROBE } from "../src/exec/_test_support.ts";

const HAS_BWRAP = BWRAP_PROBE.usable;
const PROGRAMS = ["sh", "tar", "cp", "cat", "git", "ls", "grep", "curl"];
const SECRET = "KAGENT-ENV-SECRET-5b1e";

/** Approves every ask: these tests test the kernel, not the policy. */
const APPROVE_ALL: Approver = {
  name: "test-approve-all",
  approve: () => Promise.resolve({ decision: "allow_once" }),
};

const ALLOW_RUN_COMMAND = {
  rules: [{
    id: "allow-run-command",
    tools: ["exec.run_command"],
    commands: [...PROGRAMS, "tar", "python3"],
    decision: "allow",
  }],
};

function openConfined(
  options: Omit<TestRunOptions, "tools"> & { tools?: Record<string, unknown> } = {},
): Promise<TestRun> {
  const { tools, config, ...rest } = options;
  return openTestRun({
    permissions: ALLOW_RUN_COMMAND,
    approver: APPROVE_ALL,
    ...rest,
    config: {
      commands: PROGRAMS,
      sandbox: { command_isolation: "bwrap" },
      ...(tools === undefined ? {} : { tools }),
      ...config,
    },
  });
}

function sh(run: TestRun, script: string, cwd = "."): Promise<ToolResult> {
  return run.call("exec.run_command", { argv: ["sh", "-c", script], cwd });
}

function stdoutOf(result: ToolResult): string {
  return ((result.data as { stdout?: { text?: string } } | null)?.stdout?.text) ?? "";
}

/** `git init` with one commit; returns the sha256 of .git/config. */
async function prepareRepository(sandbox: TempSandbox): Promise<void> {
  const workspace = sandbox.workspace;
  await git(workspace, "init", "-q", "-b", "main");
  await git(workspace, "config", "user.email", "agent@example.invalid");
  await git(workspace, "config", "user.name", "Agent");
  await Deno.mkdir(nodePath.join(workspace, "src"));
  await Deno.writeTextFile(nodePath.join(workspace, "src", "a.txt"), "alpha\n");
  await Deno.writeTextFile(nodePath.join(workspace, "README.md"), "# Demo\n");
  await git(workspace, "add", ".");
  await git(workspace, "commit", "-q", "-m", "first");
}

/**
 * An archive, written into the workspace, whose members plant a repository takeover: `.git/commondir`
 * pointing at an agent-written config whose core.fsmonitor leaves a marker, a pre-commit hook and
 * a new `.git/config`.
 */
async function writeEvilArchive(sandbox: TempSandbox, name: string): Promise<string> {
  const staging = await Deno.makeTempDir({ dir: sandbox.root, prefix: "staging-" });
  const marker = nodePath.join(sandbox.outside, "marker-fsmonitor");
  await Deno.mkdir(nodePath.join(staging, ".git", "hooks"), { recursive: true });
  await Deno.mkdir(nodePath.join(staging, "evil"), { recursive: true });
  await Deno.writeTextFile(nodePath.join(staging, ".git", "commondir"), "../evil\n");
  await Deno.writeTextFile(
    nodePath.join(staging, ".git", "config"),
    `[core]\n\tfsmonitor = touch ${marker}; false\n`,
  );
  await Deno.writeTextFile(
    nodePath.join(staging, ".git", "hooks", "pre-commit"),
    `#!/bin/sh\ntouch ${marker}\n`,
  );
  await Deno.writeTextFile(
    nodePath.join(staging, "evil", "config"),
    `[core]\n\tfsmonitor = touch ${marker}; false\n`,
  );
  const archive = nodePath.join(sandbox.workspace, name);
  const tar = await new Deno.Command("tar", {
    args: ["-cf", archive, "-C", staging, ".git", "evil"],
  }).output();
  assert.ok(tar.success, "cannot build the test archive");
  return archive;
}

/** The user's next plain `git status` on the host: must not run anything the agent planted. */
async function hostGitStatus(sandbox: TempSandbox): Promise<void> {
  await new Deno.Command("git", {
    args: ["status", "--short"],
    cwd: sandbox.workspace,
    stdout: "null",
    stderr: "null",
  }).output();
}

Deno.test({
  name: "an archive extracted under bwrap cannot plant .git files that run on the next git status",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openConfined({ prepare: prepareRepository });
    const sandbox = run.sandbox;
    await writeEvilArchive(sandbox, "evil.tar");
    const config = await sha256File(nodePath.join(sandbox.workspace, ".git", "config"));
    const result = await sh(run, "tar -xf evil.tar");
    assert.equal(result.ok, false, "the extraction reported success");
    assert.match(result.output, /Read-only file system|Cannot open/);
    assert.equal(await exists(nodePath.join(sandbox.workspace, ".git", "commondir")), false);
    assert.equal(
      await exists(nodePath.join(sandbox.workspace, ".git", "hooks", "pre-commit")),
      false,
    );
    assert.equal(await sha256File(nodePath.join(sandbox.workspace, ".git", "config")), config);
    await hostGitStatus(sandbox);
    assert.equal(await exists(nodePath.join(sandbox.outside, "marker-fsmonitor")), false);
    // Near miss: the rest of the archive was extracted, and git status works inside.
    assert.equal(await exists(nodePath.join(sandbox.workspace, "evil", "config")), true);
    const status = await run.call("exec.run_command", { argv: ["git", "status", "--short"] });
    assertWorked(status);
  },
});

Deno.test({
  name: "cp with cwd .git or through a workspace link to .git cannot write commondir under bwrap",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openConfined({
      prepare: async (sandbox) => {
        await prepareRepository(sandbox);
        await Deno.writeTextFile(nodePath.join(sandbox.workspace, "payload"), "../evil\n");
        await Deno.symlink(".git", nodePath.join(sandbox.workspace, "gitlink"));
      },
    });
    const dotGit = nodePath.join(run.sandbox.workspace, ".git");
    const inGit = await run.call("exec.run_command", {
      argv: ["cp", "../payload", "commondir"],
      cwd: ".git",
    });
    assert.equal(inGit.ok, false);
    const viaLink = await run.call("exec.run_command", {
      argv: ["cp", "payload", "gitlink/commondir"],
    });
    assert.equal(viaLink.ok, false);
    const viaShell = await sh(
      run,
      "cp payload gitlink/hooks/post-checkout; cp payload .git/info/x",
    );
    assert.equal(viaShell.ok, false);
    assert.equal(await exists(nodePath.join(dotGit, "commondir")), false);
    assert.equal(await exists(nodePath.join(dotGit, "hooks", "post-checkout")), false);
    assert.equal(await exists(nodePath.join(dotGit, "info", "x")), false);
    // Near miss: cp a b inside the workspace works.
    assertWorked(await run.call("exec.run_command", { argv: ["cp", "payload", "copy"] }));
    assert.equal(
      await Deno.readTextFile(nodePath.join(run.sandbox.workspace, "copy")),
      "../evil\n",
    );
  },
});

Deno.test({
  name:
    "a .git a command creates at the top of a workspace without one is moved out and the call fails",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openConfined();
    const sandbox = run.sandbox;
    await writeEvilArchive(sandbox, "evil.tar");
    const result = await sh(run, "tar -xf evil.tar");
    assert.equal(result.ok, false);
    assert.equal(result.error?.type, "sandbox_violation");
    assert.match(result.error?.message ?? "", /created protected paths/);
    assert.equal(await exists(nodePath.join(sandbox.workspace, ".git")), false);
    const quarantine = nodePath.join(run.session.folder.dir, "quarantine");
    const kept = [...Deno.readDirSync(quarantine)].map((entry) => entry.name);
    assert.equal(kept.length, 1, "the planted .git is not kept in the run folder");
    await hostGitStatus(sandbox);
    assert.equal(await exists(nodePath.join(sandbox.outside, "marker-fsmonitor")), false);
  },
});

Deno.test({
  name: "a .git a command creates at any depth, in a new folder or moved in, is quarantined",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openConfined();
    const sandbox = run.sandbox;
    const marker = nodePath.join(sandbox.outside, "marker-nested");
    await Deno.mkdir(nodePath.join(sandbox.workspace, "existing", "deep"), { recursive: true });
    // Warm the watch: the first command scans, later ones read only what changed.
    assertWorked(await sh(run, "true"));
    // The name is spelled at run time: the policy's path findings must not see it (this tests
    // the kernel and the watch, not the argument analysis).
    const plant = (path: string) =>
      `g=.gi; g="$g"t; git init -q ${path} && ` +
      `printf '[core]\\n\\tfsmonitor = touch ${marker}; false\\n' >> ${path}/$g/config`;
    const cases = [
      // A new folder whose .git appears before any watch could see the folder.
      { script: plant("fresh/a/b"), planted: "fresh/a/b/.git" },
      // An existing folder, deep down.
      { script: plant("existing/deep"), planted: "existing/deep/.git" },
      // Built in the run's private TMPDIR, then moved in whole.
      {
        script: `mkdir -p "$TMPDIR/x/y" && ${plant('"$TMPDIR/x/y"')} && mv "$TMPDIR/x" moved`,
        planted: "moved/y/.git",
      },
    ];
    for (const { script, planted } of cases) {
      const result = await sh(run, script);
      assert.equal(result.ok, false, `${planted}: ${result.output}`);
      assert.equal(result.error?.type, "sandbox_violation", result.error?.message);
      assert.ok(result.error?.message.includes(planted), result.error?.message);
      assert.equal(await exists(nodePath.join(sandbox.workspace, planted)), false);
      const folder = nodePath.join(sandbox.workspace, nodePath.dirname(planted));
      await new Deno.Command("git", {
        args: ["status"],
        cwd: folder,
        stdout: "null",
        stderr: "null",
      })
        .output();
    }
    assert.equal(await exists(marker), false, "a host git status ran a planted fsmonitor");
    const quarantine = nodePath.join(run.session.folder.dir, "quarantine");
    assert.equal([...Deno.readDirSync(quarantine)].length, cases.length);
    // Near miss: the same folders without a .git stay, and the next command runs.
    assertWorked(await sh(run, "mkdir -p fresh/c/d && echo ok > fresh/c/d/file"));
    assert.equal(
      await Deno.readTextFile(nodePath.join(sandbox.workspace, "fresh/c/d/file")),
      "ok\n",
    );
  },
});

Deno.test({
  name: "sandbox.allow_nested_repositories keeps a repository a command clones below the top",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openConfined({
      config: { sandbox: { command_isolation: "bwrap", allow_nested_repositories: true } },
    });
    const sandbox = run.sandbox;
    assertWorked(await sh(run, "mkdir -p vendor/lib && git init -q vendor/lib"));
    assert.equal(await exists(nodePath.join(sandbox.workspace, "vendor", "lib", ".git")), true);
    // The top of the workspace stays protected even so.
    const top = await sh(run, "git init -q .");
    assert.equal(top.error?.type, "sandbox_violation");
    assert.equal(await exists(nodePath.join(sandbox.workspace, ".git")), false);
  },
});

Deno.test({
  name: "the config, permissions and an earlier run's logs inside the workspace stay read-only",
  ignore: !HAS_BWRAP,
  fn: async () => {
    // The layout of the demo: the config, permissions.json and runs/ inside the workspace.
    await using run = await openConfined({
      config: { workspace: "../workspace", runs_dir: "../workspace/runs" },
      prepare: async (sandbox) => {
        await Deno.mkdir(nodePath.join(sandbox.workspace, "runs", "old", "logs"), {
          recursive: true,
        });
        await Deno.writeTextFile(
          nodePath.join(sandbox.workspace, "runs", "old", "logs", "tools.jsonl"),
          '{"tool":"fs.read_file"}\n',
        );
      },
    });
    const workspace = run.sandbox.workspace;
    const oldLog = nodePath.join(workspace, "runs", "old", "logs", "tools.jsonl");
    const before = await sha256File(oldLog);
    const result = await sh(
      run,
      "echo forged > runs/old/logs/tools.jsonl; echo x >> runs/old/logs/tools.jsonl; " +
        "mkdir -p runs/new && echo forged > runs/new/x",
    );
    assert.equal(result.ok, false);
    assert.equal(await sha256File(oldLog), before);
    assert.equal(await exists(nodePath.join(workspace, "runs", "new")), false);
    // Near miss: the run's own scratch folder is writable.
    const scratch = nodePath.relative(workspace, run.session.folder.paths.workspace);
    assertWorked(await sh(run, "echo ok > note.txt", scratch));
    assert.equal(
      await Deno.readTextFile(nodePath.join(run.session.folder.paths.workspace, "note.txt")),
      "ok\n",
    );
  },
});

Deno.test({
  name: "a workspace link to an outside file or folder reaches nothing under bwrap",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openConfined({
      prepare: async (sandbox) => {
        await Deno.writeTextFile(nodePath.join(sandbox.outside, "secret.txt"), SECRET);
        await Deno.mkdir(nodePath.join(sandbox.outside, "dir"));
        await Deno.symlink(
          nodePath.join(sandbox.outside, "secret.txt"),
          nodePath.join(sandbox.workspace, "leak"),
        );
        await Deno.symlink(
          nodePath.join(sandbox.outside, "dir"),
          nodePath.join(sandbox.workspace, "out"),
        );
        await Deno.writeTextFile(nodePath.join(sandbox.workspace, "inside.txt"), "inside\n");
      },
    });
    const read = await sh(run, "cat leak; tar -chf - leak | tar -xOf -; ls /");
    assert.ok(!JSON.stringify(read).includes(SECRET), "the outside file was read");
    const write = await sh(run, "echo x > out/new.txt; cp inside.txt out/copy.txt");
    assert.equal(write.ok, false);
    assert.deepEqual([...Deno.readDirSync(nodePath.join(run.sandbox.outside, "dir"))], []);
    // Near miss: the file inside reads, and nothing of the host but system folders is there.
    const inside = await sh(run, "cat inside.txt");
    assertWorked(inside);
    assert.equal(stdoutOf(inside), "inside\n");
    const root = await run.call("exec.run_command", { argv: ["ls", "/"] });
    const visible = stdoutOf(root).split("\n").filter((name) => name !== "");
    for (const name of visible) {
      assert.ok(
        ["bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "tmp", "usr"]
          .includes(name),
        `"/${name}" is visible to commands`,
      );
    }
  },
});

Deno.test({
  name: "sensitive files are masked for commands under bwrap unless the call names them",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openConfined({
      prepare: async (sandbox) => {
        await Deno.writeTextFile(nodePath.join(sandbox.workspace, ".env"), `TOKEN=${SECRET}\n`);
        await Deno.mkdir(nodePath.join(sandbox.workspace, "certs"));
        await Deno.writeTextFile(nodePath.join(sandbox.workspace, "certs", "server.pem"), SECRET);
        await Deno.writeTextFile(nodePath.join(sandbox.workspace, "notes.txt"), "visible TOKEN\n");
      },
    });
    const search = await sh(run, "grep -r TOKEN . ; tar -czf - . | tar -xzOf - ; cat certs/*");
    assert.ok(!JSON.stringify(search).includes(SECRET), "a masked file was read");
    assert.match(stdoutOf(search), /visible TOKEN/);
    // The file on the host is untouched.
    assert.equal(
      await Deno.readTextFile(nodePath.join(run.sandbox.workspace, ".env")),
      `TOKEN=${SECRET}\n`,
    );
    // Near miss: a call that names .env asks; once approved, it sees the file.
    const named = await run.call("exec.run_command", { argv: ["cat", ".env"] });
    assertWorked(named);
    assert.match(stdoutOf(named), /TOKEN=/);
  },
});

Deno.test({
  name: "a command that names .env ends approval_required when nobody approves, and reads nothing",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openTestRun({
      permissions: ALLOW_RUN_COMMAND,
      config: { commands: ["cat"], sandbox: { command_isolation: "bwrap" } },
      prepare: (sandbox) =>
        Deno.writeTextFile(nodePath.join(sandbox.workspace, ".env"), `TOKEN=${SECRET}\n`),
    });
    const result = await run.call("exec.run_command", { argv: ["cat", ".env"] });
    assert.equal(result.error?.type, "approval_required");
    assert.ok(!JSON.stringify(result).includes(SECRET));
  },
});

Deno.test({
  name:
    "git commit works with tools.git_write while config, hooks, info, commondir and alternates stay protected",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openConfined({
      tools: { git_write: true },
      prepare: async (sandbox) => {
        await prepareRepository(sandbox);
        await Deno.writeTextFile(nodePath.join(sandbox.workspace, "payload"), "../evil\n");
      },
    });
    const dotGit = nodePath.join(run.sandbox.workspace, ".git");
    const config = await sha256File(nodePath.join(dotGit, "config"));
    // Existing entries are read-only: writes fail, nothing changes.
    for (const target of [".git/config", ".git/hooks/pre-commit", ".git/info/attributes"]) {
      // Through sh, so that the argument analysis (which would refuse the path) is not what holds.
      const result = await sh(run, `cp payload ${target}`);
      assert.equal(result.ok, false, `${target} was written`);
    }
    assert.equal(await sha256File(nodePath.join(dotGit, "config")), config);
    assert.equal(await exists(nodePath.join(dotGit, "hooks", "pre-commit")), false);
    assert.equal(await exists(nodePath.join(dotGit, "info", "attributes")), false);
    // Missing entries are watched: created, moved out, the call fails.
    for (const target of [".git/commondir", ".git/objects/info/alternates"]) {
      const result = await sh(run, `cp payload ${target}`);
      assert.equal(result.error?.type, "sandbox_violation", `${target}: ${result.summary}`);
      assert.equal(await exists(nodePath.join(run.sandbox.workspace, target)), false);
    }
    // Near miss: add and commit write the index, objects and refs.
    await Deno.writeTextFile(nodePath.join(run.sandbox.workspace, "b.txt"), "beta\n");
    assertWorked(await run.call("exec.run_command", { argv: ["git", "add", "b.txt"] }));
    assertWorked(
      await run.call("exec.run_command", { argv: ["git", "commit", "-q", "-m", "second"] }),
    );
    const log = await new Deno.Command("git", {
      args: ["log", "--oneline"],
      cwd: run.sandbox.workspace,
      stdout: "piped",
    }).output();
    assert.match(new TextDecoder().decode(log.stdout), /second/);
  },
});

Deno.test({
  name: "git commit fails without tools.git_write and says how to allow it (.git read-only)",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openConfined({ prepare: prepareRepository });
    await Deno.writeTextFile(nodePath.join(run.sandbox.workspace, "b.txt"), "beta\n");
    const add = await run.call("exec.run_command", { argv: ["git", "add", "b.txt"] });
    assert.equal(add.ok, false);
    assert.match(add.error?.message ?? "", /tools\.git_write/);
    // Near miss: tar -czf out.tgz src writes into the workspace.
    assertWorked(
      await run.call("exec.run_command", { argv: ["tar", "-czf", "out.tgz", "src"] }),
    );
    assert.equal(await exists(nodePath.join(run.sandbox.workspace, "out.tgz")), true);
  },
});

Deno.test({
  name: "commands reach a local server only when sandbox.command_network grants the network",
  ignore: !HAS_BWRAP,
  fn: async () => {
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response("served\n"),
    );
    try {
      const url = `http://127.0.0.1:${server.addr.port}/`;
      {
        await using run = await openConfined();
        const blocked = await run.call("exec.run_command", {
          argv: ["curl", "-sS", "--max-time", "3", url],
        });
        assert.equal(blocked.ok, false);
        assert.ok(!stdoutOf(blocked).includes("served"));
      }
      await using run = await openConfined({
        config: { sandbox: { command_isolation: "bwrap", command_network: true } },
      });
      const reached = await run.call("exec.run_command", {
        argv: ["curl", "-sS", "--max-time", "3", url],
      });
      assertWorked(reached);
      assert.equal(stdoutOf(reached), "served\n");
    } finally {
      await server.shutdown();
    }
  },
});

Deno.test("under isolation none an archive extraction needs an approval and, without one, writes nothing", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_RUN_COMMAND,
    config: { commands: ["tar"], sandbox: { command_isolation: "none" } },
    prepare: prepareRepository,
  });
  await writeEvilArchive(run.sandbox, "evil.tar");
  const result = await run.call("exec.run_command", { argv: ["tar", "-xf", "evil.tar"] });
  assert.equal(result.error?.type, "approval_required");
  assert.equal(result.error?.details.rule, "runtime:unconfined-command");
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, ".git", "commondir")), false);
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "evil")), false);
  // Near miss: the grant the result names lets exactly that call run on a second try.
  const policy = run.session.policy.toolPolicy("exec.run_command");
  assert.equal(policy?.decision, "ask");
  assert.equal(policy?.rule, "runtime:unconfined-command");
});

Deno.test("isolation none runs an approved tar -czf out.tgz src (near miss)", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_RUN_COMMAND,
    approver: APPROVE_ALL,
    config: { commands: ["tar"], sandbox: { command_isolation: "none" } },
    prepare: prepareRepository,
  });
  const result = await run.call("exec.run_command", { argv: ["tar", "-czf", "out.tgz", "src"] });
  assertWorked(result);
  assert.equal((result.data as { isolation?: string }).isolation, "none");
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "out.tgz")), true);
});

Deno.test("isolation auto without a working bubblewrap turns command tools off and says why", async () => {
  const unusable = () =>
    Promise.resolve({
      usable: false as const,
      reason: 'Cannot run "/usr/bin/bwrap": setting up uid map: Permission denied',
    });
  await using run = await openTestRun({
    permissions: ALLOW_RUN_COMMAND,
    approver: APPROVE_ALL,
    probeBubblewrap: unusable,
    config: { commands: ["tar"], sandbox: { command_isolation: "auto" } },
    prepare: prepareRepository,
  });
  const result = await run.call("exec.run_command", { argv: ["tar", "-czf", "out.tgz", "src"] });
  assert.equal(result.error?.type, "tool_not_available");
  assert.equal(await exists(nodePath.join(run.sandbox.workspace, "out.tgz")), false);
  const policy = run.session.policy.toolPolicy("exec.run_command");
  assert.equal(policy?.available, false);
  assert.equal(policy?.rule, "sandbox:command-isolation");
  assert.match(policy?.reason ?? "", /apt-get install bubblewrap/);
  assert.match(policy?.reason ?? "", /user namespaces/);
  const events = await run.readLog("events");
  assert.ok(events.some((event) => event.type === "command_tools.disabled"));
  const errors = await run.readLog("errors");
  assert.ok(errors.some((entry) => String(entry.message).includes("command tools are off")));
});

Deno.test({
  name: "isolation auto with a working bubblewrap runs commands confined (near miss)",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openTestRun({
      permissions: ALLOW_RUN_COMMAND,
      config: { commands: ["tar"], sandbox: { command_isolation: "auto" } },
      prepare: prepareRepository,
    });
    const result = await run.call("exec.run_command", {
      argv: ["tar", "-czf", "out.tgz", "src"],
    });
    assertWorked(result);
    assert.equal((result.data as { isolation?: string }).isolation, "bwrap");
  },
});

const PYTHON_ON_PATH = await programOnPath("python3");
const HOME = Deno.env.get("HOME") ?? "";
const PYTHON_IN_HOME = PYTHON_ON_PATH !== null && HOME !== "" &&
  PYTHON_ON_PATH.startsWith(`${HOME}/.`);

Deno.test({
  name: "a program resolved in a home tool folder (a pyenv shim) runs under bwrap",
  ignore: !HAS_BWRAP || !PYTHON_IN_HOME,
  fn: async () => {
    await using run = await openConfined({ config: { commands: ["python3"] } });
    const result = await run.call("exec.run_command", {
      argv: ["python3", "-c", "print(6 * 7)"],
    });
    assertWorked(result);
    assert.equal(stdoutOf(result), "42\n");
  },
});

Deno.test({
  name: "an exit 127 under bwrap says which path the profile does not mount",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using run = await openConfined({
      prepare: (sandbox) =>
        Deno.writeTextFile(
          nodePath.join(sandbox.workspace, "run.sh"),
          "/opt/kagent-missing/tool --version\n",
        ),
    });
    const result = await run.call("exec.run_command", { argv: ["sh", "run.sh"] });
    assert.equal(result.error?.type, "exit_nonzero");
    assert.match(result.error?.message ?? "", /"\/opt\/kagent-missing\/tool" is not among them/);
    assert.match(result.error?.message ?? "", /sandbox\.read_roots/);
  },
});
