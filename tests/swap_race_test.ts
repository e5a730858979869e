/**
 * Directory↔symlink swap (attacks/CASES.md, issue 10 point 3): a concurrent process exchanges a
 * workspace folder with a symlink to a folder outside every root (`renameat2(RENAME_EXCHANGE)`),
 * while the six fs tools work below that folder through the whole pipeline (tool Worker
 * included). The attack must leave no effect outside (no file created, replaced or deleted, no
 * temporary file left) and return no outside content or name; the near miss (the same calls once
 * the swapper stopped) must work.
 *
 * The swapper is a small python3 script (ctypes `renameat2`, flag 2). Without python3, or on a
 * system without `renameat2`, these tests are skipped with a printed reason.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { openTestRun, type TestRun } from "../src/testing/run_harness.ts";
import type { ToolResult } from "../src/result/tool_result.ts";
import { emptyWalkStats, PathGuard, walk } from "../src/sandbox/mod.ts";
import { CANARY } from "./_attack_helpers.ts";

/** Calls per tool with the swapper in a tight loop. */
const TRIES = 300;
/** Longest a swapper may live, in seconds: it stops itself, and `finally` kills it anyway. */
const SWAPPER_SECONDS = 240;

const SWAPPER = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
renameat2 = getattr(libc, "renameat2", None)
if renameat2 is None:
    print("no renameat2 in the C library", file=sys.stderr); sys.exit(3)
def exchange(a, b):
    if renameat2(-100, a, -100, b, 2) != 0:
        e = ctypes.get_errno(); print(os.strerror(e), file=sys.stderr); sys.exit(3)
a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
seconds, quiet, stop = float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
deadline = time.monotonic() + seconds
swaps = 0
while time.monotonic() < deadline and not os.path.exists(stop):
    if quiet > 0:
        # Intermittent: hold still with the real folder in place (folders settle, calls get
        # through), then a short burst of exchanges, in pairs.
        time.sleep(quiet)
        burst = time.monotonic() + 0.004
        while time.monotonic() < burst:
            exchange(a, b); exchange(a, b); swaps += 2
    else:
        for _ in range(64):
            exchange(a, b); swaps += 1
if os.path.islink(a):
    exchange(a, b); swaps += 1
