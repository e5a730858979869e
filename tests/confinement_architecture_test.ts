/**
 * One boundary for every process (issue 23 §1, docs/CONFINEMENT.md): every process kagent-run
 * starts is started by the confinement module of `src/exec/`, and no launcher builds a bubblewrap
 * plan or command line of its own. Checked on the real tree (`src/`, `main.ts`) and, as a near
 * miss, on a fake tree with a stray spawn, a hand-built plan and a launcher that skips the module.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The files of the confinement module, relative to the repository (docs/CONFINEMENT.md). */
export const CONFINEMENT_MODULE: readonly string[] = [
  "src/exec/confinement_domain.ts",
  "src/exec/child_environment.ts",
  "src/exec/confinement_plan.ts",
  "src/exec/command_profile.ts",
  "src/exec/system_mounts.ts",
  "src/exec/bubblewrap.ts",
  "src/exec/_launch_args.ts",
  "src/exec/spawn_confined.ts",
  "src/exec/confined_process.ts",
  "src/exec/_process_group.ts",
  "src/exec/process_sweep.ts",
  "src/exec/environment_scanner.ts",
  "src/exec/orphan_watchdog.ts",
];

/**
 * Every place production code starts a process, and why: how many `Deno.Command(` each file of
 * the module holds. The first two are THE launches (confined); the rest are the exceptions, the
 * module's own machinery, each run on fixed arguments of ours, never a program the agent names.
 */
export const SPAWN_SITES: Readonly<Record<string, { count: number; reason: string }>> = {
  "src/exec/spawn_confined.ts": {
    count: 1,
    reason: "the confined launch of commands, skill scripts, declarative tools, hooks and ripgrep",
  },
  "src/exec/confined_process.ts": {
    count: 1,
    reason: "the confined launch of long-lived processes: stdio MCP servers",
  },
  "src/exec/bubblewrap.ts": {
    count: 1,
    reason: "exception: the probe runs bwrap itself (on `true`) to learn whether it works here",
  },
  "src/exec/_process_group.ts": {
    count: 1,
    reason: "exception: `kill -s SIG -- -<pgid>`, how the tool Worker (no Deno.kill) ends a group",
  },
  "src/exec/process_sweep.ts": {
    count: 2,
    reason: "exception: the sweep's readers of processes: `sh` + `grep` over environments, and " +
      "`ps` (environments, or the process table of sessions, groups and parents)",
  },
  "src/exec/orphan_watchdog.ts": {
    count: 1,
    reason: "exception: the run's watchdog (`setsid sh`, isolation none) that sweeps the run's " +
      "marked processes when kagent-run itself is killed",
  },
  "src/exec/environment_scanner.ts": {
    count: 1,
    reason: "exception: the run's long-lived `perl` reader of process environments (the sweep)",
  },
};

/**
 * Launchers and the module call each must go through: a surface that starts processes is named
 * here with its door into the module (hooks and ripgrep included).
 */
export const LAUNCHERS: Readonly<Record<string, string>> = {
  "src/toolsets/exec/run_prepared.ts": "runConfined(",
  "src/hooks/command_hook.ts": "runConfined(",
  "src/toolsets/fs/ripgrep_prefilter.ts": "runConfined(",
  "src/mcp_client/stdio_process_transport.ts": "startConfinedProcess(",
};

/** A production file's path (relative to the repository) and its text. */
export interface ProductionFile {
  path: string;
  text: string;
}

/** Production files: `main.ts` and every `.ts` of `src/` but tests, test helpers and `testing/`. */
function productionFiles(root: string): ProductionFile[] {
  const files: ProductionFile[] = [{ path: "main.ts", text: read(root, "main.ts") }];
  const pending = [nodePath.join(root, "src")];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    for (const entry of Deno.readDirSync(folder)) {
      const path = nodePath.join(folder, entry.name);
      const relative = nodePath.relative(root, path);
      if (entry.isDirectory && relative !== "src/testing") pending.push(path);
      else if (entry.isFile && entry.name.endsWith(".ts") && !isTestFile(entry.name)) {
        files.push({ path: relative, text: Deno.readTextFileSync(path) });
      }
    }
  }
  return files.sort((left, right) => left.path.localeCompare(right.path));
}

function isTestFile(name: string): boolean {
  return name.endsWith("_test.ts") || /^_.*(test|fixture|probe)/.test(name);
}

function read(root: string, path: string): string {
  return Deno.readTextFileSync(nodePath.join(root, path));
}

