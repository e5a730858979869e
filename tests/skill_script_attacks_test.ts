/**
 * Black-box attack pairs for `skills.run_script` (attacks/CASES.md "Skills", and the survivors,
 * floods and environment of "Commands (argv)"): script and skill names that leave the skill's
 * scripts/ folder, scripts the agent could have written, processes that outlive their call,
 * floods, and bubblewrap confinement (no writes outside the write roots, no network).
 *
 * Skills the attacks aim at are built in `<root>/skills` by each test; the scripts whose code does
 * not matter to the attack are fixtures in `testdata/commands/skills`.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { openTestRun, type TestRun, type TestRunOptions } from "../src/testing/run_harness.ts";
import { writeTree } from "../src/testing/temp_sandbox.ts";
import { unconfinedCommandApprover } from "../src/testing/unconfined_approver.ts";
import type { ErrorType, ToolResult } from "../src/result/tool_result.ts";
import {
  assertAudited,
  assertDenied,
  assertLogsClean,
  assertRefused,
  assertWorked,
  exists,
  git,
  PATH_GUARD,
  processesWith,
  sha256File,
  sleepMarker,
  survivorsAfter,
  withEnvironment,
} from "./_attack_helpers.ts";

/** Skill fixtures, outside /tmp (bubblewrap mounts an empty /tmp) and outside every workspace. */
const FIXTURE_SKILLS = fileURLToPath(new URL("./testdata/commands/skills", import.meta.url));
const LISTEN_PY = fileURLToPath(new URL("./testdata/commands/listen.py", import.meta.url));
const PYTHON = "/usr/bin/python3";
const HAS_PYTHON = await exists(PYTHON);

/** skills.run_script is dangerous: only a rule naming it exactly turns it on. */
const ALLOW_RUN_SCRIPT = {
  rules: [{
    id: "allow-run-script",
    tools: ["skills.run_script"],
    // Narrowed to the interpreters the tests use (a scope-less allow of a dangerous tool asks).
    commands: ["sh", "bash", "python3", PYTHON],
    decision: "allow",
  }],
};
const SCRIPT_IN_WRITE_ROOT = { rule: "sandbox:script-in-write-root", layer: "sandbox" } as const;

type Isolation = "none" | "bwrap";

interface SkillRunOptions extends Omit<TestRunOptions, "tools"> {
  isolation?: Isolation;
  /** `skills.dirs` as written in the config (relative to `<root>/config`). */
  skillDirs?: string[];
  commands?: string[];
  /** The config's `tools` key. */
  toolSettings?: Record<string, unknown>;
}

/**
 * A run with skills.run_script enabled by a rule, `sh` allowlisted, isolation none by default
 * (every command then asks: the person at the terminal, played by the test approver, allows the
 * calls that ask only for that).
 */
function openSkillRun(options: SkillRunOptions = {}): Promise<TestRun> {
  const { isolation, skillDirs, commands, toolSettings, config, ...rest } = options;
  return openTestRun({
    permissions: ALLOW_RUN_SCRIPT,
    ...((isolation ?? "none") === "none" ? { approver: unconfinedCommandApprover } : {}),
    ...rest,
    config: {
      commands: commands ?? ["sh"],
      sandbox: { command_isolation: isolation ?? "none" },
      skills: { dirs: skillDirs ?? [FIXTURE_SKILLS] },
      ...(toolSettings === undefined ? {} : { tools: toolSettings }),
      ...config,
    },
  });
}

function runScript(
  run: TestRun,
  skill: string,
  script: string,
  args: string[] = [],
  extra: Record<string, unknown> = {},
): Promise<ToolResult> {
  return run.call("skills.run_script", { skill, script, args, ...extra });
}

function dataOf(result: ToolResult): Record<string, unknown> {
  assert.ok(typeof result.data === "object" && result.data !== null, "the result has no data");
  return result.data as Record<string, unknown>;
}

function streamOf(result: ToolResult, stream: "stdout" | "stderr"): string {
  const value = dataOf(result)[stream] as { text?: unknown } | undefined;
  assert.equal(typeof value?.text, "string", `the result has no ${stream} text`);
  return value?.text as string;
}