print(swaps)
`;

/** Why the swapper cannot run here, or null when it can. */
async function swapperUnavailable(): Promise<string | null> {
  const folder = await Deno.makeTempDir({ prefix: "kagent-swap-probe-" });
  try {
    await Deno.mkdir(nodePath.join(folder, "a"));
    await Deno.symlink(nodePath.join(folder, "x"), nodePath.join(folder, "b"));
    const script = nodePath.join(folder, "swap.py");
    await Deno.writeTextFile(script, SWAPPER);
    const stop = nodePath.join(folder, "stop");
    const probe = await new Deno.Command("python3", {
      args: [script, `${folder}/a`, `${folder}/b`, "0.05", "0", stop],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!probe.success) {
      return `the swapper cannot exchange folders here: ${new TextDecoder().decode(probe.stderr)}`;
    }
    return null;
  } catch (error) {
    return `python3 is not available (${error instanceof Error ? error.message : error})`;
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

const unavailable = await swapperUnavailable();
if (unavailable !== null) console.log(`swap_race_test.ts: skipped: ${unavailable}`);

/** A running swapper; `stop` asks it to end (the folder left real), then kills it if it lingers. */
interface Swapper extends AsyncDisposable {
  stop(): Promise<number>;
}

async function startSwapper(run: TestRun, quietSeconds: number): Promise<Swapper> {
  const root = run.sandbox.root;
  const script = nodePath.join(root, "swap.py");
  const stopFile = nodePath.join(root, "swap.stop");
  await Deno.writeTextFile(script, SWAPPER);
  const child = new Deno.Command("python3", {
    args: [
      script,
      nodePath.join(run.sandbox.workspace, "d"),
      nodePath.join(run.sandbox.workspace, "l"),
      String(SWAPPER_SECONDS),
      String(quietSeconds),
      stopFile,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = child.output();
  // Start the calls only once the swapper is at work ("l" has been a real folder).
  const swapped = nodePath.join(run.sandbox.workspace, "l");
  for (let polls = 0; polls < 1000 && (await Deno.lstat(swapped)).isSymlink; polls += 1) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  let stopped: Promise<number> | null = null;
  const stop = () => {
    stopped ??= (async () => {
      await Deno.writeTextFile(stopFile, "");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const { stdout, stderr, success } = await output;
      clearTimeout(timer);
      assert.ok(success, `the swapper failed: ${new TextDecoder().decode(stderr)}`);
      return Number(new TextDecoder().decode(stdout).trim());
    })();
    return stopped;
  };
  return {
    stop,
    [Symbol.asyncDispose]: async () => {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already ended.
      }
      await output.catch(() => {});
    },
  };
}

/** Every entry below `folder` with its type, size, inode and content: what "no effect" compares. */
async function snapshot(folder: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  const visit = async (current: string) => {
    for await (const entry of Deno.readDir(current)) {
      const path = nodePath.join(current, entry.name);
      const stat = await Deno.lstat(path);
      const relative = nodePath.relative(folder, path);
      if (stat.isDirectory) {
        found[relative] = `folder ${stat.ino}`;
        await visit(path);
      } else {
        const content = stat.isFile ? await Deno.readTextFile(path) : "";
        found[relative] = `${stat.isFile ? "file" : "other"} ${stat.ino} ${stat.size} ${content}`;
      }
    }
  };
  await visit(folder);
  return found;
}

const VICTIMS = 40;

/** `workspace/d` (real) and `workspace/l` -> `outside/target`, with the same names on both sides. */
async function openSwapRun(): Promise<TestRun> {
  return await openTestRun({
    permissions: {
      rules: [
        { id: "allow-all", tools: ["*"], decision: "allow" },
        // Narrowed, or every delete would ask (a destructive tool needs a narrowed allow).
        { id: "allow-delete", tools: ["fs.delete_file"], paths: ["d/**"], decision: "allow" },
        {
          id: "allow-writes",
          tools: ["fs.write_file", "fs.edit_file"],
          paths: ["**"],
          decision: "allow",
        },
      ],
    },
    prepare: async (sandbox) => {
      const inside = nodePath.join(sandbox.workspace, "d");
      const target = nodePath.join(sandbox.outside, "target");
      await Deno.mkdir(nodePath.join(inside, "sub"), { recursive: true });
      await Deno.mkdir(nodePath.join(target, "sub"), { recursive: true });
      await Deno.writeTextFile(nodePath.join(inside, "a.txt"), "inside\nalpha\n");
      await Deno.writeTextFile(nodePath.join(target, "a.txt"), `${CANARY}\nalpha\n`);
      await Deno.writeTextFile(nodePath.join(inside, "sub", "b.txt"), "inside b\n");
      await Deno.writeTextFile(nodePath.join(inside, "last.txt"), "inside\n");
      await Deno.writeTextFile(nodePath.join(target, "sub", "b.txt"), `${CANARY} b\n`);
      await Deno.writeTextFile(nodePath.join(target, `only-${CANARY}.txt`), `${CANARY}\n`);
      for (let index = 0; index < VICTIMS; index += 1) {
        await Deno.writeTextFile(nodePath.join(inside, `victim-${index}.txt`), "inside\n");
        await Deno.writeTextFile(nodePath.join(target, `victim-${index}.txt`), `${CANARY}\n`);
      }
      await Deno.symlink(target, nodePath.join(sandbox.workspace, "l"));
    },
  });
}

/** The calls of one try, by tool: each aims below the swapped folder. */
function callsFor(tool: string, index: number): Record<string, unknown>[] {
  switch (tool) {
    case "fs.write_file":
      return [
        { path: `d/new-${index}.txt`, content: "new\n" },
        { path: "d/a.txt", content: "inside\nalpha\n", overwrite: true },
        { path: `d/fresh-${index}/x.txt`, content: "new\n" },
      ];
    case "fs.edit_file":
      return [
        { path: "d/a.txt", edits: [{ old: "alpha", new: "beta" }] },
        { path: "d/a.txt", edits: [{ old: "beta", new: "alpha" }] },
      ];
    case "fs.delete_file":
      return [{ path: `d/victim-${index % VICTIMS}.txt` }];
    case "fs.read_file":
      return [{ path: "d/a.txt" }, { path: "d/sub/b.txt" }];
    case "fs.grep_files":
      return [{ pattern: "KAGENT|inside|alpha", path: "d" }, { pattern: "KAGENT|inside" }];
    default:
      return [{ path: "d" }, { path: ".", recursive: true }, { path: "d/a.txt" }];
  }
}

/** The near miss of each tool once the swapper stopped ("d" a real folder again). */
function nearMissFor(tool: string): Record<string, unknown> {
  switch (tool) {
    case "fs.write_file":
      return { path: "d/after/near.txt", content: "near\n" };
    case "fs.edit_file":
      return { path: "d/sub/b.txt", edits: [{ old: "inside b", new: "edited b" }] };
    case "fs.delete_file":
      return { path: "d/last.txt" };
    case "fs.read_file":
      return { path: "d/sub/b.txt" };
    case "fs.grep_files":
      return { pattern: "inside", path: "d" };
    default:
      return { path: "d", recursive: true };
  }
}

const TOOLS = [
  "fs.write_file",
  "fs.edit_file",
  "fs.delete_file",
  "fs.read_file",
  "fs.grep_files",
  "fs.list_files",
];

/**
 * No outside content or listing in a result: every outside file holds the canary, and the one
 * outside-only file has it in its name. (A refusal may name where the symlink itself points: the
 * link's text is inside the workspace, not a secret.)
 */
function assertNothingFromOutside(result: ToolResult): void {
  const shown = JSON.stringify([result.summary, result.output, result.data, result.error]);
  assert.ok(
    !shown.includes(CANARY),
    `${result.tool} returned outside content: ${shown.slice(0, 300)}`,
  );
}

function tally(counts: Record<string, number>, result: ToolResult): void {
  const key = result.ok ? "ok" : result.error?.type ?? "unknown";
  counts[key] = (counts[key] ?? 0) + 1;
}

for (const tool of TOOLS) {
  Deno.test({
    name:
      `${tool} leaves no effect outside and returns nothing from there when a folder is swapped with a symlink in a loop`,
    ignore: unavailable !== null,
    async fn() {
      await using run = await openSwapRun();
      const outside = run.sandbox.outside;
      const before = await snapshot(outside);
      const counts: Record<string, number> = {};
      let swaps = 0;
      {
        await using swapper = await startSwapper(run, 0);
        for (let index = 0; index < TRIES; index += 1) {
          for (const args of callsFor(tool, index)) {
            const result = await run.call(tool, args);
            tally(counts, result);
            assertNothingFromOutside(result);
          }
        }
        swaps = await swapper.stop();
      }
      console.log(`${tool}: ${swaps} swaps during ${TRIES} tries: ${JSON.stringify(counts)}`);
      assert.ok(swaps > TRIES, `the swapper made only ${swaps} swaps`);
      assert.deepEqual(await snapshot(outside), before, `${tool} changed something outside`);

      // Near miss: the swapper has stopped with "d" a real folder; the same calls work.
      const near = await run.call(tool, nearMissFor(tool));
      assert.equal(near.ok, true, `${tool} near miss failed: ${near.error?.message}`);
      assertNothingFromOutside(near);
      assert.deepEqual(await snapshot(outside), before);
    },
  });
}

Deno.test({
  name:
    "a walk reading every folder with the streaming reader (large folders) lists nothing from outside while a folder is swapped with a symlink in a loop",
  ignore: unavailable !== null,
  async fn() {
    await using run = await openSwapRun();
    const guard = await PathGuard.create({ workspace: run.sandbox.workspace, home: null });
    const walkAll = async () => {
      const start = await guard.check(".", "list");
      if (!start.ok) throw new Error(start.error.message);
      const names: string[] = [];
      // largeFolderBytes 0: every folder goes through Deno.readDir, with its awaits.
      const options = { guard, recursive: true, largeFolderBytes: 0, stats: emptyWalkStats() };
      for await (const entry of walk(start.path, options)) names.push(entry.display);
      return names;
    };
    let swaps = 0;
    let changed = 0;
    {
      await using swapper = await startSwapper(run, 0);
      for (let index = 0; index < TRIES; index += 1) {
        const names = await walkAll();
        const outside = names.filter((name) => name.includes(CANARY) || name.startsWith("/"));
        assert.deepEqual(outside, [], `the walk listed from outside: ${outside.join(", ")}`);
        if (!names.includes("d/sub/b.txt")) changed += 1;
      }
      swaps = await swapper.stop();
    }
    console.log(`streaming walk: ${swaps} swaps, ${changed} of ${TRIES} walks passed "d" over`);
    assert.ok(swaps > TRIES, `the swapper made only ${swaps} swaps`);
    // Near miss: with the swapper stopped, the same walk lists "d" whole.
    assert.ok((await walkAll()).includes("d/sub/b.txt"));
  },
});

Deno.test({
  name: "fs tools leave no effect outside when a folder is swapped in bursts between quiet spells",
  ignore: unavailable !== null,
  async fn() {
    await using run = await openSwapRun();
    const outside = run.sandbox.outside;
    const before = await snapshot(outside);
    const counts: Record<string, Record<string, number>> = {};
    let swaps = 0;
    {
      // Quiet for longer than a ctime second, so that calls get past the hold and a burst can
      // land while they work: this exercises the checks after each operation.
      await using swapper = await startSwapper(run, 1.1);
      const deadline = Date.now() + 6_000;
      for (let index = 0; Date.now() < deadline; index += 1) {
        const tool = TOOLS[index % TOOLS.length] as string;
        for (const args of callsFor(tool, index)) {
          const result = await run.call(tool, args);
          tally(counts[tool] ??= {}, result);
          assertNothingFromOutside(result);
        }
      }
      swaps = await swapper.stop();
    }
    console.log(`bursts: ${swaps} swaps: ${JSON.stringify(counts)}`);
    assert.deepEqual(await snapshot(outside), before, "a tool changed something outside");
  },
});
