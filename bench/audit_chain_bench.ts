/**
 * The cost of hash-chaining an audit record (issue 15 §1): one `JsonlWriter.write` of the same
 * record with and without a chain (`seq`, `prev`: the sha256 of the previous line), in the same
 * process, to files in one temporary folder. Two record sizes: a typical `events.jsonl` event
 * (about 250 bytes) and a typical `logs/tools.jsonl` record (about 1.5 KB). The chained write also
 * hashes its own line (the next record's `prev`).
 *
 *   deno bench --allow-read --allow-write bench/audit_chain_bench.ts
 *
 * On a shared, loaded machine the two benches of a group meet different loads; run as a script,
 * the file interleaves batches of both writes and prints the ratio of their median batch times,
 * which holds up under load:
 *
 *   deno run --allow-read --allow-write bench/audit_chain_bench.ts
 *
 * @module
 */

import { join } from "node:path";
import { chainAnchor, JsonlWriter, lineHash } from "../src/audit/mod.ts";
import { chainLine } from "../src/audit/audit_chain.ts";

const folder = await Deno.makeTempDir({ prefix: "kagent_audit_chain_bench_" });
globalThis.addEventListener("unload", () => Deno.removeSync(folder, { recursive: true }));

const event = {
  ts: "2026-11-23T17:00:00.000Z",
  type: "tool.completed",
  run_id: "20261123T170000Z-abcdef",
  tool_call_id: "call_0123456789",
  tool: "fs.read_file",
  ok: true,
  summary: 'Read 3 lines of "README.md"',
  error_type: null,
  duration_ms: 12,
  policy: { decision: "allow", rule: "default:readonly-allow", layer: "default" },
  artifacts: [],
};
const toolRecord = {
  run_id: "20261123T170000Z-abcdef",
  tool: "fs.read_file",
  tool_call_id: "call_0123456789",
  risk: 0,
  ts_start: "2026-11-23T17:00:00.000Z",
  ts_end: "2026-11-23T17:00:00.012Z",
  duration_ms: 12,
  params: { path: "README.md" },
  arguments: '{"path":"README.md"}',
  arguments_artifact: null,
  result: {
    ok: true,
    summary: 'Read 40 lines of "README.md"',
    error_type: null,
    artifacts: [],
    output: "    1\tA line of the file that the model reads back\n".repeat(20),
    output_artifact: null,
  },
  approval: { by: "rule", rule: "default:readonly-allow", scope: ["read:<workspace>/README.md"] },
  policy: {
    decision: "allow",
    rule: "default:readonly-allow",
    layer: "default",
    reason: "readonly",
  },
  hashes: { arguments_sha256: "0".repeat(64), output_sha256: "1".repeat(64) },
  events: { started: 6, ended: 7 },
};

let files = 0;
function writer(chained: boolean): JsonlWriter {
  const path = join(folder, `log-${files++}.jsonl`);
  return new JsonlWriter(
    path,
    chained ? { chain: { anchor: chainAnchor("run", "policy", "events.jsonl") } } : {},
  );
}

for (
  const [group, record] of [["event ~250 B", event], ["tools record ~1.5 KB", toolRecord]] as const
) {
  const plain = writer(false);
  const chained = writer(true);
  // Warm both paths up first, so neither bench pays the compilation of the writer.
  for (let index = 0; index < 500; index++) {
    await Promise.all([plain.write(record), chained.write(record)]);
  }
  Deno.bench({ name: "unchained write (baseline)", group, baseline: true }, async () => {
    await plain.write(record);
  });
  Deno.bench({ name: "chained write (seq, prev, sha256)", group }, async () => {
    await chained.write(record);
  });
}

/** Interleaved batches: the median time of a batch of `size` writes, chained and unchained. */
async function interleaved(record: Record<string, unknown>, batches = 60, size = 200) {
  const plain = writer(false);
  const chained = writer(true);
  const times = { plain: [] as number[], chained: [] as number[] };
  for (let batch = 0; batch < batches; batch++) {
    for (const [name, target] of [["plain", plain], ["chained", chained]] as const) {
      const start = performance.now();
      for (let index = 0; index < size; index++) await target.write(record);
      times[name].push((performance.now() - start) / size);
    }
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1] ?? 0;
  return { plain: median(times.plain.slice(5)), chained: median(times.chained.slice(5)) };
}

/**
 * The work chaining adds to a write, alone, in ms: splicing `seq` and `prev` into the line and
 * hashing it, less the encoding both writes do.
 */
function addedWork(record: Record<string, unknown>, rounds = 20_000): number {
  const line = JSON.stringify(record);
  const encoder = new TextEncoder();
  const time = (body: (index: number) => void) => {
    const start = performance.now();
    for (let index = 1; index <= rounds; index++) body(index);
    return (performance.now() - start) / rounds;
  };
  let hash = "0".repeat(64);
  const chained = () =>
    time((index) => hash = lineHash(encoder.encode(chainLine(line, index, hash))));
  const plain = () => time(() => encoder.encode(`${line}\n`));
  chained(), plain(); // warm-up
  return chained() - plain();
}

if (import.meta.main) {
  for (
    const [group, record] of [["event ~250 B", event], [
      "tools record ~1.5 KB",
      toolRecord,
    ]] as const
  ) {
    const { plain, chained } = await interleaved(record);
    console.log(
      `${group}: unchained ${(plain * 1000).toFixed(1)} µs, chained ${
        (chained * 1000).toFixed(1)
      } µs ` +
        `a record (medians of interleaved batches): ${(chained / plain).toFixed(2)}x; ` +
        `the chaining alone ${(addedWork(record) * 1000).toFixed(1)} µs`,
    );
  }
}
