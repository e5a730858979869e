// Run as its own process by spawn_confined_test.ts: floods runConfined with `yes` for 2 s and
// prints how much this process's peak resident memory (VmHWM) grew, in bytes. A process of its
// own, because `deno test --parallel` shares one process between test files.
import { join } from "node:path";
import { runConfined } from "./spawn_confined.ts";

function peakBytes(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  return Number(status.match(/^VmHWM:\s+(\d+) kB/m)?.[1]) * 1024;
}

const runDir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent-flood-probe-" }));
try {
  const before = peakBytes();
  const outcome = await runConfined({
    program: "/usr/bin/yes",
    args: [],
    cwd: runDir,
    env: { PATH: "/usr/bin:/bin" },
    timeoutMs: 2000,
    stdoutLimitBytes: 65_536,
    stderrLimitBytes: 16_384,
    artifact: { artifactsDir: join(runDir, "artifacts"), runDir, maxBytes: 8 * 1024 * 1024 },
    redact: (text) => text.replaceAll("canary-123-long-enough", "[REDACTED]"),
    isolation: { mode: "none" },
    setsidPath: "/usr/bin/setsid",
    killPath: "/usr/bin/kill",
  });
  console.log(JSON.stringify({ grew: peakBytes() - before, bytes: outcome.stdout.bytes }));
} finally {
  Deno.removeSync(runDir, { recursive: true });
}
