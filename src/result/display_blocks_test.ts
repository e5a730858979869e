import assert from "node:assert/strict";
import {
  briefOf,
  type DisplayBlock,
  isKnownBlock,
  MAX_BRIEF_CHARACTERS,
  MAX_DISPLAY_BLOCK_BYTES,
  MAX_DISPLAY_BLOCKS,
  readDisplayBlocks,
  type TableBlock,
} from "./display_blocks.ts";

const size = (block: DisplayBlock) => new TextEncoder().encode(JSON.stringify(block)).byteLength;

Deno.test("readDisplayBlocks keeps a block of an unknown type as {type, data}", () => {
  const blocks = readDisplayBlocks([
    { type: "chart", data: { points: [1, 2, 3] } },
    { type: "todo", items: ["a", "b"], done: 1 },
  ]);
  assert.deepEqual(blocks, [
    { type: "chart", data: { points: [1, 2, 3] } },
    { type: "todo", data: { items: ["a", "b"], done: 1 } },
  ]);
  assert.equal(blocks.some(isKnownBlock), false);
});

Deno.test("readDisplayBlocks keeps a malformed known block as unknown, a valid one as known", () => {
  const malformed = { type: "diff", path: "a.ts", diff: 42 };
  const valid = { type: "diff", path: "a.ts", diff: "+x", added: 1, removed: 0 };
  const blocks = readDisplayBlocks([malformed, valid, "text", null]);
  assert.deepEqual(blocks, [
    { type: "unknown", data: malformed },
    valid,
    { type: "unknown", data: "text" },
    { type: "unknown", data: null },
  ]);
  assert.equal(isKnownBlock(blocks[1] as DisplayBlock), true);
  // A table whose rows do not match its columns is not a table.
  const [table] = readDisplayBlocks([
    { type: "table", columns: ["a", "b"], rows: [["1"]], total_rows: 1 },
  ]);
  assert.equal(table?.type, "unknown");
});

Deno.test("readDisplayBlocks reads anything that is not a list as no blocks", () => {
  for (const value of [undefined, null, "brief", { type: "brief", text: "x" }, 3]) {
    assert.deepEqual(readDisplayBlocks(value), []);
  }
});

Deno.test("a brief is made one line and cut at MAX_BRIEF_CHARACTERS", () => {
  const [brief] = readDisplayBlocks([{
    type: "brief",
    text: `first\n  second\r\n${"z".repeat(400)}`,
  }]);
  assert.equal(brief?.type, "brief");
  const text = (brief as { text: string }).text;
  assert.ok(text.startsWith("first second zzz"));
  assert.ok(!/[\r\n]/.test(text));
  assert.equal(text.length, MAX_BRIEF_CHARACTERS);
  assert.equal(briefOf([brief as DisplayBlock]), text);
  assert.equal(briefOf([{ type: "shell2", data: null }]), null);
});

Deno.test("a block over MAX_DISPLAY_BLOCK_BYTES is cut to fit and keeps its type", () => {
  const diff = {
    type: "diff",
    path: "a.ts",
    diff: "+x\n".repeat(20_000),
    added: 20_000,
    removed: 0,
  };
  const rows = Array.from({ length: 5_000 }, (_, index) => [`file-${index}.ts`, "file"]);
  const table = { type: "table", columns: ["path", "type"], rows, total_rows: rows.length };
  const unknown = {
    type: "graph",
    data: { nodes: Array.from({ length: 5_000 }, (_, i) => `n${i}`) },
  };
  const [cutDiff, cutTable, cutUnknown] = readDisplayBlocks([diff, table, unknown]);
  for (const block of [cutDiff, cutTable, cutUnknown]) {
    assert.ok(
      block !== undefined && size(block) <= MAX_DISPLAY_BLOCK_BYTES,
      JSON.stringify(block).length.toString(),
    );
  }
  assert.equal(cutDiff?.type, "diff");
  assert.ok(isKnownBlock(cutDiff as DisplayBlock));
  assert.match((cutDiff as { diff: string }).diff, /\[cut \d+ characters\]$/);
  assert.ok(isKnownBlock(cutTable as DisplayBlock));
  const kept = cutTable as TableBlock;
  assert.deepEqual(kept.columns, ["path", "type"]);
  assert.ok(kept.rows.length < rows.length && kept.rows.length > 0);
  assert.equal(kept.total_rows, rows.length);
  assert.equal(cutUnknown?.type, "graph");
  // The near miss: a block under the cap is kept exactly.
  const small = { type: "diff", path: "a.ts", diff: "+x\n".repeat(100), added: 100, removed: 0 };
  assert.deepEqual(readDisplayBlocks([small]), [small]);
});

Deno.test("past MAX_DISPLAY_BLOCKS blocks the rest are counted in a last brief", () => {
  const many = Array.from({ length: MAX_DISPLAY_BLOCKS + 5 }, (_, index) => ({
    type: "brief",
    text: `block ${index}`,
  }));
  const blocks = readDisplayBlocks(many);
  assert.equal(blocks.length, MAX_DISPLAY_BLOCKS);
  assert.match((blocks.at(-1) as { text: string }).text, /^\[6 more display blocks left out/);
  assert.equal(readDisplayBlocks(many.slice(0, MAX_DISPLAY_BLOCKS)).length, MAX_DISPLAY_BLOCKS);
});
