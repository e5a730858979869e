/**
 * `exec.run_command ["true"]` through the whole pipeline with isolation none and under bubblewrap
 * (`KAGENT_BENCH_BWRAP=0` leaves the bubblewrap rows out), against a bare
 * `Deno.Command("true").output()` measured in the same rounds: the variants take turns, one call
 * each per round, and each row is the median of its rounds (a shared, noisy machine moves every
 * row alike). Optionally the same pipeline from another tree (e.g. the commit before a change),
 * loaded in this process beside this one:
 *
 * ```sh
 * git archive <commit> src | tar -x -C /tmp/before   # a copy of the other tree's src/
 * deno run --unstable-worker-options --allow-all bench/run_command_compare.ts [rounds] [/tmp/before]
 * ```
 *
 * Prints one line per row: the median in ms and its ratio to the bare spawn. Also times, alone,
 * the reader of each sweep round: `ps … e`, `sh` + `grep` over `/proc/<pid>/environ`, and the
 * run's long-lived `perl` scanner (`src/exec/environment_scanner.ts`).
 *
 * @module
 */

import { EnvironmentScanner, hostSystemMounts, sweepMarked } from "../src/exec/mod.ts";
import { buildBwrapArgs } from "../src/exec/bubblewrap.ts";
import { unconfinedCommandApprover } from "../src/testing/unconfined_approver.ts";

interface PipelineRun {
  call(name: string, args: Record<string, unknown>): Promise<{ ok: boolean; output: string }>;
  close(): Promise<void>;
}

const rounds = Number(Deno.args[0] ?? 200);
const otherTree = Deno.args[1] ?? null;

/**
 * Opens a run of `root`'s pipeline that may run `true`: unconfined (the test approver says yes),
 * or under bubblewrap (the rule allows it outright).
 */
async function openRun(root: string, isolation: "none" | "bwrap"): Promise<PipelineRun> {
  const harness = await import(new URL("src/testing/run_harness.ts", root).href);
  const run: PipelineRun = await harness.openTestRun({
    config: { commands: ["true"], sandbox: { command_isolation: isolation } },
    permissions: {
      rules: [{ tools: ["exec.run_command"], commands: ["true"], decision: "allow" }],
    },
    approver: unconfinedCommandApprover,
  });
  const check = await run.call("exec.run_command", { argv: ["true"] });
  if (!check.ok) throw new Error(`Cannot benchmark the pipeline of ${root}: ${check.output}`);
  return run;
}

const here = new URL("../", import.meta.url).href;
const bwrap = Deno.env.get("KAGENT_BENCH_BWRAP") !== "0";
const runs: Record<string, PipelineRun> = {
  "pipeline none (this tree)": await openRun(here, "none"),
};
if (bwrap) runs["pipeline bwrap (this tree)"] = await openRun(here, "bwrap");
if (otherTree !== null) {
  const other = `file://${otherTree.replace(/\/?$/, "/")}`;
  runs[`pipeline none (${otherTree})`] = await openRun(other, "none");
  if (bwrap) runs[`pipeline bwrap (${otherTree})`] = await openRun(other, "bwrap");
}
const ps = "/usr/bin/ps";
const reader = { shPath: "/bin/sh", grepPath: "/usr/bin/grep" };
const scanner = EnvironmentScanner.start("/usr/bin/perl");

const variants: Record<string, () => Promise<unknown>> = {
  "Deno.Command true (bare)": async () => {
    const output = await new Deno.Command("true").output();
    if (!output.success) throw new Error("Cannot run true");
  },
  ...(bwrap
    ? {
      // The floor under bubblewrap: bwrap itself, with the system mounts and nothing else.
      "bwrap true (bare sandbox)": async () => {
        const args = buildBwrapArgs(
          {
            mode: "bwrap",
            bwrapPath: "/usr/bin/bwrap",
            system: hostSystemMounts(),
            writablePaths: [],
            network: false,
          },
          { cwd: "/", program: "/usr/bin/true", args: [] },
        );
        const output = await new Deno.Command("/usr/bin/bwrap", { args, clearEnv: true }).output();
        if (!output.success) throw new Error("Cannot run true under bwrap");
      },
    }
    : {}),
  ...Object.fromEntries(
    Object.entries(runs).map(([name, run]) => [name, async () => {
      const result = await run.call("exec.run_command", { argv: ["true"] });
      if (!result.ok) throw new Error(`exec.run_command failed: ${result.output}`);
    }]),
  ),
  "sweep round alone: ps": () => sweepMarked("no-such-run/call", { psPath: ps }),
  "sweep round alone: sh + grep": () =>
    sweepMarked("no-such-run/call", { psPath: ps, environmentReader: reader }),
  "sweep round alone: the run's perl scanner": () =>
    sweepMarked("no-such-run/call", { psPath: ps, scanner }),
};

const times: Record<string, number[]> = {};
for (let round = 0; round < rounds + 10; round++) {
  for (const [name, run] of Object.entries(variants)) {
    const started = performance.now();
    await run();
    // The first 10 rounds warm up.
    if (round >= 10) (times[name] ??= []).push(performance.now() - started);
  }
}
for (const run of Object.values(runs)) await run.close();
scanner?.close();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? NaN;
const bare = median(times["Deno.Command true (bare)"] ?? []);
console.log(`${rounds} rounds, medians; load average ${Deno.loadavg().join(" ")}`);
for (const [name, values] of Object.entries(times)) {
  const value = median(values);
  console.log(
    `${name.padEnd(44)} ${value.toFixed(2).padStart(7)} ms  ${
      (value / bare).toFixed(2).padStart(6)
    }×`,
  );
}
