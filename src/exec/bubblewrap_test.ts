import assert from "node:assert/strict";
import { join } from "node:path";
import { buildBwrapArgs, type BwrapPlan, probeBubblewrap } from "./bubblewrap.ts";
import { hostSystemMounts } from "./system_mounts.ts";
import { type CommandSpec, runConfined } from "./spawn_confined.ts";
import {
  baseSpec,
  BUBBLEWRAP_MISSING,
  BWRAP,
  BWRAP_PROBE,
  killProcessesWith,
  listenLocally,
  processesWith,
  SH,
  sleepMarker,
  tempDir,
} from "./_test_support.ts";

const SYSTEM = hostSystemMounts();

function plan(writablePaths: string[], extra: Partial<BwrapPlan> = {}): BwrapPlan {
  return {
    mode: "bwrap",
    bwrapPath: BWRAP,
    system: SYSTEM,
    writablePaths,
    network: false,
    ...extra,
  };
}

/** A plan whose system part is just /usr, for exact argument lists. */
function bare(writablePaths: string[], extra: Partial<BwrapPlan> = {}): BwrapPlan {
  return plan(writablePaths, {
    system: [
      { kind: "ro-bind", path: "/usr", source: "/usr" },
      { kind: "symlink", path: "/bin", target: "usr/bin" },
    ],
    ...extra,
  });
}

/** A spec confined to `writable`, with HOME and TMPDIR inside it. */
function confined(
  program: string,
  args: string[],
  writable: string,
  overrides: Partial<CommandSpec> = {},
): CommandSpec {
  return baseSpec(program, args, writable, { isolation: plan([writable]), ...overrides });
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** A workspace under /tmp (as in the test sandboxes) and a folder outside it, both removed after. */
async function withFolders(
  body: (workspace: string, outsideTmp: string, outsideVar: string) => Promise<void>,
): Promise<void> {
  const root = await tempDir("kagent-bwrap-");
  const outsideVar = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "kagent-bwrap-" }),
  );
  try {
    await Deno.mkdir(join(root, "workspace"));
    await Deno.mkdir(join(root, "outside"));
    await body(join(root, "workspace"), join(root, "outside"), outsideVar);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outsideVar, { recursive: true });
  }
}

Deno.test("buildBwrapArgs builds a root of system mounts and roots only, never the host's /", () => {
  const args = buildBwrapArgs(bare(["/tmp/run/workspace", "/tmp/run/out/"]), {
    cwd: "/tmp/run/workspace",
    program: "/usr/bin/git",
    args: ["status", "--short"],
    home: "/tmp/run/home",
    tmpDir: "/tmp/run/tmp",
  });
  assert.deepEqual(args, [
    ...["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin"],
    ...["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"],
    ...["--bind", "/tmp/run/workspace", "/tmp/run/workspace"],
    ...["--bind", "/tmp/run/out", "/tmp/run/out"],
    ...["--bind", "/tmp/run/home", "/tmp/run/home"],
    ...["--bind", "/tmp/run/tmp", "/tmp/run/tmp"],
    ...[
      "--remount-ro",
      "/",
      "--unshare-all",
      "--unshare-pid",
      "--cap-drop",
      "ALL",
      "--new-session",
      "--die-with-parent",
    ],
    ...["--chdir", "/tmp/run/workspace", "--", "/usr/bin/git", "status", "--short"],
  ]);
});

Deno.test("buildBwrapArgs shares the network only when the plan asks for it", () => {
  const target = { cwd: "/", program: "/usr/bin/true", args: [] };
  assert.ok(!buildBwrapArgs(plan([]), target).includes("--share-net"));
  const shared = buildBwrapArgs(plan([], { network: true }), target);
  assert.equal(shared[shared.indexOf("--unshare-all") + 1], "--share-net");
});

Deno.test("buildBwrapArgs mounts parents before children when readable and writable paths nest", () => {
  const args = buildBwrapArgs(
    bare(["/srv/work", "/srv/work/.git/objects"], {
      readablePaths: ["/srv/work/.git", "/srv"],
      maskedPaths: [{ path: "/srv/work/.env", type: "file" }, {
        path: "/srv/work/keys",
        type: "directory",
      }],
    }),
    { cwd: "/srv/work", program: "/usr/bin/true", args: [] },
  );
  const binds = args.slice(12, args.indexOf("--unshare-all"));
  assert.deepEqual(binds, [
    ...["--ro-bind", "/srv", "/srv"],
    ...["--bind", "/srv/work", "/srv/work"],
    ...["--ro-bind", "/srv/work/.git", "/srv/work/.git"],
    ...["--bind", "/srv/work/.git/objects", "/srv/work/.git/objects"],
    ...["--ro-bind", "/dev/null", "/srv/work/.env"],
    ...["--tmpfs", "/srv/work/keys", "--remount-ro", "/srv/work/keys"],
    ...["--remount-ro", "/"],
  ]);
});

Deno.test("buildBwrapArgs keeps a path read-only when it is both readable and writable", () => {
  const args = buildBwrapArgs(bare(["/srv/work"], { readablePaths: ["/srv/work"] }), {
    cwd: "/srv/work",
    program: "/usr/bin/true",
    args: [],
  });
  assert.ok(args.join(" ").includes("--ro-bind /srv/work /srv/work"));
  assert.ok(!args.includes("--bind"));
});