function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

// ---------------------------------------------------------------------------------------------
// Names that leave the scripts/ folder
// ---------------------------------------------------------------------------------------------

/** `<root>/skills/hello` with a real script, links out, and `$OUT/evil.sh` that leaves a marker. */
async function prepareEvilSkills(sandbox: { root: string; outside: string }): Promise<void> {
  const skills = nodePath.join(sandbox.root, "skills");
  const evil = `#!/bin/sh\ntouch ${nodePath.join(sandbox.outside, "marker-evil")}\n`;
  await writeTree(sandbox.outside, { "evil.sh": evil, "scripts/evil.sh": evil });
  await Deno.chmod(nodePath.join(sandbox.outside, "evil.sh"), 0o755);
  await writeTree(skills, {
    "hello/SKILL.md": "---\nname: hello\ndescription: Prints its arguments.\n---\n",
    "hello/scripts/hello.sh": await Deno.readTextFile(
      nodePath.join(FIXTURE_SKILLS, "hello/scripts/hello.sh"),
    ),
    // A name in Unicode letters, as the Agent Skills specification allows.
    "données/SKILL.md": "---\nname: données\ndescription: Prints its arguments.\n---\n",
    "données/scripts/hello.sh": await Deno.readTextFile(
      nodePath.join(FIXTURE_SKILLS, "hello/scripts/hello.sh"),
    ),
  });
  const scripts = nodePath.join(skills, "hello", "scripts");
  await Deno.symlink(nodePath.join(sandbox.outside, "evil.sh"), nodePath.join(scripts, "link.sh"));
  await Deno.symlink(sandbox.outside, nodePath.join(scripts, "dir-link"));
  // A whole scripts/ folder that is a link out of the skill folder.
  await Deno.mkdir(nodePath.join(skills, "linked"));
  await Deno.symlink(
    nodePath.join(sandbox.outside, "scripts"),
    nodePath.join(skills, "linked", "scripts"),
  );
}

Deno.test("skills.run_script refuses scripts that resolve outside the skill's scripts/ folder", async () => {
  await using run = await openSkillRun({ skillDirs: ["../skills"], prepare: prepareEvilSkills });
  const outside = run.sandbox.outside;
  const cases: [string, string, ErrorType[]][] = [
    ["hello", "/tmp/evil.sh", ["path_outside_sandbox"]],
    ["hello", nodePath.join(outside, "evil.sh"), ["path_outside_sandbox"]],
    ["hello", "../../../tmp/evil.sh", ["path_outside_sandbox", "file_not_found"]],
    ["hello", "../../../outside/evil.sh", ["path_outside_sandbox"]],
    ["hello", "../SKILL.md", ["path_outside_sandbox"]],
    ["hello", "link.sh", ["path_outside_sandbox"]],
    ["hello", "dir-link/evil.sh", ["path_outside_sandbox"]],
    ["hello", ".", ["path_outside_sandbox"]],
    ["hello", "hello.sh\0", ["path_outside_sandbox", "invalid_arguments"]],
    ["linked", "evil.sh", ["file_not_found", "path_outside_sandbox"]],
  ];
  let denied: ToolResult | undefined;
  for (const [skill, script, types] of cases) {
    const result = await runScript(run, skill, script);
    assert.equal(result.ok, false, `${skill}/${script} ran: ${result.summary}`);
    assert.ok(
      types.includes(result.error?.type as ErrorType),
      `${skill}/${script}: ${result.error?.type}: ${result.error?.message}`,
    );
    if (result.error?.type === "path_outside_sandbox") denied = result;
  }
  assert.ok(denied !== undefined);
  await assertAudited(run, denied, "tool.denied", PATH_GUARD);
  assert.equal(await exists(nodePath.join(outside, "marker-evil")), false);
});

