/**
 * The cost of following a run live (`--output stream-json`, per-turn progress lines): one
 * `AuditRecorder.event` with and without the observer `--output stream-json` adds (the record
 * mapped to its stream line and serialised; the recorder already redacted it), in the same process,
 * to files in one temporary folder. With `--redact-again`, the observer also redacts the line a
 * second time, as a first version did (about 2x the event's cost: redaction dominates a write). Run as a script, the file interleaves batches of both and prints the ratio of
 * their median batch times, which holds up on a loaded machine:
 *
 *   deno run --allow-read --allow-write --allow-env bench/stream_json_bench.ts [--redact-again]
 *
 * or as benches: `deno bench --allow-read --allow-write --allow-env bench/stream_json_bench.ts`.
 *
 * @module
 */

import { AuditRecorder, Redactor, RunFolder } from "../src/audit/mod.ts";
import { streamLineOf } from "../src/cli/_stream_json.ts";

const folder = await Deno.makeTempDir({ prefix: "kagent_stream_json_bench_" });
globalThis.addEventListener("unload", () => Deno.removeSync(folder, { recursive: true }));

const redactor = new Redactor({ secrets: ["bench-secret-value-123"] });
const fields = {
  tool_call_id: "call_0123456789",
  tool: "fs.read_file",
  ok: true,
  summary: 'Read 3 lines of "README.md"',
  error_type: null,
  duration_ms: 12,
  policy: {
    decision: "allow" as const,
    rule: "default:readonly-allow",
    layer: "default",
    reason: "",
  },
  artifacts: [],
};

async function recorder(observed: boolean): Promise<AuditRecorder> {
  const run = await RunFolder.create(folder);
  const made = new AuditRecorder({ folder: run, redactor });
  if (observed) {
    let bytes = 0;
    const again = Deno.args.includes("--redact-again");
    const context = { model: null, takeTurnDuration: () => null };
    made.observeEvents((record) => {
      const line = streamLineOf(record, context);
      bytes += JSON.stringify(again ? redactor.redactValue(line) : line).length + 1;
    });
    globalThis.addEventListener("unload", () => void bytes);
  }
  return made;
}

const plain = await recorder(false);
const observed = await recorder(true);
const write = (target: AuditRecorder) => target.event("tool.completed", fields);

Deno.bench("AuditRecorder.event, not observed", { group: "event", baseline: true }, async () => {
  await write(plain);
});
Deno.bench("AuditRecorder.event, observed as stream-json does", { group: "event" }, async () => {
  await write(observed);
});

if (import.meta.main) {
  const BATCH = 200;
  const ROUNDS = 41;
  const times = { plain: [] as number[], observed: [] as number[] };
  const batch = async (target: AuditRecorder) => {
    const started = performance.now();
    for (let index = 0; index < BATCH; index++) await write(target);
    return (performance.now() - started) / BATCH;
  };
  for (let round = 0; round < ROUNDS; round++) {
    times.plain.push(await batch(plain));
    times.observed.push(await batch(observed));
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const [a, b] = [median(times.plain), median(times.observed)];
  console.log(
    `event write: ${(a * 1000).toFixed(1)} µs not observed, ${(b * 1000).toFixed(1)} µs observed ` +
      `(median of ${ROUNDS} interleaved batches of ${BATCH}); ratio ${(b / a).toFixed(2)}x`,
  );
  await Promise.all([plain.close(), observed.close()]);
}
