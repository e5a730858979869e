/**
 * What tracing costs a run: the same scripted run (TURNS turns of CALLS parallel fs.read_file
 * calls each, then an answer) as CLI subprocesses with Deno's OpenTelemetry off and on (OTLP/HTTP
 * JSON to a receiver on 127.0.0.1 in this process), alternated ROUNDS times. It prints the median of
 * the agent loop's own time (`run.completed` `duration_ms`) and of the whole process, and the
 * ratios on/off. Not a `deno bench` file (each sample is a process):
 *
 * ```sh
 * deno run --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 \
 *   bench/tracing_overhead.ts
 * ```
 *
 * @module
 */

import * as nodePath from "node:path";

const TURNS = 10;
const CALLS = 10;
const ROUNDS = 7;

const repository = nodePath.resolve(nodePath.dirname(new URL(import.meta.url).pathname), "..");
const root = await Deno.makeTempDir({ prefix: "kagent-tracing-bench-" });
let spans = 0;
const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
  const body = await req.text();
  if (new URL(req.url).pathname === "/v1/traces") spans += body.split('"spanId"').length - 1;
  return Response.json({});
});

try {
  const workspace = nodePath.join(root, "workspace");
  await Deno.mkdir(workspace);
  for (let index = 0; index < CALLS; index += 1) {
    await Deno.writeTextFile(nodePath.join(workspace, `file${index}.txt`), "line\n".repeat(200));
  }
  const plan = [
    ...Array.from({ length: TURNS }, (_, turn) =>
      JSON.stringify({
        tool_calls: Array.from({ length: CALLS }, (_, index) => ({
          id: `t${turn}c${index}`,
          name: "fs.read_file",
          arguments: { path: `file${index}.txt` },
        })),
      })),
    JSON.stringify({ content: "done" }),
  ];
  await Deno.writeTextFile(nodePath.join(root, "plan.jsonl"), plan.join("\n") + "\n");
  const host = `127.0.0.1:${receiver.addr.port}`;
  await Deno.writeTextFile(
    nodePath.join(root, "agent.jsonc"),
    JSON.stringify({
      workspace: "workspace",
      runs_dir: "runs",
      model: { provider: "script", script: "plan.jsonl" },
      task: "read every file",
      agent: { max_turns: TURNS + 2 },
      audit: { trace_hosts: [host] },
    }),
  );
  const inherited = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) => !name.startsWith("OTEL_")),
  );
  const tracing = {
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://${host}`,
  };

  /** One run: the loop's own time (ms, from run.completed) and the whole process's. */
  const sample = async (on: boolean): Promise<{ loop: number; process: number }> => {
    const started = performance.now();
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--unstable-worker-options",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-run",
        "--allow-net",
        nodePath.join(repository, "main.ts"),
        "--quiet",
        "--config",
        nodePath.join(root, "agent.jsonc"),
      ],
      env: on ? { ...inherited, ...tracing } : inherited,
      clearEnv: true,
      stdout: "null",
      stderr: "piped",
    }).output();
    const process = performance.now() - started;
    if (output.code !== 0) throw new Error(new TextDecoder().decode(output.stderr));
    const runs = nodePath.join(root, "runs");
    const [latest] = (await Array.fromAsync(Deno.readDir(runs))).map((entry) => entry.name).sort()
      .reverse();
    const events = (await Deno.readTextFile(nodePath.join(runs, latest as string, "events.jsonl")))
      .trim().split("\n").map((line) => JSON.parse(line));
    const completed = events.find((event) => event.type === "run.completed");
    await Deno.remove(nodePath.join(runs, latest as string), { recursive: true });
    return { loop: completed.duration_ms, process };
  };

  await sample(false); // warm the module cache
  const off: { loop: number; process: number }[] = [];
  const on: { loop: number; process: number }[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    off.push(await sample(false));
    on.push(await sample(true));
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] as number;
  };
  const report = (name: "loop" | "process") => {
    const [a, b] = [median(off.map((s) => s[name])), median(on.map((s) => s[name]))];
    return `${name}: off ${a.toFixed(0)} ms, on ${b.toFixed(0)} ms, ratio ${(b / a).toFixed(2)}x`;
  };
  console.log(`${TURNS} turns x ${CALLS} fs.read_file calls, ${ROUNDS} rounds, medians`);
  console.log(report("loop"));
  console.log(report("process"));
  console.log(`spans received with tracing on: ${spans} (${(spans / ROUNDS).toFixed(0)} a run)`);
} finally {
  await receiver.shutdown();
  await Deno.remove(root, { recursive: true });
}