Deno.test("skills.run_script refuses skill ids that are paths or not skill names", async () => {
  await using run = await openSkillRun({ skillDirs: ["../skills"], prepare: prepareEvilSkills });
  let last: ToolResult | undefined;
  for (
    const skill of [
      "../../home/u/.ssh",
      "/etc",
      "a/../../b",
      "",
      ".",
      "..",
      "hello/",
      "hello/../hello",
      "./hello",
      "HELLO",
      "hello\0",
      "../outside",
      // Unicode spellings: fullwidth dots, a digit with a full stop and fullwidth letters, which
      // NFKC turns into "..", "1." and "hello": a skill id must already be in NFKC.
      "\uFF0E\uFF0E",
      "\u2488",
      "\uFF48\uFF45\uFF4C\uFF4C\uFF4F",
      "donne\u0301es",
    ]
  ) {
    last = await runScript(run, skill, "hello.sh");
    assertRefused(last, "invalid_arguments");
  }
  assert.ok(last !== undefined);
  await assertAudited(run, last, "tool.failed");
  assert.equal(await exists(nodePath.join(run.sandbox.outside, "marker-evil")), false);
});

Deno.test("skills.run_script runs a real script with its arguments as separate words (near miss)", async () => {
  await using run = await openSkillRun({ skillDirs: ["../skills"], prepare: prepareEvilSkills });
  const touched = nodePath.join(run.sandbox.outside, "marker-evil");
  const args = ["a b", `$(touch ${touched})`, "--x", "", "`id`"];
  const result = await runScript(run, "hello", "hello.sh", args);
  assertWorked(result);
  assert.equal(streamOf(result, "stdout"), args.map((arg) => `[${arg}]\n`).join(""));
  assert.equal(await exists(touched), false);
  // A skill named in Unicode letters (NFC, as its SKILL.md writes it) runs too.
  const unicode = await runScript(run, "données", "hello.sh", ["x"]);
  assertWorked(unicode);
  assert.equal(streamOf(unicode, "stdout"), "[x]\n");
});

Deno.test("skills.run_script refuses a script in a skill folder inside the workspace", async () => {
  await using run = await openSkillRun({
    skillDirs: ["../workspace/skills"],
    prepare: (sandbox) =>
      writeTree(sandbox.workspace, {
        "skills/hello/SKILL.md": "---\nname: hello\ndescription: Planted.\n---\n",
        "skills/hello/scripts/hello.sh": `#!/bin/sh\ntouch ${
          nodePath.join(sandbox.outside, "marker-planted")
        }\n`,
      }),
  });
  const result = await runScript(run, "hello", "hello.sh");
  assertDenied(result, "permission_denied", SCRIPT_IN_WRITE_ROOT);
  await assertAudited(run, result, "tool.denied", SCRIPT_IN_WRITE_ROOT);
  assert.equal(await exists(nodePath.join(run.sandbox.outside, "marker-planted")), false);
});