Deno.test("buildBwrapArgs starts the program through prlimit when a process limit is set", () => {
  const args = buildBwrapArgs(
    bare(["/srv/work"], { processLimit: { prlimitPath: "/usr/bin/prlimit", max: 64 } }),
    { cwd: "/srv/work", program: "/usr/bin/true", args: ["x"] },
  );
  assert.deepEqual(args.slice(args.indexOf("--") + 1), [
    "/usr/bin/prlimit",
    "--nproc=64",
    "--",
    "/usr/bin/true",
    "x",
  ]);
});

Deno.test("buildBwrapArgs throws TypeError when a path is relative", () => {
  const target = { cwd: "/", program: "/usr/bin/true", args: [] };
  assert.throws(() => buildBwrapArgs(plan(["work"]), target), TypeError);
  assert.throws(() => buildBwrapArgs(plan([]), { ...target, cwd: "." }), TypeError);
  assert.throws(() => buildBwrapArgs(plan([]), { ...target, args: ["a\0b"] }), TypeError);
});

Deno.test("probeBubblewrap reports usable here and unusable when bwrap is missing", async () => {
  assert.deepEqual(BWRAP_PROBE, { usable: true }, "bubblewrap is expected to work on this machine");
  const missing = await probeBubblewrap("/nonexistent/bwrap");
  assert.equal(missing.usable, false);
  assert.match(missing.usable ? "" : missing.reason, /^Cannot start "\/nonexistent\/bwrap": /);
});

Deno.test("runConfined under bwrap cannot write outside the writable paths but can inside", {
  ignore: BUBBLEWRAP_MISSING !== null,
}, async () => {
  await withFolders(async (workspace, outsideTmp, outsideVar) => {
    for (
      const target of [join(outsideTmp, "marker"), join(outsideVar, "marker"), "/marker-kagent"]
    ) {
      const outcome = await runConfined(confined("/usr/bin/touch", [target], workspace));
      assert.notEqual(outcome.exit_code, 0, `touch ${target} worked`);
      assert.equal(await exists(target), false);
    }
    // Near miss: the workspace under /tmp, HOME and TMPDIR are writable.
    const home = join(workspace, "home");
    await Deno.mkdir(home);
    const inside = await runConfined(
      confined(SH, ["-c", 'touch inside "$HOME/h" && echo ok'], workspace, {
        env: { PATH: "/usr/bin:/bin", HOME: home, TMPDIR: workspace },
      }),
    );
    assert.equal(inside.stdout.text, "ok\n", inside.stderr.text);
    assert.equal(await exists(join(workspace, "inside")), true);
    assert.equal(await exists(join(home, "h")), true);
  });
});

Deno.test(
  "runConfined under bwrap cannot connect to a local port unless the plan shares the network",
  { ignore: BUBBLEWRAP_MISSING !== null },
  async () => {
    const listener = await listenLocally();
    try {
      await withFolders(async (workspace) => {
        const port = String(listener.port);
        const connect = [
          "-c",
          "import socket, sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=3); print('connected')",
          port,
        ];
        const blocked = await runConfined(confined("/usr/bin/python3", connect, workspace));
        assert.notEqual(blocked.exit_code, 0);
        assert.equal(blocked.stdout.text, "");
        assert.match(blocked.stderr.text, /Error/);
        // Near miss: the same connection works with network: true.
        const shared = await runConfined(
          confined("/usr/bin/python3", connect, workspace, {
            isolation: plan([workspace], { network: true }),
          }),
        );
        assert.equal(shared.stdout.text, "connected\n", shared.stderr.text);
        assert.equal(shared.exit_code, 0);
      });
    } finally {
      await listener.close();
    }
  },
);

for (
  const [name, script] of [
    ["ignores TERM in a background subshell", "(trap '' TERM; sleep MARK) & sleep MARK"],
    ["waits on a background sleep", "sleep MARK & wait"],
    ["starts a new session that keeps stdout open", "setsid sleep MARK & sleep MARK"],
  ] as const
) {
  Deno.test(`runConfined under bwrap kills every descendant on timeout when the command ${name}`, {
    ignore: BUBBLEWRAP_MISSING !== null,
  }, async () => {
    await withFolders(async (workspace) => {
      const marker = sleepMarker();
      try {
        const started = performance.now();
        const outcome = await runConfined(
          confined(SH, ["-c", script.replaceAll("MARK", marker)], workspace, { timeoutMs: 2000 }),
        );
        const elapsed = performance.now() - started;
        assert.equal(outcome.timed_out, true);
        assert.equal(outcome.isolation, "bwrap");
        assert.ok(elapsed >= 2000 && elapsed < 2000 + 2000 + 1500, `returned after ${elapsed} ms`);
        assert.deepEqual(await processesWith(marker), []);
      } finally {
        await killProcessesWith(marker);
      }
    });
  });
}

Deno.test("runConfined under bwrap reports spawn_error when the sandbox cannot be built", {
  ignore: BUBBLEWRAP_MISSING !== null,
}, async () => {
  await withFolders(async (workspace) => {
    const missing = join(workspace, "missing");
    const outcome = await runConfined(
      baseSpec("/usr/bin/true", [], workspace, { isolation: plan([workspace, missing]) }),
    );
    assert.equal(outcome.exit_code, null);
    assert.match(
      outcome.spawn_error ?? "",
      /^Cannot start "\/usr\/bin\/true" in the bwrap sandbox: /,
    );
    // Near miss: the same command with existing paths runs.
    const runs = await runConfined(
      baseSpec("/usr/bin/true", [], workspace, { isolation: plan([workspace]) }),
    );
    assert.equal(runs.spawn_error, null);
    assert.equal(runs.exit_code, 0);
  });
});
