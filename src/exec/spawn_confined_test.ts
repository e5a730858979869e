import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { Redactor } from "../audit/redactor.ts";
import { type CommandOutcome, type CommandSpec, runConfined } from "./spawn_confined.ts";
import { killProcessGroup } from "./process_sweep.ts";
import {
  baseSpec,
  KILL,
  killProcessesWith,
  processesWith,
  SETSID,
  SH,
  sleepMarker,
  tempDir,
} from "./_test_support.ts";
import { exists } from "../testing/path_exists.ts";

const MiB = 1024 * 1024;

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await tempDir();
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("runConfined keeps shell metacharacters literal when arguments hold them", async () => {
  await withDir(async (dir) => {
    const marker = join(dir, "p");
    const attacks = [
      `$(touch ${marker})`,
      `\`touch ${marker}\``,
      `a\ntouch ${marker}`,
      `; touch ${marker}`,
    ];
    const outcome = await runConfined(baseSpec("/usr/bin/echo", attacks, dir));
    assert.equal(outcome.exit_code, 0);
    assert.equal(outcome.stdout.text, `${attacks.join(" ")}\n`);
    assert.equal(await exists(marker), false);
    // Near miss: touch run as the program itself does create the marker.
    const touched = await runConfined(baseSpec("/usr/bin/touch", [marker], dir));
    assert.equal(touched.exit_code, 0);
    assert.equal(await exists(marker), true);
  });
});

Deno.test("runConfined starts the child as the leader of its own process group and session", async () => {
  await withDir(async (dir) => {
    const outcome = await runConfined(
      baseSpec(SH, ["-c", 'set -- $(cut -d" " -f5,6 /proc/$$/stat); echo "$$ $1 $2 $PPID"'], dir),
    );
    const [pid, pgid, sid, parent] = outcome.stdout.text.trim().split(" ").map(Number);
    assert.ok(pid !== undefined && pid > 0, outcome.stdout.text);
    assert.equal(pgid, pid);
    assert.equal(sid, pid);
    // setsid executed the program itself: the parent is this process, not a setsid fork.
    assert.equal(parent, Deno.pid);
  });
});

Deno.test("runConfined passes only the given environment when the parent has more", async () => {
  await withDir(async (dir) => {
    const outcome = await runConfined(baseSpec("/usr/bin/env", [], dir, { env: { ONLY: "this" } }));
    assert.equal(outcome.stdout.text, "ONLY=this\n");
  });
});

for (
  const [name, script] of [
    ["ignores TERM in a background subshell", "(trap '' TERM; sleep MARK) & sleep MARK"],
    ["waits on a background sleep", "sleep MARK & wait"],
  ] as const
) {
  Deno.test(`runConfined kills every descendant on timeout when the command ${name}`, async () => {
    await withDir(async (dir) => {
      const marker = sleepMarker();
      const started = performance.now();
      try {
        const outcome = await runConfined(
          baseSpec(SH, ["-c", script.replaceAll("MARK", marker)], dir, { timeoutMs: 2000 }),
        );
        const elapsed = performance.now() - started;
        assert.equal(outcome.timed_out, true);
        assert.equal(outcome.aborted, false);
        assert.equal(outcome.exit_code, null);
        assert.ok(
          outcome.signal === "SIGTERM" || outcome.signal === "SIGKILL",
          outcome.signal ?? "",
        );
        assert.ok(elapsed >= 2000 && elapsed < 2000 + 2000 + 1500, `returned after ${elapsed} ms`);
        assert.deepEqual(await processesWith(marker), []);
      } finally {
        await killProcessesWith(marker);
      }
    });
  });
}

Deno.test("runConfined kills group members left behind when the leader exits normally", async () => {
  await withDir(async (dir) => {
    const marker = sleepMarker();
    try {
      const outcome = await runConfined(
        baseSpec(SH, ["-c", `sleep ${marker} >/dev/null 2>&1 & echo started`], dir),
      );
      assert.equal(outcome.exit_code, 0);
      assert.equal(outcome.timed_out, false);
      assert.equal(outcome.stdout.text, "started\n");
      assert.deepEqual(await processesWith(marker), []);
    } finally {
      await killProcessesWith(marker);
    }
  });
});