for (const isolation of ["none", "bwrap"] as const) {
  Deno.test(`an agent cannot plant a script in a workspace skill folder and run it (isolation ${isolation})`, async () => {
    // The skill folder is protected from fs tools; every other way to write it must be closed too,
    // or skills.run_script runs whatever the agent put there.
    await using run = await openSkillRun({
      isolation,
      commands: ["sh", "cp", "git"],
      skillDirs: ["../workspace/skills"],
      permissions: {
        rules: [
          { id: "write", tools: ["fs.write_file"], paths: ["**"], decision: "allow" },
          {
            id: "commands",
            tools: ["exec.run_command"],
            commands: ["sh", "cp", "git"],
            decision: "allow",
          },
          { id: "scripts", tools: ["skills.run_script"], commands: ["sh"], decision: "allow" },
        ],
      },
      prepare: async (sandbox) => {
        await writeTree(sandbox.workspace, {
          "skills/hello/SKILL.md": "---\nname: hello\ndescription: Says hello.\n---\n",
          "skills/hello/scripts/hello.sh": "#!/bin/sh\necho hello\n",
        });
        await git(sandbox.workspace, "init", "-q", "-b", "main");
        await git(sandbox.workspace, "config", "user.email", "agent@example.invalid");
        await git(sandbox.workspace, "config", "user.name", "Agent");
        await git(sandbox.workspace, "add", ".");
        await git(sandbox.workspace, "commit", "-q", "-m", "skills");
      },
    });
    const planted = nodePath.join(run.sandbox.outside, "marker-planted");
    const target = "skills/hello/scripts/hello.sh";
    assertWorked(
      await run.call("fs.write_file", {
        path: "evil.sh",
        content: `#!/bin/sh\ntouch ${planted}\n`,
      }),
    );
    assert.equal(
      (await run.call("fs.write_file", { path: target, content: "x", overwrite: true })).ok,
      false,
      "fs.write_file wrote into the skill folder",
    );
    for (
      const argv of [
        ["cp", "evil.sh", target],
        ["git", "mv", "-f", "evil.sh", target],
        ["cp", "-r", "evil.sh", "skills/hello/scripts/new.sh"],
      ]
    ) {
      await run.call("exec.run_command", { argv });
    }
    // Through the index: no argument names the skill folder as a path of its own.
    const hashed = await run.call("exec.run_command", {
      argv: ["git", "hash-object", "-w", "evil.sh"],
    });
    const blob = hashed.ok ? streamOf(hashed, "stdout").trim() : "0".repeat(40);
    for (
      const argv of [
        ["git", "update-index", "--cacheinfo", `100755,${blob},${target}`],
        ["git", "checkout-index", "-a", "-f"],
        ["git", "checkout", "--", "."],
      ]
    ) {
      await run.call("exec.run_command", { argv });
    }
    for (const script of ["hello.sh", "new.sh"]) {
      const result = await runScript(run, "hello", script);
      if (result.ok) assert.equal(streamOf(result, "stdout"), "hello\n", `${script} was replaced`);
    }
    assert.equal(await exists(planted), false, "a script the agent planted ran");
  });
}

Deno.test("skills.run_script runs a .sh script through the default interpreter when commands does not name sh", async () => {
  // tools.interpreters defaults to {".sh": "sh", ".py": "python3"}: an interpreter listed there
  // is allowlisted for skill scripts without being in "commands" (which exec.run_command uses).
  await using run = await openSkillRun({ commands: ["echo"] });
  const result = await runScript(run, "hello", "hello.sh", ["via the default interpreter"]);
  assertWorked(result);
  assert.equal(streamOf(result, "stdout"), "[via the default interpreter]\n");
});

// ---------------------------------------------------------------------------------------------
// Environment
// ---------------------------------------------------------------------------------------------

