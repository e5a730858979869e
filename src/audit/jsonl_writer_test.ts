import assert from "node:assert/strict";
import { join } from "node:path";
import { chainAnchor, lineHash } from "./audit_chain.ts";
import { AuditWriteError } from "./audit_write_error.ts";
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
    const error = await writer.write({ n: 1 }).then(() => null, (error: unknown) => error);
    assert.ok(error instanceof AuditWriteError, String(error));
    assert.equal(error.failure, "not_found");
    assert.ok(error.cause instanceof Deno.errors.NotFound);
    await Deno.mkdir(join(dir, "missing"));
    await writer.write({ n: 2 });
    await writer.close();
    assert.deepEqual(await readJsonl(join(dir, "missing", "log.jsonl")), [{ n: 2 }]);
  });
});

/**
 * A file that takes `capacity` bytes in all, in chunks of at most `chunk` bytes, then fails as a
 * full disk does; `truncate` gives the space back, or fails when `truncateFails`.
 */
function fullDisk(capacity: number, chunk = 7, truncateFails = false) {
  let content = new Uint8Array();
  const file = {
    get text() {
      return new TextDecoder().decode(content);
    },
    free(bytes: number) {
      capacity += bytes;
    },
    truncateFails,
    open: () =>
      Promise.resolve({
        write(bytes: Uint8Array): Promise<number> {
          const room = Math.min(capacity - content.length, chunk, bytes.length);
          if (room <= 0) {
            return Promise.reject(
              Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" }),
            );
          }
          const next = new Uint8Array(content.length + room);
          next.set(content);
          next.set(bytes.subarray(0, room), content.length);
          content = next;
          return Promise.resolve(room);
        },
        truncate(length: number): Promise<void> {
          if (file.truncateFails) return Promise.reject(new Error("Input/output error"));
          content = content.slice(0, length);
          return Promise.resolve();
        },
        stat: () => Promise.resolve({ size: content.length }),
        close() {},
      }),
  };
  return file;
}

Deno.test("JsonlWriter leaves no half line when the disk fills in the middle of a record", async () => {
  const disk = fullDisk(40);
  const writer = new JsonlWriter("events.jsonl", { open: disk.open });
  await writer.write({ n: 1 });
  const error = await writer.write({ text: "x".repeat(100) }).then(() => null, (error) => error);
  assert.ok(error instanceof AuditWriteError, String(error));
  assert.equal(error.failure, "no_space");
  assert.match(error.message, /^Cannot write "events\.jsonl": the disk is full .*"runs_dir"/);
  // Only whole lines: the record that did not fit is gone whole.
  assert.equal(disk.text, '{"n":1}\n');
  // Near miss: a record that fits still goes in after the failure.
  await writer.write({ n: 2 });
  await writer.close();
  assert.equal(disk.text, '{"n":1}\n{"n":2}\n');
});

Deno.test("JsonlWriter repairs a half line it could not cut before it writes again", async () => {
  const disk = fullDisk(30, 7, true);
  const writer = new JsonlWriter("events.jsonl", { open: disk.open });
  await writer.write({ n: 1 });
  await assert.rejects(writer.write({ text: "x".repeat(100) }), AuditWriteError);
  assert.notEqual(disk.text, '{"n":1}\n', "the fake left part of the line, as a failed cut does");
  // The cut keeps failing: nothing is appended after the half line.
  await assert.rejects(writer.write({ n: 2 }), AuditWriteError);
  assert.ok(!disk.text.includes('"n":2'), disk.text);
  // Once the cut works, the half line goes and the next record is whole.
  disk.truncateFails = false;
  disk.free(100);
  await writer.write({ n: 3 });
  await writer.close();
  assert.equal(disk.text, '{"n":1}\n{"n":3}\n');
});