Deno.test("runConfined returns on time when a process that left the group keeps stdout open", async () => {
  await withDir(async (dir) => {
    const escaped = sleepMarker();
    const member = sleepMarker();
    try {
      const started = performance.now();
      const outcome = await runConfined(
        baseSpec(SH, ["-c", `setsid sleep ${escaped} & sleep ${member}`], dir, {
          timeoutMs: 1000,
          killGraceMs: 500,
        }),
      );
      const elapsed = performance.now() - started;
      assert.equal(outcome.timed_out, true);
      assert.ok(elapsed < 1000 + 500 + 1500, `returned after ${elapsed} ms`);
      assert.deepEqual(await processesWith(member), []);
      // The known limit of isolation none: a process that starts its own session survives
      // (bwrap's PID namespace contains it; see bubblewrap_test.ts).
      assert.equal((await processesWith(escaped)).length, 1);
    } finally {
      await killProcessesWith(escaped);
      await killProcessesWith(member);
    }
  });
});

Deno.test("runConfined reports aborted and kills the group when the signal aborts", async () => {
  await withDir(async (dir) => {
    const marker = sleepMarker();
    try {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 300);
      const started = performance.now();
      const outcome = await runConfined(
        baseSpec(SH, ["-c", `sleep ${marker}`], dir, { signal: controller.signal }),
      );
      clearTimeout(timer);
      assert.equal(outcome.aborted, true);
      assert.equal(outcome.timed_out, false);
      assert.ok(performance.now() - started < 2000);
      assert.deepEqual(await processesWith(marker), []);
      const before = await runConfined(
        baseSpec("/usr/bin/true", [], dir, { signal: controller.signal }),
      );
      assert.equal(before.aborted, true);
      assert.equal(before.exit_code, null);
    } finally {
      await killProcessesWith(marker);
    }
  });
});

for (
  const [name, program, args, stream] of [
    ["yes", "/usr/bin/yes", [], "stdout"],
    ['sh -c "yes >&2"', SH, ["-c", "yes >&2"], "stderr"],
    ["seq 1 1000000000", "/usr/bin/seq", ["1", "1000000000"], "stdout"],
  ] as const
) {
  Deno.test(`runConfined bounds memory and keeps a capped artifact when "${name}" floods`, async () => {
    await withDir(async (runDir) => {
      const artifactsDir = join(runDir, "artifacts");
      const redactor = new Redactor({ secrets: ["canary-123-long-enough"] });
      const started = performance.now();
      const outcome = await runConfined(baseSpec(program, [...args], runDir, {
        timeoutMs: 3000,
        artifact: { artifactsDir, runDir, maxBytes: 8 * MiB },
        redact: (text) => redactor.redactText(text),
      }));
      const elapsed = performance.now() - started;
      assert.equal(outcome.timed_out, true);
      assert.ok(elapsed >= 3000 && elapsed < 3000 + 1500, `returned after ${elapsed} ms`);
      const result = outcome[stream];
      assert.equal(result.truncated, true);
      assert.ok(result.bytes > 8 * MiB, `only ${result.bytes} bytes read`);
      assert.ok(new TextEncoder().encode(result.head + result.tail).length <= 4096);
      assert.equal(outcome.artifacts.length, 1);
      const [artifact] = outcome.artifacts;
      assert.ok(artifact !== undefined);
      assert.equal(artifact.stream, stream);
      assert.equal(artifact.truncated, true);
      assert.equal(artifact.original_bytes, result.bytes);
      assert.ok(artifact.bytes <= 8 * MiB && artifact.bytes > 8 * MiB - 4);
      const stored = await Deno.readFile(join(runDir, artifact.ref));
      assert.equal(stored.length, artifact.bytes);
      assert.equal(createHash("sha256").update(stored).digest("hex"), artifact.sha256);
      assert.equal(artifact.ref, `artifacts/${artifact.sha256}.txt`);
      assert.deepEqual([...Deno.readDirSync(artifactsDir)].length, 1);
    });
  });
}