async function bashEnvRun(
  toolSettings: Record<string, unknown>,
  body: (run: TestRun, marker: string) => Promise<void>,
): Promise<void> {
  const outside = await Deno.makeTempDir({ prefix: "kagent-bash-env-" });
  const marker = nodePath.join(outside, "marker-bash-env");
  try {
    await Deno.writeTextFile(nodePath.join(outside, "bash_env.sh"), `touch ${marker}\n`);
    await withEnvironment({
      BASH_ENV: nodePath.join(outside, "bash_env.sh"),
      ANTHROPIC_API_KEY: "canary-123-kagent",
    }, async () => {
      await using run = await openSkillRun({ commands: ["sh", "bash"], toolSettings });
      await body(run, marker);
    });
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
}

Deno.test("skills.run_script runs bash scripts without the runtime's BASH_ENV", async () => {
  await bashEnvRun({}, async (run, marker) => {
    const result = await runScript(run, "bash-env", "hello.bash");
    assertWorked(result);
    assert.equal(streamOf(result, "stdout"), "bash ran\n");
    assert.equal(await exists(marker), false, "bash sourced the runtime's BASH_ENV");
    await assertLogsClean(run, ["canary-123-kagent"]);
  });
});

Deno.test("bash scripts do source BASH_ENV when tools.env names it exactly (near miss: the test is live)", async () => {
  await bashEnvRun({ env: ["BASH_ENV"] }, async (run, marker) => {
    assertWorked(await runScript(run, "bash-env", "hello.bash"));
    assert.equal(await exists(marker), true, "BASH_ENV was not passed");
  });
});

// ---------------------------------------------------------------------------------------------
// Survivors
// ---------------------------------------------------------------------------------------------

const SURVIVOR_TIMEOUT_MS = 2000;
/** The kill grace (2 s) plus 1.5 s for the drain and the pipeline. */
const LATE_MS = 2000 + 1500;

const SURVIVORS: { isolation: Isolation; script: string; marker: string }[] = [
  { isolation: "none", script: "trap.sh", marker: sleepMarker("600.4242") },
  { isolation: "none", script: "wait.sh", marker: sleepMarker("600.4343") },
  { isolation: "bwrap", script: "trap.sh", marker: sleepMarker("600.4244") },
  { isolation: "bwrap", script: "wait.sh", marker: sleepMarker("600.4344") },
];

for (const { isolation, script, marker } of SURVIVORS) {
  Deno.test(`skills.run_script leaves no process of ${script} alive after its timeout (isolation ${isolation})`, async () => {
    assert.deepEqual(await processesWith(marker), [], "a process from an earlier run is alive");
    await using run = await openSkillRun({ isolation });
    const started = performance.now();
    const pending = runScript(run, "survive", script, [marker], {
      timeout_ms: SURVIVOR_TIMEOUT_MS,
    });
    await delay(SURVIVOR_TIMEOUT_MS / 2);
    assert.ok((await processesWith(marker)).length > 0, "the script started no marked process");
    const result = await pending;
    const elapsed = performance.now() - started;
    assertRefused(result, "timeout");
    assert.equal(result.error?.details.timed_out, true);
    assert.equal(dataOf(result).isolation, isolation);
    assert.ok(elapsed >= SURVIVOR_TIMEOUT_MS - 50, `returned after ${elapsed} ms`);
    assert.ok(elapsed <= SURVIVOR_TIMEOUT_MS + LATE_MS, `returned after ${elapsed} ms`);
    assert.deepEqual(await survivorsAfter(marker), [], `processes marked ${marker} survived`);
    await assertAudited(run, result, "tool.failed");
  });
}

for (const isolation of ["none", "bwrap"] as const) {
  Deno.test(`skills.run_script leaves no background process alive after a script exits (isolation ${isolation})`, async () => {
    const marker = isolation === "none" ? sleepMarker("600.4545") : sleepMarker("600.4546");
    await using run = await openSkillRun({ isolation });
    const result = await runScript(run, "survive", "daemon.sh", [marker]);
    assertWorked(result);
    assert.deepEqual(await survivorsAfter(marker), [], `processes marked ${marker} survived`);
  });
}

for (const isolation of ["none", "bwrap"] as const) {
  for (
    const [script, what] of [
      ["double_fork.sh", "a double-forked orphan"],
      ["nohup.sh", "a nohup process"],
      ["setsid_trap.sh", "a process in its own session that ignores TERM"],
    ] as const
  ) {
    Deno.test(`skills.run_script leaves ${what} no way to outlive the call (isolation ${isolation})`, async () => {
      const marker = `600.48${isolation === "none" ? "1" : "2"}${script.length}`;
      await using run = await openSkillRun({ isolation });
      const result = await runScript(run, "survive", script, [marker]);
      assertWorked(result);
      assert.deepEqual(await survivorsAfter(marker), [], `processes marked ${marker} survived`);
      if (isolation === "none" && script === "setsid_trap.sh") {
        // The process left the call's process group, so only the sweep could find it: it did.
        // (The double fork and nohup stay in the group, which is killed after the script.)
        const swept = (await run.readLog("events")).filter((event) =>
          event.type === "command.swept"
        );
        assert.ok(swept.length > 0, "no command.swept event: nothing was left to kill");
      }
    });
  }
}

Deno.test("skills.run_script under bwrap leaves no process alive that left the process group", async () => {
  const marker = sleepMarker("600.4747");
  await using run = await openSkillRun({ isolation: "bwrap" });
  const result = await runScript(run, "survive", "escape.sh", [marker], {
    timeout_ms: SURVIVOR_TIMEOUT_MS,
  });
  assertRefused(result, "timeout");
  assert.deepEqual(await survivorsAfter(marker), [], `processes marked ${marker} survived`);
});

// ---------------------------------------------------------------------------------------------
// Floods
// ---------------------------------------------------------------------------------------------

Deno.test("skills.run_script keeps a stderr flood as a capped artifact and stops it on time", async () => {
  const maxArtifact = 8 * 1024 * 1024;
  const stderrLimit = 2048;
  await using run = await openSkillRun({
    config: { limits: { max_artifact_bytes: maxArtifact } },
    toolSettings: { stderr_limit_bytes: stderrLimit },
  });
  const started = performance.now();
  const result = await runScript(run, "flood", "stderr.sh", [], { timeout_ms: 3000 });
  const elapsed = performance.now() - started;
  assertRefused(result, "timeout");
  assert.ok(elapsed <= 3000 + LATE_MS, `returned after ${elapsed} ms`);
  const stderr = dataOf(result).stderr as { truncated: boolean; bytes: number };
  assert.equal(stderr.truncated, true);
  assert.ok(stderr.bytes > maxArtifact, `only ${stderr.bytes} bytes of stderr`);
  const inline = new TextEncoder().encode(result.output).byteLength;
  assert.ok(inline <= stderrLimit + 1024, `${inline} bytes inline`);
  const artifact = result.artifacts[0];
  assert.ok(artifact !== undefined, "no artifact for the flood");
  assert.ok(result.output.includes(`stderr ${artifact.ref}`), result.output.slice(-300));
  const path = nodePath.join(run.session.folder.dir, artifact.ref);
  const size = (await Deno.stat(path)).size;
  assert.equal(size, artifact.bytes);
  assert.ok(size <= maxArtifact && size > stderrLimit, `artifact of ${size} bytes`);
  assert.equal(await sha256File(path), artifact.sha256);
});

// ---------------------------------------------------------------------------------------------
// Bubblewrap confinement
// ---------------------------------------------------------------------------------------------

/**
 * Opens the run with its sandbox in /var/tmp, on the host file system. bwrap hides /tmp behind an
 * empty tmpfs, where a write "succeeds" and vanishes: a test sandbox there proves nothing about
 * which host paths a command may write.
 */
async function openHostBackedRun(options: SkillRunOptions): Promise<TestRun> {
  const run = await withEnvironment({ TMPDIR: "/var/tmp" }, () => openSkillRun(options));
  assert.ok(run.sandbox.root.startsWith("/var/tmp/"), run.sandbox.root);
  return run;
}

const WRITTEN = "written by a skill script";

Deno.test("skills.run_script under bwrap cannot write outside the write roots", async () => {
  await using run = await openHostBackedRun({ isolation: "bwrap" });
  const targets = [
    nodePath.join(run.sandbox.outside, "bw.txt"),
    nodePath.join(run.sandbox.root, "bw.txt"),
    nodePath.join(run.configDir, "permissions.json"),
    nodePath.join(run.configDir, "agent.jsonc"),
  ];
  for (const target of targets) {
    const before = await exists(target) ? await Deno.readTextFile(target) : null;
    const result = await runScript(run, "writer", "append.sh", target.split("/"));
    assertRefused(result, "exit_nonzero");
    assert.equal(await exists(target) ? await Deno.readTextFile(target) : null, before, target);
  }
});

Deno.test("skills.run_script under bwrap writes into the workspace (near miss)", async () => {
  await using run = await openHostBackedRun({ isolation: "bwrap" });
  const target = nodePath.join(run.sandbox.workspace, "bw.txt");
  const result = await runScript(run, "writer", "append.sh", target.split("/"));
  assertWorked(result);
  assert.equal(dataOf(result).isolation, "bwrap");
  assert.equal(await Deno.readTextFile(target), `${WRITTEN}\n`);
  const deliverable = nodePath.join(run.session.folder.paths.deliverables, "report.txt");
  assertWorked(await runScript(run, "writer", "append.sh", deliverable.split("/")));
  assert.equal(await Deno.readTextFile(deliverable), `${WRITTEN}\n`);
});

Deno.test("skills.run_script under bwrap cannot write the run's audit files", async () => {
  await using run = await openHostBackedRun({ isolation: "bwrap" });
  const paths = run.session.folder.paths;
  for (
    const target of [
      paths.events,
      paths.toolsLog,
      paths.errorsLog,
      paths.policy,
      nodePath.join(run.session.folder.dir, "forged.txt"),
      nodePath.join(paths.artifacts, "forged.txt"),
    ]
  ) {
    const result = await runScript(run, "writer", "append.sh", target.split("/"));
    assertRefused(result, "exit_nonzero");
    if (await exists(target)) {
      assert.ok(
        !(await Deno.readTextFile(target)).includes(WRITTEN),
        `the script wrote "${target}"`,
      );
    }
  }
});

Deno.test("skills.run_script under bwrap cannot write the workspace's .git/hooks or .git/config", async () => {
  await using run = await openHostBackedRun({
    isolation: "bwrap",
    prepare: async (sandbox) => {
      await git(sandbox.workspace, "init", "-q", "-b", "main");
    },
  });
  const dotGit = nodePath.join(run.sandbox.workspace, ".git");
  const config = nodePath.join(dotGit, "config");
  const configBefore = await Deno.readTextFile(config);
  for (const target of [nodePath.join(dotGit, "hooks", "pre-commit"), config]) {
    const result = await runScript(run, "writer", "append.sh", target.split("/"));
    assertRefused(result, "exit_nonzero");
  }
  assert.equal(await exists(nodePath.join(dotGit, "hooks", "pre-commit")), false);
  assert.equal(await Deno.readTextFile(config), configBefore);
});

Deno.test("skills.run_script under bwrap runs a script whose skill folder is under /tmp", async () => {
  // bwrap mounts an empty tmpfs on /tmp: a skill folder there (like this test sandbox's) must be
  // bound into the sandbox, or every script of it fails to open.
  await using run = await openSkillRun({
    isolation: "bwrap",
    skillDirs: ["../skills"],
    prepare: prepareEvilSkills,
  });
  assert.ok(run.sandbox.root.startsWith("/tmp/"), "the sandbox is not under /tmp");
  const result = await runScript(run, "hello", "hello.sh", ["under tmp"]);
  assertWorked(result);
  assert.equal(streamOf(result, "stdout"), "[under tmp]\n");
});

/** Starts the listener fixture; resolves with its port. */
async function listen(): Promise<{ port: number; stop: () => Promise<void> }> {
  const child = new Deno.Command(PYTHON, {
    args: [LISTEN_PY],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
  }
  reader.releaseLock();
  const port = Number(text.trim());
  const stop = async () => {
    await child.stdin.close().catch(() => {});
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await child.stdout.cancel().catch(() => {});
    await child.status;
  };
  if (!Number.isInteger(port) || port <= 0) {
    await stop();
    throw new Error(`the listener printed "${text}" instead of a port`);
  }
  return { port, stop };
}

for (const isolation of ["none", "bwrap"] as const) {
  const what = isolation === "bwrap"
    ? "cannot connect to a local port under bwrap"
    : "connects to a local port without isolation (near miss)";
  Deno.test({
    name: `skills.run_script ${what}`,
    ignore: !HAS_PYTHON,
    fn: async () => {
      const listener = await listen();
      try {
        await using run = await openSkillRun({
          isolation,
          commands: ["sh", PYTHON],
          toolSettings: { interpreters: { ".sh": "sh", ".py": PYTHON } },
        });
        const result = await runScript(run, "net", "connect.py", [String(listener.port)]);
        if (isolation === "none") {
          assertWorked(result);
          assert.equal(streamOf(result, "stdout"), "CONNECTED hello\n");
        } else {
          assertRefused(result, "exit_nonzero");
          assert.equal(result.error?.details.exit_code, 3, result.error?.message);
          assert.match(streamOf(result, "stdout"), /^NETFAIL /);
        }
      } finally {
        await listener.stop();
      }
    },
  });
}
