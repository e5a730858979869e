/**
 * Start-up: `kagent-run call fs.read_file` as a whole process (Deno start, config, policy, run
 * folder, tool Worker, one call, audit, exit) against `deno run hello.js` (the anchor), both
 * spawned from this process in the same group. Rows: the bundle users run (`deno task bundle`'s
 * `dist/kagent-run.js`, built into a temporary folder first) and `main.ts` from source; and a
 * whole `kagent-run run` with the `script` provider (one call, a final message) from the bundle,
 * whose start-up must not change when cloud providers are added (their packages load only when
 * configured; issue 27).
 *
 * - `deno task bench` (or `deno bench --allow-all bench/startup_bench.ts`): the group
 *   `start-up (whole process)`.
 * - `deno run --allow-all bench/startup_bench.ts [ROUNDS] [BEFORE_BUNDLE]`: rounds of the
 *   commands in alternation, then the median of each and the ratios of medians (less sensitive to
 *   a loaded machine than `deno bench`'s means). @default ROUNDS 15. `BEFORE_BUNDLE`: the
 *   `kagent-run.js` of another build (e.g. `deno task bundle` in a `git worktree` of an older
 *   commit), timed in the same rounds as a fourth row, for before/after figures.
 *
 * @module
 */

import * as nodePath from "node:path";
import { fileURLToPath } from "node:url";
import { buildBundle } from "../tools/bundle.ts";

const repository = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..");
/** The `kagent-run` task's flags (deno.json), before the entry module. */
const FLAGS = [
  "run",
  "--no-prompt",
  "--unstable-worker-options",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-net",
];

const folder = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent-bench-startup-" }));
globalThis.addEventListener("unload", () => Deno.removeSync(folder, { recursive: true }));
const workspace = nodePath.join(folder, "workspace");
const dist = nodePath.join(folder, "dist");
await Deno.mkdir(workspace);
await Deno.writeTextFile(nodePath.join(folder, "hello.js"), 'console.log("hello");\n');
await Deno.writeTextFile(
  nodePath.join(workspace, "small.txt"),
  "line of about forty characters, repeated\n".repeat(50),
);
const configPath = nodePath.join(workspace, "agent.jsonc");
await Deno.writeTextFile(
  configPath,
  JSON.stringify({
    workspace: ".",
    runs_dir: nodePath.join(folder, "runs"),
    model: { provider: "script", script: "plan.jsonl" },
    task: "Read small.txt",
  }),
);
await Deno.writeTextFile(
  nodePath.join(workspace, "plan.jsonl"),
  JSON.stringify({
    tool_calls: [{
      id: "c1",
      name: "fs.read_file",
      arguments: { path: "small.txt", max_lines: 2 },
    }],
  }) +
    "\n" + JSON.stringify({ content: "hello from the script" }) + "\n",
);

// Builds the bundle as `deno task bundle` does, into the bench's own folder.
await buildBundle(dist);

const CALL = [
  "call",
  "fs.read_file",
  '{"path": "small.txt", "max_lines": 2}',
  "--config",
  configPath,
];
/** A whole `script` run: provider chosen, loop, one call, final message (issue 27). */
const RUN = ["run", "--config", configPath];
/** The commands timed, by row name. */
const COMMANDS: Record<string, string[]> = {
  "deno run hello.js (anchor)": ["run", nodePath.join(folder, "hello.js")],
  "kagent-run call fs.read_file (bundle)": [
    ...FLAGS,
    nodePath.join(dist, "kagent-run.js"),
    ...CALL,
  ],
  "kagent-run call fs.read_file (source)": [
    ...FLAGS,
    nodePath.join(repository, "main.ts"),
    ...CALL,
  ],
};
COMMANDS["kagent-run run, script provider (bundle)"] = [
  ...FLAGS,
  nodePath.join(dist, "kagent-run.js"),
  ...RUN,
];
const before = import.meta.main ? Deno.args[1] : undefined;
if (before !== undefined) {
  COMMANDS["kagent-run call fs.read_file (before)"] = [...FLAGS, nodePath.resolve(before), ...CALL];
  COMMANDS["kagent-run run, script provider (before)"] = [
    ...FLAGS,
    nodePath.resolve(before),
    ...RUN,
  ];
}

/** Runs one command to its end; throws when it fails or a call does not print its result. */
async function run(args: string[]): Promise<void> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: workspace,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  // hello.js and a script run print "hello…", a call its JSON result.
  if (!output.success || !(text.startsWith("hello") || text.includes('"ok": true'))) {
    throw new Error(
      `Cannot benchmark "${args.join(" ")}": exit ${output.code}, ${
        new TextDecoder().decode(output.stderr)
      }`,
    );
  }
}

// Checked once before timing (and the first run fills Deno's caches).
for (const args of Object.values(COMMANDS)) await run(args);

const [anchor, ...rows] = Object.keys(COMMANDS);
for (const name of [anchor!, ...rows]) {
  Deno.bench({
    name,
    group: "start-up (whole process)",
    baseline: name === anchor,
    n: 10,
    warmup: 1,
    async fn() {
      await run(COMMANDS[name]!);
    },
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

if (import.meta.main) {
  const rounds = Number(Deno.args[0] ?? 15);
  const times: Record<string, number[]> = {};
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, args] of Object.entries(COMMANDS)) {
      const started = performance.now();
      await run(args);
      (times[name] ??= []).push(performance.now() - started);
    }
  }
  const base = median(times[anchor!]!);
  console.log(`${rounds} rounds, alternating (median ms, ratio to the anchor's median):`);
  for (const [name, values] of Object.entries(times)) {
    console.log(
      `  ${name.padEnd(40)} ${median(values).toFixed(0).padStart(6)} ms  ${
        (median(values) / base).toFixed(2)
      }x`,
    );
  }
}
