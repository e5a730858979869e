import assert from "node:assert/strict";
import { NameQueue } from "./_name_queue.ts";

function drain(queue: NameQueue): string[] {
  const out: string[] = [];
  for (let name = queue.take(); name !== undefined; name = queue.take()) out.push(name);
  return out;
}

Deno.test("NameQueue hands out names in sorted order for small and heap-sized folders", () => {
  for (const count of [0, 1, 5, 2048, 2049, 10_000]) {
    // Deterministic shuffle with duplicates of prefixes, capitals and non-ASCII names.
    const names: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const key = (index * 7919) % Math.max(count, 1);
      names.push(index % 3 === 0 ? `File${key}` : index % 3 === 1 ? `f${key}.ts` : `é${key}`);
    }
    const expected = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const queue = new NameQueue(names);
    assert.equal(queue.remaining, count);
    assert.deepEqual(drain(queue), expected, `count ${count}`);
    assert.equal(queue.remaining, 0);
  }
});