Deno.test("runConfined writes no artifact when the output fits inline", async () => {
  await withDir(async (runDir) => {
    const artifactsDir = join(runDir, "artifacts");
    const outcome = await runConfined(baseSpec("/usr/bin/echo", ["small"], runDir, {
      artifact: { artifactsDir, runDir, maxBytes: MiB },
    }));
    assert.equal(outcome.stdout.text, "small\n");
    assert.deepEqual(outcome.artifacts, []);
    assert.equal(await exists(artifactsDir), false);
  });
});

Deno.test("runConfined reports the exit code and the signal when the program fails", async () => {
  await withDir(async (dir) => {
    const failed = await runConfined(baseSpec(SH, ["-c", "echo oops >&2; exit 3"], dir));
    assert.equal(failed.exit_code, 3);
    assert.equal(failed.signal, null);
    assert.equal(failed.stderr.text, "oops\n");
    assert.equal(failed.spawn_error, null);
    const killed = await runConfined(baseSpec(SH, ["-c", "kill -s KILL $$"], dir));
    assert.equal(killed.exit_code, null);
    assert.equal(killed.signal, "SIGKILL");
  });
});

Deno.test("runConfined reports spawn_error when the program or the folder is missing", async () => {
  await withDir(async (dir) => {
    const missing = await runConfined(baseSpec(join(dir, "nope"), [], dir));
    assert.equal(missing.exit_code, null);
    assert.equal(
      missing.spawn_error,
      `Cannot start "${join(dir, "nope")}": the program does not exist`,
    );
    const noFolder = await runConfined(baseSpec("/usr/bin/true", [], join(dir, "gone")));
    assert.match(noFolder.spawn_error ?? "", /the working folder ".*gone" does not exist$/);
    await Deno.writeTextFile(join(dir, "script"), "#!/bin/sh\necho hi\n");
    const notExecutable = await runConfined(baseSpec(join(dir, "script"), [], dir));
    assert.equal(
      notExecutable.spawn_error,
      `Cannot start "${join(dir, "script")}": permission denied`,
    );
    // Near miss: the same script made executable runs.
    await Deno.chmod(join(dir, "script"), 0o755);
    const runs = await runConfined(baseSpec(join(dir, "script"), [], dir));
    assert.equal(runs.spawn_error, null);
    assert.equal(runs.stdout.text, "hi\n");
  });
});

Deno.test("runConfined writes stdin then closes it, and gives /dev/null by default", async () => {
  await withDir(async (dir) => {
    const fed = await runConfined(baseSpec("/usr/bin/cat", [], dir, { stdin: "fed\n" }));
    assert.equal(fed.stdout.text, "fed\n");
    const empty = await runConfined(baseSpec("/usr/bin/cat", [], dir, { timeoutMs: 3000 }));
    assert.equal(empty.timed_out, false);
    assert.equal(empty.stdout.text, "");
  });
});

Deno.test("runConfined throws TypeError when the program or the folder is relative", async () => {
  await assert.rejects(() => runConfined(baseSpec("echo", [], "/")), TypeError);
  await assert.rejects(() => runConfined(baseSpec("/usr/bin/echo", [], "tmp")), TypeError);
  await assert.rejects(
    () => runConfined(baseSpec("/usr/bin/echo", [], "/", { timeoutMs: -1 })),
    RangeError,
  );
});

/**
 * Runs `spec` in a Worker allowed to run only setsid, kill and `programs`, to read and write only
 * `dir` (in a child Deno, which needs `--unstable-worker-options` for Worker permissions).
 */
