/**
 * `exec.run_command ["true"]` through the whole pipeline (lookup, schema, allowlist, argument
 * analysis, policy, Worker, confined spawn, shaping, audit) against a bare `Deno.Command("true")`
 * in the same group, with isolation none (approved by the test approver, as a person would) and
 * with bubblewrap (the mount profile, its scan of the workspace included).
 *
 * `deno task bench` (or `deno bench --allow-all bench/run_command_bench.ts`).
 *
 * @module
 */

import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import { unconfinedCommandApprover } from "../src/testing/unconfined_approver.ts";
import { EnvironmentScanner, killProcessGroup, sweepMarked } from "../src/exec/mod.ts";

// Narrowed to the program: a rule that allows exec.run_command without narrowing asks each call.
const permissions = {
  rules: [{ tools: ["exec.run_command"], commands: ["true"], decision: "allow" }],
};
const runs: Record<string, TestRun> = {};
for (const isolation of ["none", "bwrap"] as const) {
  runs[isolation] = await openTestRun({
    config: { commands: ["true"], sandbox: { command_isolation: isolation } },
    permissions,
    // Under none every command asks: the test approver plays the person who says yes.
    ...(isolation === "none" ? { approver: unconfinedCommandApprover } : {}),
  });
  const check = await runs[isolation].call("exec.run_command", { argv: ["true"] });
  if (!check.ok) {
    throw new Error(`Cannot benchmark exec.run_command (${isolation}): ${check.output}`);
  }
}
globalThis.addEventListener("unload", () => {
  for (const run of Object.values(runs)) {
    run.session.close();
    Deno.removeSync(run.sandbox.root, { recursive: true });
  }
});

Deno.bench({
  name: "Deno.Command true (bare)",
  group: "exec.run_command",
  baseline: true,
  async fn() {
    const output = await new Deno.Command("true").output();
    if (!output.success) throw new Error("Cannot run true");
  },
});

for (const isolation of ["none", "bwrap"] as const) {
  Deno.bench({
    name: `exec.run_command ["true"] pipeline (${isolation})`,
    group: "exec.run_command",
    async fn() {
      const result = await runs[isolation]?.call("exec.run_command", { argv: ["true"] });
      if (!result?.ok) throw new Error(`exec.run_command failed: ${result?.output}`);
    },
  });
}

// What a call under isolation none does after the command exits, alone: the kill of the
// command's process group (now on the main thread, in-process; before, the Worker started the
// `kill` program) and one round of the sweep for processes that left the group, through each
// reader (the run's long-lived perl scanner, which a session uses when perl is there; sh + grep;
// ps).
const programPath = async (name: string) =>
  new TextDecoder().decode(
    (await new Deno.Command("sh", { args: ["-c", `command -v ${name}`], stdout: "piped" })
      .output()).stdout,
  ).trim();
const ps = await programPath("ps");
const reader = { shPath: await programPath("sh"), grepPath: await programPath("grep") };
const scanner = EnvironmentScanner.start(await programPath("perl"));
globalThis.addEventListener("unload", () => scanner?.close());
Deno.bench({
  name: "after exit: sweep round, the run's perl scanner",
  group: "exec.run_command",
  async fn() {
    await sweepMarked("no-such-run/", { psPath: ps, scanner, prefix: true });
  },
});
Deno.bench({
  name: "after exit: sweep round, sh + grep",
  group: "exec.run_command",
  async fn() {
    await sweepMarked("no-such-run/", { psPath: ps, environmentReader: reader, prefix: true });
  },
});
Deno.bench({
  name: "after exit: sweep round, ps",
  group: "exec.run_command",
  async fn() {
    await sweepMarked("no-such-run/", { psPath: ps, prefix: true });
  },
});
Deno.bench({
  name: "after exit: killProcessGroup (in-process, a group already gone)",
  group: "exec.run_command",
  fn() {
    killProcessGroup(2_147_483_646);
  },
});
Deno.bench({
  name: "before: kill -s KILL -- -<group> (the program, a group already gone)",
  group: "exec.run_command",
  async fn() {
    await new Deno.Command("kill", {
      args: ["-s", "KILL", "--", "-2147483646"],
      stderr: "null",
    }).output();
  },
});