Deno.test("JsonlWriter chains each line to the one before it when given an anchor", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "events.jsonl");
    const anchor = chainAnchor("run-1", "policy", "events.jsonl");
    const writer = new JsonlWriter(path, { chain: { anchor } });
    const links = await Promise.all([
      writer.write({ n: 1 }),
      writer.write({}),
      writer.write({ n: 3 }),
    ]);
    await writer.close();
    const lines = (await Deno.readTextFile(path)).split("\n").slice(0, -1);
    assert.equal(lines[0], `{"n":1,"seq":1,"prev":"${anchor}"}`);
    assert.equal(lines[1], `{"seq":2,"prev":"${lineHash(lines[0] as string)}"}`);
    assert.equal(JSON.parse(lines[2] as string).prev, lineHash(lines[1] as string));
    assert.deepEqual(links.map((link) => link?.seq), [1, 2, 3]);
    assert.equal(links[2]?.hash, lineHash(lines[2] as string));
    // Near miss: without a chain the line is the record as given, and write gives null.
    const plain = new JsonlWriter(join(dir, "plain.jsonl"));
    assert.equal(await plain.write({ n: 1 }), null);
    await plain.close();
    assert.equal(await Deno.readTextFile(join(dir, "plain.jsonl")), '{"n":1}\n');
  });
});

Deno.test("JsonlWriter continues the chain of a file that already holds records when reopened", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "errors.jsonl");
    const chain = { anchor: chainAnchor("run-1", null, "logs/errors.jsonl") };
    const first = new JsonlWriter(path, { chain });
    await first.write({ n: 1 });
    await first.close();
    const second = new JsonlWriter(path, { chain });
    assert.equal((await second.head())?.seq, 1);
    await second.write({ n: 2 });
    await second.close();
    const lines = (await Deno.readTextFile(path)).split("\n").slice(0, -1);
    assert.deepEqual(JSON.parse(lines[1] as string), {
      n: 2,
      seq: 2,
      prev: lineHash(lines[0] as string),
    });
  });
});

Deno.test("JsonlWriter keeps the chain whole when the disk refuses a chained line", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "events.jsonl");
    let refuse = false;
    const writer = new JsonlWriter(path, {
      chain: { anchor: chainAnchor("run-1", null, "events.jsonl") },
      open: async (file) => {
        const real = await Deno.open(file, { append: true, create: true });
        return {
          write: (bytes) => refuse ? Promise.reject(new Error("ENOSPC")) : real.write(bytes),
          truncate: (length) => real.truncate(length),
          stat: () => real.stat(),
          close: () => real.close(),
        };
      },
    });
    await writer.write({ n: 1 });
    refuse = true;
    await assert.rejects(writer.write({ n: 2 }), AuditWriteError);
    refuse = false;
    const link = await writer.write({ n: 3 });
    await assert.rejects(writer.write({ seq: 9 }), /"seq" and "prev" are set by the chain/);
    await writer.close();
    const lines = (await Deno.readTextFile(path)).split("\n").slice(0, -1);
    // The refused record left no gap: the next one takes its seq and links to the last whole line.
    assert.equal(link?.seq, 2);
    assert.deepEqual(JSON.parse(lines[1] as string), {
      n: 3,
      seq: 2,
      prev: lineHash(lines[0] as string),
    });
  });
});

Deno.test("JsonlWriter leaves no half line when a synchronous write fills the disk", async () => {
  let syncWrites = 0;
  // A synchronous fake: the chunked full disk of fullDisk, without promises.
  let content = "";
  const capacity = 40;
  const syncDisk = {
    open: () =>
      Promise.resolve({
        write: () => Promise.reject(new Error("the asynchronous write is not used")),
        writeSync(bytes: Uint8Array): number {
          syncWrites += 1;
          const room = Math.min(capacity - content.length, 7, bytes.length);
          if (room <= 0) throw new Error("No space left on device (os error 28)");
          content += new TextDecoder().decode(bytes.subarray(0, room));
          return room;
        },
        truncate(length: number): Promise<void> {
          content = content.slice(0, length);
          return Promise.resolve();
        },
        stat: () => Promise.resolve({ size: content.length }),
        close() {},
      }),
  };
  const writer = new JsonlWriter("events.jsonl", { open: syncDisk.open });
  await writer.write({ n: 1 });
  await assert.rejects(writer.write({ text: "x".repeat(100) }), AuditWriteError);
  assert.equal(content, '{"n":1}\n', "the record that did not fit is gone whole");
  await writer.write({ n: 2 });
  await writer.close();
  assert.equal(content, '{"n":1}\n{"n":2}\n');
  assert.ok(syncWrites > 3, "written through writeSync");
});
