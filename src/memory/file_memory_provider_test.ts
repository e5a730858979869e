import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { testMemoryContract } from "./_memory_contract.ts";
import { FileMemoryProvider } from "./file_memory_provider.ts";

async function openFileProvider(options: { now?: () => Date } = {}) {
  const folder = await Deno.makeTempDir({ prefix: "kagent-memory-" });
  const provider = new FileMemoryProvider({
    folder: nodePath.join(folder, "memory"),
    ...(options.now ? { now: options.now } : {}),
  });
  return {
    provider,
    folder,
    [Symbol.asyncDispose]: () => Deno.remove(folder, { recursive: true }),
  };
}

testMemoryContract("FileMemoryProvider", openFileProvider);

Deno.test("FileMemoryProvider stores one JSON line per record in <folder>/<scope>.jsonl", async () => {
  await using fixture = await openFileProvider();
  const record = await fixture.provider.write("alpha", "project", ["a"]);
  await fixture.provider.write("beta", "user", []);
  const file = nodePath.join(fixture.folder, "memory", "project.jsonl");
  const lines = (await Deno.readTextFile(file)).trimEnd().split("\n");
  assert.equal(lines.length, 1);
  assert.deepEqual(JSON.parse(lines[0] ?? ""), record);
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
  const names = [...Deno.readDirSync(nodePath.join(fixture.folder, "memory"))].map((e) => e.name);
  assert.deepEqual(names.sort(), ["project.jsonl", "user.jsonl"]);
});

Deno.test("FileMemoryProvider keeps every line whole when writes run concurrently", async () => {
  await using fixture = await openFileProvider();
  const content = (index: number) => `concurrent ${index} ${"z".repeat(4000)}`;
  await Promise.all(
    Array.from({ length: 40 }, (_, index) => fixture.provider.write(content(index), "project", [])),
  );
  const file = nodePath.join(fixture.folder, "memory", "project.jsonl");
  const lines = (await Deno.readTextFile(file)).trimEnd().split("\n");
  assert.equal(lines.length, 40);
  const contents = new Set(lines.map((line) => JSON.parse(line).content));
  assert.equal(contents.size, 40);
});

Deno.test("FileMemoryProvider breaks ties by recency when scores are equal", async () => {
  let tick = 0;
  await using fixture = await openFileProvider({
    now: () => new Date(Date.UTC(2025, 0, 1, 0, 0, tick++)),
  });
  await fixture.provider.write("deploy window is friday", "project", []);
  await fixture.provider.write("deploy window is monday", "project", []);
  const records = await fixture.provider.recall("deploy window", "project", 5);
  assert.deepEqual(records.map((record) => record.content), [
    "deploy window is monday",
    "deploy window is friday",
  ]);
  assert.equal(records[0]?.score, records[1]?.score);
});

Deno.test("FileMemoryProvider returns the newest records when the query has no words", async () => {
  let tick = 0;
  await using fixture = await openFileProvider({
    now: () => new Date(Date.UTC(2025, 0, 1, 0, 0, tick++)),
  });
  for (const word of ["one", "two", "three"]) await fixture.provider.write(word, "project", []);
  const records = await fixture.provider.recall("", "project", 2);
  assert.deepEqual(records.map((record) => record.content), ["three", "two"]);
});

Deno.test("FileMemoryProvider skips broken lines when the file was damaged", async () => {
  await using fixture = await openFileProvider();
  await fixture.provider.write("kept memory", "project", []);
  const file = nodePath.join(fixture.folder, "memory", "project.jsonl");
  await Deno.writeTextFile(file, '{"torn": \nnot json\n{"id":"x","scope":"user"}\n', {
    append: true,
  });
  await fixture.provider.write("another kept memory", "project", []);
  const records = await fixture.provider.recall("kept memory", "project", 10);
  assert.equal(records.length, 2);
});

Deno.test("FileMemoryProvider returns nothing when the scope was never written", async () => {
  await using fixture = await openFileProvider();
  assert.deepEqual(await fixture.provider.recall("anything", "run", 5), []);
});

Deno.test("FileMemoryProvider refuses a relative folder when it is constructed", () => {
  assert.throws(() => new FileMemoryProvider({ folder: "memory" }), TypeError);
});
