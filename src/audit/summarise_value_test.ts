import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { summariseValue } from "./summarise_value.ts";
import { deeperThanMarker, MAX_VALUE_DEPTH } from "../result/mod.ts";

Deno.test("summariseValue shortens a string when it is longer than the maximum", () => {
  const text = "a".repeat(64) + "b".repeat(4032);
  const digest = createHash("sha256").update(text).digest("hex").slice(0, 16);
  assert.equal(summariseValue(text), `${"a".repeat(64)}… [4096 chars, sha256 ${digest}…]`);
});

Deno.test("summariseValue keeps a string whole when it is at the maximum", () => {
  const text = "é".repeat(256);
  assert.equal(summariseValue(text), text);
  assert.equal(summariseValue("x".repeat(10), { maxStringLength: 10 }), "x".repeat(10));
});

Deno.test("summariseValue counts characters not code units when strings hold emoji", () => {
  const text = "😀".repeat(300);
  const summary = summariseValue(text) as string;
  assert.ok(summary.startsWith(`${"😀".repeat(64)}… [300 chars, sha256 `), summary.slice(0, 200));
  assert.equal(summariseValue("😀".repeat(200)), "😀".repeat(200));
});

Deno.test("summariseValue cuts an array with a marker when it has more than 50 items", () => {
  const items = Array.from({ length: 1000 }, (_, index) => index);
  const summary = summariseValue({ items }) as { items: unknown[] };
  assert.equal(summary.items.length, 51);
  assert.deepEqual(summary.items.slice(0, 50), items.slice(0, 50));
  assert.equal(summary.items[50], "… 950 more items");
  assert.deepEqual(summariseValue(Array.from({ length: 51 }, () => 0)), [
    ...Array.from({ length: 50 }, () => 0),
    "… 1 more item",
  ]);
});

Deno.test("summariseValue summarises nested values and leaves the input unchanged when copying", () => {
  const input = { a: { b: ["x".repeat(300)] }, n: 1, flag: true, nothing: null };
  const summary = summariseValue(input, { maxStringLength: 100 }) as typeof input;
  assert.match(summary.a.b[0] ?? "", /^x{64}… \[300 chars, sha256 [0-9a-f]{16}…\]$/);
  assert.equal(summary.n, 1);
  assert.equal(summary.nothing, null);
  assert.equal(input.a.b[0]?.length, 300);
});

Deno.test("summariseValue keeps the prefix under the maximum when the maximum is below 64", () => {
  assert.match(
    summariseValue("y".repeat(40), { maxStringLength: 8 }) as string,
    /^y{8}… \[40 chars/,
  );
});

Deno.test("summariseValue cuts a value nested 100,000 levels deep to a marker, never overflowing the stack", () => {
  const deep = JSON.parse(`{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}`);
  const summary = summariseValue(deep) as { a: unknown };
  let node: unknown = summary.a;
  let levels = 1;
  while (Array.isArray(node)) {
    node = node[0];
    levels += 1;
  }
  assert.equal(node, deeperThanMarker());
  // The object and 255 arrays: 256 levels kept, the 257th is the marker.
  assert.equal(levels, MAX_VALUE_DEPTH);
  // Near miss: a value exactly at the limit is copied whole.
  const atLimit = JSON.parse(`${"[".repeat(MAX_VALUE_DEPTH)}"x"${"]".repeat(MAX_VALUE_DEPTH)}`);
  assert.deepEqual(summariseValue(atLimit), atLimit);
});