/** The code of a file without its comments (a JSDoc `@example` may show a spawn). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

const count = (text: string, pattern: RegExp) => [...code(text).matchAll(pattern)].length;

/** Every way TypeScript here could start a process. */
const SPAWN = /\bDeno\.Command\s*\(|\bDeno\.run\s*\(|\bnode:child_process\b|\bchild_process\b/g;

/**
 * Spawns outside {@linkcode SPAWN_SITES}, or more of them in a file than it lists: each as
 * `path (n spawns, m allowed)`.
 */
export function straySpawns(files: readonly ProductionFile[]): string[] {
  return files.flatMap((file) => {
    const found = count(file.text, SPAWN);
    const allowed = SPAWN_SITES[file.path]?.count ?? 0;
    return found > allowed ? [`${file.path} (${found} spawns, ${allowed} allowed)`] : [];
  });
}

/**
 * Files outside the module that build bubblewrap plans or command lines themselves: a call of
 * `buildBwrapArgs` or `commandProfile`, a plan's `writablePaths:`, a bwrap option, `Deno.kill(`.
 */
export function ownBoundaries(files: readonly ProductionFile[]): string[] {
  const inside = new Set(CONFINEMENT_MODULE);
  const built =
    /\bbuildBwrapArgs\s*\(|\bcommandProfile\s*\(|\bwritablePaths\s*:|"--(ro-)?bind"|"--unshare-all"|\bDeno\.kill\s*\(/g;
  return files.flatMap((file) =>
    inside.has(file.path) || count(file.text, built) === 0 ? [] : [file.path]
  );
}

/** Launchers of {@linkcode LAUNCHERS} that do not call their door into the module. */
export function launchersOutside(files: readonly ProductionFile[]): string[] {
  const byPath = new Map(files.map((file) => [file.path, file.text]));
  return Object.entries(LAUNCHERS).flatMap(([path, door]) => {
    const text = byPath.get(path);
    return text !== undefined && code(text).includes(door) ? [] : [`${path} → ${door}`];
  });
}

const TREE = productionFiles(ROOT);

Deno.test("every process of production code starts in the confinement module or a named exception", () => {
  assert.deepEqual(straySpawns(TREE), []);
  for (const path of Object.keys(SPAWN_SITES)) {
    assert.ok(CONFINEMENT_MODULE.includes(path), `${path} is a spawn site outside the module`);
    assert.equal(count(read(ROOT, path), SPAWN), SPAWN_SITES[path]?.count, path);
  }
});

Deno.test("no launcher builds a bubblewrap plan, a bwrap command line or a group kill of its own", () => {
  assert.deepEqual(ownBoundaries(TREE), []);
});

Deno.test("commands, hooks, ripgrep and MCP servers start through the confinement module", () => {
  assert.deepEqual(launchersOutside(TREE), []);
});

Deno.test("the confinement checks see a stray spawn, a hand-built plan and a launcher beside the module (near miss: they are live)", () => {
  const fake: ProductionFile[] = [
    {
      path: "src/hooks/command_hook.ts",
      text: 'const child = new Deno.Command("/usr/bin/sh", { args: ["-c", hook] }).spawn();',
    },
    {
      path: "src/mcp_client/server_confinement.ts",
      text: 'const args = buildBwrapArgs(plan, target); // "--ro-bind" below\nargs.push("--bind");',
    },
    {
      path: "src/toolsets/fs/ripgrep_prefilter.ts",
      text: 'const plan = { mode: "bwrap", writablePaths: [], network: false };',
    },
    { path: "src/mcp_client/stdio_process_transport.ts", text: "Deno.kill(-pid, 'SIGKILL');" },
    // Comments do not count: a JSDoc example may show a spawn.
    { path: "src/runtime/x.ts", text: '/** new Deno.Command("true") */\n// Deno.Command(\n' },
    {
      path: "src/exec/process_sweep.ts",
      text: "new Deno.Command(a); new Deno.Command(b); new Deno.Command(c);",
    },
  ];
  assert.deepEqual(straySpawns(fake), [
    "src/hooks/command_hook.ts (1 spawns, 0 allowed)",
    "src/exec/process_sweep.ts (3 spawns, 2 allowed)",
  ]);
  assert.deepEqual(ownBoundaries(fake), [
    "src/mcp_client/server_confinement.ts",
    "src/toolsets/fs/ripgrep_prefilter.ts",
    "src/mcp_client/stdio_process_transport.ts",
  ]);
  assert.deepEqual(launchersOutside(fake), [
    "src/toolsets/exec/run_prepared.ts → runConfined(",
    "src/hooks/command_hook.ts → runConfined(",
    "src/toolsets/fs/ripgrep_prefilter.ts → runConfined(",
    "src/mcp_client/stdio_process_transport.ts → startConfinedProcess(",
  ]);
});
