/**
 * What display blocks cost a call (issue 18 §3): `displayFor` (build, check, cap, redact the
 * blocks) against `shape` (redact and cap the outcome), the step it runs beside, for three
 * outcomes: `fs.read_file` of 200 lines, `fs.list_files` of 1,000 entries (a table of the first
 * 100) and `fs.edit_file` with a 2,000-line diff (about 60 KB, cut to the 16 KiB block cap).
 *
 *   deno bench --allow-read bench/display_blocks_bench.ts
 *
 * As a script it interleaves batches of both and prints, per outcome, the ratio of their median
 * batch times, which holds up on a loaded machine:
 *
 *   deno run --allow-read bench/display_blocks_bench.ts
 *
 * @module
 */

import { type ArtifactStore, Redactor } from "../src/audit/mod.ts";
import { success, type ToolOutcome } from "../src/result/mod.ts";
import { displayFor } from "../src/runtime/display_for.ts";
import { shape } from "../src/runtime/shape.ts";

const redactor = new Redactor({ secrets: ["kagent-bench-secret-0b7d42aa19"] });
const noArtifacts = {} as ArtifactStore;
const MAX_OUTPUT = 256 * 1024;

const readLines = Array.from({ length: 200 }, (_, index) => `const value${index} = ${index};`);
const entries = Array.from({ length: 1_000 }, (_, index) => ({
  path: `src/folder${index % 10}/file${index}.ts`,
  type: "file",
  size: 1_000 + index,
}));
const diffLines = Array.from({ length: 1_000 }, (_, index) => [
  `-const old${index} = ${index};`,
  `+const new${index} = ${index + 1};`,
]).flat();

const cases: { name: string; tool: string; outcome: ToolOutcome; params: unknown }[] = [
  {
    name: "fs.read_file, 200 lines",
    tool: "fs.read_file",
    outcome: success(
      'Read lines 1-200 of "src/a.ts"',
      readLines.map((line, index) => `${String(index + 1).padStart(3)}\t${line}`).join("\n"),
      { path: "src/a.ts", start_line: 1, end_line: 200, total_lines: 200 },
    ),
    params: { path: "src/a.ts" },
  },
  {
    name: "fs.list_files, 1,000 entries",
    tool: "fs.list_files",
    outcome: success(
      'Listed 1000 entries of "."',
      entries.map((entry) => entry.path).join("\n"),
      { path: ".", entries },
    ),
    params: { path: "." },
  },
  {
    name: "fs.edit_file, 2,000-line diff",
    tool: "fs.edit_file",
    outcome: success(
      'Edited "src/a.ts": applied a diff of 1 hunk',
      ["--- src/a.ts", "+++ src/a.ts", "@@ -1,1000 +1,1000 @@", ...diffLines].join("\n"),
      { path: "src/a.ts" },
    ),
    params: { path: "src/a.ts" },
  },
];

async function shapeOnce(outcome: ToolOutcome) {
  return await shape(outcome, redactor, noArtifacts, MAX_OUTPUT);
}

function displayOnce(tool: string, outcome: ToolOutcome, params: unknown) {
  return displayFor(tool, outcome, { outcome, artifacts: [] }, params, redactor);
}

for (const { name, tool, outcome, params } of cases) {
  Deno.bench({ name: `shape (baseline): ${name}`, group: name, baseline: true }, async () => {
    await shapeOnce(outcome);
  });
  Deno.bench({ name: `displayFor: ${name}`, group: name }, () => {
    displayOnce(tool, outcome, params);
  });
}

if (import.meta.main) {
  const BATCH = 50;
  const ROUNDS = 40;
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1] ?? 0;
  for (const { name, tool, outcome, params } of cases) {
    const shapeTimes: number[] = [];
    const displayTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let started = performance.now();
      for (let index = 0; index < BATCH; index++) await shapeOnce(outcome);
      shapeTimes.push((performance.now() - started) / BATCH);
      started = performance.now();
      for (let index = 0; index < BATCH; index++) displayOnce(tool, outcome, params);
      displayTimes.push((performance.now() - started) / BATCH);
    }
    const shaped = median(shapeTimes);
    const shown = median(displayTimes);
    console.log(
      `${name}: displayFor ${(shown * 1000).toFixed(0)} µs, shape ${
        (shaped * 1000).toFixed(0)
      } µs, ` +
        `ratio ${(shown / shaped).toFixed(2)}x`,
    );
  }
}
