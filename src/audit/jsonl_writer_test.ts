import assert from "node:assert/strict";
import { join } from "node:path";
import { JsonlWriter } from "./jsonl_writer.ts";
import { readJsonl, withTempDir } from "./_test_helpers.ts";

Deno.test("JsonlWriter keeps every line whole when 1000 writes of varied sizes run at once", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "events.jsonl");
    const writer = new JsonlWriter(path);
    const sizes = [0, 1, 100, 4096, 65_537, 100 * 1024];
    const writes = Array.from({ length: 1000 }, (_, index) =>
      writer.write({
        index,
        text: String.fromCharCode(97 + (index % 26)).repeat(sizes[index % sizes.length] ?? 0),
        unicode: "é\u2028ü",
      }));
    await Promise.all(writes);
    await writer.close();
    const records = await readJsonl(path);
    assert.equal(records.length, 1000);
    assert.deepEqual(
      records.map((record) => record.index),
      Array.from({ length: 1000 }, (_, i) => i),
    );
    for (const record of records) {
      const index = record.index as number;
      assert.equal((record.text as string).length, sizes[index % sizes.length]);
      assert.equal(record.unicode, "é\u2028ü");
    }
  });
});

Deno.test("JsonlWriter close waits for pending writes when called right after them", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "log.jsonl");
    const writer = new JsonlWriter(path);
    for (let index = 0; index < 50; index++) void writer.write({ index, pad: "x".repeat(10_000) });
    await writer.close();
    assert.equal((await readJsonl(path)).length, 50);
  });
});

Deno.test("JsonlWriter write rejects with a TypeError when the writer is closed", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "log.jsonl");
    const writer = new JsonlWriter(path);
    await writer.write({ n: 1 });
    await writer.close();
    await assert.rejects(writer.write({ n: 2 }), TypeError);
    assert.equal(await Deno.readTextFile(path), '{"n":1}\n');
  });
});

Deno.test("JsonlWriter appends to the file when it already holds lines", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "log.jsonl");
    await Deno.writeTextFile(path, '{"n":0}\n');
    const writer = new JsonlWriter(path);
    await writer.write({ n: 1 });
    await writer.close();
    assert.deepEqual(await readJsonl(path), [{ n: 0 }, { n: 1 }]);
  });
});

Deno.test("JsonlWriter rejects a record and keeps later ones when it cannot be serialised", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "log.jsonl");
    const writer = new JsonlWriter(path);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await assert.rejects(writer.write(cyclic), TypeError);
    await assert.rejects(writer.write({ big: 1n }), TypeError);
    await writer.write({ n: 1 });
    await writer.close();
    assert.deepEqual(await readJsonl(path), [{ n: 1 }]);
  });
});

Deno.test("JsonlWriter snapshots a record when it is changed after write", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "log.jsonl");
    const writer = new JsonlWriter(path);
    const record = { state: "before" };
    const written = writer.write(record);
    record.state = "after";
    await written;
    await writer.close();
    assert.deepEqual(await readJsonl(path), [{ state: "before" }]);
  });
});

Deno.test("JsonlWriter write rejects without stopping later writes when the folder is missing", async () => {
  await withTempDir(async (dir) => {
    const writer = new JsonlWriter(join(dir, "missing", "log.jsonl"));
    await assert.rejects(writer.write({ n: 1 }), Deno.errors.NotFound);
    await Deno.mkdir(join(dir, "missing"));
    await writer.write({ n: 2 });
    await writer.close();
    assert.deepEqual(await readJsonl(join(dir, "missing", "log.jsonl")), [{ n: 2 }]);
  });
});
