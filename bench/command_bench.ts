/**
 * Commands: what `runConfined` costs over a bare `Deno.Command`, and how much memory a 1 GiB
 * stdout flood takes.
 *
 * - `deno task bench` (or `deno bench … bench/command_bench.ts`): the spawn overhead group.
 * - `deno run --allow-all bench/command_bench.ts`: the flood (not timed by `Deno.bench`; one line
 *   per row with the duration and the process's peak RSS, `VmHWM`).
 *
 * @module
 */

import { join } from "node:path";
import { Redactor } from "../src/audit/redactor.ts";
import { probeBubblewrap } from "../src/exec/bubblewrap.ts";
import { hostSystemMounts } from "../src/exec/system_mounts.ts";
import { type CommandSpec, type IsolationPlan, runConfined } from "../src/exec/spawn_confined.ts";

const TRUE = "/usr/bin/true";
const BWRAP = "/usr/bin/bwrap";
const MiB = 1024 * 1024;

const runDir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent-bench-command-" }));
globalThis.addEventListener("unload", () => Deno.removeSync(runDir, { recursive: true }));
const probe = await probeBubblewrap(BWRAP);
/** The mount profile: system folders and /etc entries, the run folder writable, nothing else. */
const bwrap: IsolationPlan = {
  mode: "bwrap",
  bwrapPath: BWRAP,
  system: hostSystemMounts(),
  writablePaths: [runDir],
  network: false,
};
/** The profile before issue 10, for the ratio: the whole host read-only (`--ro-bind / /`). */
const wholeHost: IsolationPlan = {
  ...bwrap,
  system: [{ kind: "ro-bind", path: "/", source: "/" }],
};
const redactor = new Redactor({ secrets: ["canary-123-long-enough"] });

/** A spec with the config defaults: 64 KiB / 16 KiB inline, 100 MiB artifacts, redaction on. */
function spec(program: string, args: string[], isolation: IsolationPlan): CommandSpec {
  return {
    program,
    args,
    cwd: runDir,
    env: { PATH: "/usr/bin:/bin", HOME: runDir, TMPDIR: runDir },
    timeoutMs: 120_000,
    stdoutLimitBytes: 65_536,
    stderrLimitBytes: 16_384,
    artifact: { artifactsDir: join(runDir, "artifacts"), runDir, maxBytes: 100 * MiB },
    redact: (text) => redactor.redactText(text),
    isolation,
    setsidPath: "/usr/bin/setsid",
    killPath: "/usr/bin/kill",
  };
}

async function runTrue(isolation: IsolationPlan): Promise<void> {
  const outcome = await runConfined(spec(TRUE, [], isolation));
  if (outcome.exit_code !== 0) {
    throw new Error(`Cannot benchmark "${TRUE}": ${outcome.spawn_error ?? outcome.exit_code}`);
  }
}

// Checked once before timing: each row must actually run the program.
await runTrue({ mode: "none" });
if (probe.usable) await runTrue(bwrap);
else console.log(`note: bubblewrap is not usable here (${probe.reason}); its row is left out`);

Deno.bench({
  name: "Deno.Command true (bare)",
  group: "spawn overhead",
  baseline: true,
  async fn() {
    const output = await new Deno.Command(TRUE).output();
    if (!output.success) throw new Error(`Cannot run "${TRUE}"`);
  },
});

Deno.bench({
  name: "runConfined true (isolation none)",
  group: "spawn overhead",
  async fn() {
    await runTrue({ mode: "none" });
  },
});

if (probe.usable) {
  Deno.bench({
    name: "runConfined true (bwrap, mount profile)",
    group: "spawn overhead",
    async fn() {
      await runTrue(bwrap);
    },
  });
  Deno.bench({
    name: "runConfined true (bwrap, whole host read-only, before issue 10)",
    group: "spawn overhead",
    async fn() {
      await runTrue(wholeHost);
    },
  });
}

/** The process's peak resident set size (`VmHWM`) and current one (`VmRSS`), in bytes. */
function memory(): { peak: number; current: number } {
  const status = Deno.readTextFileSync("/proc/self/status");
  const field = (name: string) =>
    Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"))?.[1]) * 1024;
  return { peak: field("VmHWM"), current: field("VmRSS") };
}

const FLOOD = ["-c", "head -c 1073741824 /dev/zero | tr '\\0' a"];

/** Runs one flood row in this process and prints its line. */
async function flood(name: string, run: () => Promise<{ bytes: number; detail: string }>) {
  const before = memory();
  const started = performance.now();
  const { bytes, detail } = await run();
  const seconds = (performance.now() - started) / 1000;
  const after = memory();
  console.log(
    `${name.padEnd(40)} ${(bytes / MiB).toFixed(0)} MiB in ${seconds.toFixed(2)} s ` +
      `(${(bytes / MiB / seconds).toFixed(0)} MiB/s), peak RSS ${
        (before.peak / MiB).toFixed(1)
      } → ` +
      `${(after.peak / MiB).toFixed(1)} MiB (+${
        ((after.peak - before.peak) / MiB).toFixed(1)
      }); ${detail}`,
  );
}

async function confinedFlood(isolation: IsolationPlan, redact: boolean) {
  const base = spec("/usr/bin/sh", FLOOD, isolation);
  if (!redact) delete base.redact;
  const outcome = await runConfined(base);
  const artifact = outcome.artifacts[0];
  if (outcome.exit_code !== 0 || artifact === undefined) {
    throw new Error(`Cannot flood: ${JSON.stringify({ ...outcome, stdout: undefined })}`);
  }
  return {
    bytes: outcome.stdout.bytes,
    detail:
      `artifact ${(artifact.bytes / MiB).toFixed(1)} MiB (truncated: ${artifact.truncated}), ` +
      `inline ${outcome.stdout.text.length} chars`,
  };
}

const ROWS: Record<string, () => Promise<{ bytes: number; detail: string }>> = {
  "bare Deno.Command (for await)": async () => {
    const child = new Deno.Command("/usr/bin/sh", { args: FLOOD, stdout: "piped" }).spawn();
    let bytes = 0;
    for await (const chunk of child.stdout) bytes += chunk.length;
    await child.status;
    return { bytes, detail: "read and dropped" };
  },
  "runConfined (none, redaction on)": () => confinedFlood({ mode: "none" }, true),
  "runConfined (none, no redaction)": () => confinedFlood({ mode: "none" }, false),
  ...(probe.usable
    ? { "runConfined (bwrap, redaction on)": () => confinedFlood(bwrap, true) }
    : {}),
};

if (import.meta.main) {
  const row = Deno.args[0];
  if (row === undefined) {
    // Each row in a fresh process, so that one row's heap does not raise the next one's peak.
    console.log(`1 GiB stdout flood: sh ${FLOOD.join(" ")}`);
    for (const name of Object.keys(ROWS)) {
      const { success } = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", "--quiet", new URL(import.meta.url).pathname, name],
        stdout: "inherit",
        stderr: "inherit",
      }).output();
      if (!success) throw new Error(`Cannot run the flood row "${name}"`);
    }
  } else {
    const run = ROWS[row];
    if (run === undefined) throw new Error(`Cannot run the flood row "${row}": unknown row`);
    await flood(row, run);
  }
}