async function runInNarrowedWorker(
  spec: CommandSpec,
  programs: string[],
  dir: string,
): Promise<{ outcome?: CommandOutcome; denoKill?: string; error?: string }> {
  const fixture = new URL("./_confined_worker_fixture.ts", import.meta.url).pathname;
  const request = JSON.stringify({ spec, programs, dir, setsidPath: SETSID, killPath: KILL });
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--unstable-worker-options", "--allow-all", fixture, request],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  return JSON.parse(text);
}

Deno.test("runConfined kills the group from a Worker where Deno.kill is refused", async () => {
  await withDir(async (dir) => {
    const marker = sleepMarker();
    try {
      const started = performance.now();
      const answer = await runInNarrowedWorker(
        baseSpec(SH, ["-c", `(trap '' TERM; sleep ${marker}) & sleep ${marker}`], dir, {
          timeoutMs: 1000,
          killGraceMs: 500,
        }),
        [SH],
        dir,
      );
      assert.equal(answer.error, undefined);
      assert.equal(answer.denoKill, "NotCapable");
      assert.equal(answer.outcome?.timed_out, true);
      assert.ok(performance.now() - started < 1000 + 500 + 1500);
      assert.deepEqual(await processesWith(marker), []);
      // Near miss: a command that ends by itself runs normally there.
      const echoed = await runInNarrowedWorker(baseSpec("/usr/bin/echo", ["hi"], dir), [
        "/usr/bin/echo",
      ], dir);
      assert.equal(echoed.outcome?.stdout.text, "hi\n");
    } finally {
      await killProcessesWith(marker);
    }
  });
});

Deno.test("runConfined reports spawn_error from a Worker that may not read the program's folder", async () => {
  await withDir(async (dir) => {
    const answer = await runInNarrowedWorker(
      baseSpec("/usr/bin/no-such-program", [], dir),
      [],
      dir,
    );
    assert.equal(answer.outcome?.exit_code, null);
    assert.equal(
      answer.outcome?.spawn_error,
      'Cannot start "/usr/bin/no-such-program": no such file or directory',
    );
  });
});

Deno.test("runConfined keeps this process's memory bounded while a command floods stdout", async () => {
  // Measured in a process of its own: deno test --parallel shares one process between files.
  const probe = new URL("./_flood_memory_probe.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    // --allow-all: Deno reads /proc/self/status only with every permission.
    args: ["run", "--allow-all", probe],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const { grew, bytes } = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.ok(bytes > 64 * MiB, `only ${bytes} bytes flowed: the flood did not happen`);
  assert.ok(grew < 64 * MiB, `peak RSS grew by ${(grew / MiB).toFixed(1)} MiB for ${bytes} bytes`);
});

Deno.test("runConfined with killGroupAfterExit false leaves the group to the caller and names it", async () => {
  await withDir(async (dir) => {
    const marker = sleepMarker();
    try {
      const outcome = await runConfined(
        baseSpec(SH, ["-c", `sleep ${marker} >/dev/null 2>&1 & echo started`], dir, {
          killGroupAfterExit: false,
        }),
      );
      assert.equal(outcome.exit_code, 0);
      const group = outcome.process_group_id;
      assert.ok(group !== null && group > 1, `process_group_id ${group}`);
      // The member is alive until the caller kills the group it was given.
      assert.equal((await processesWith(marker)).length, 1);
      assert.equal(killProcessGroup(group), true);
      for (let attempt = 0; attempt < 100 && (await processesWith(marker)).length > 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual(await processesWith(marker), []);
      // Near miss: a timeout is still ended here, whatever the option, and names no group.
      const late = await runConfined(
        baseSpec(SH, ["-c", `sleep ${marker}`], dir, {
          killGroupAfterExit: false,
          timeoutMs: 300,
          killGraceMs: 200,
        }),
      );
      assert.equal(late.timed_out, true);
      assert.equal(late.process_group_id, null);
      assert.deepEqual(await processesWith(marker), []);
    } finally {
      await killProcessesWith(marker);
    }
  });
});
