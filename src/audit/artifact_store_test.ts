import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { ArtifactStore } from "./artifact_store.ts";
import { withTempDir } from "./_test_helpers.ts";

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function listArtifacts(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("ArtifactStore.store names the file by sha256 when storing text", async () => {
  await withTempDir(async (runDir) => {
    const store = new ArtifactStore({
      artifactsDir: join(runDir, "artifacts"),
      runDir,
      maxBytes: 1024,
    });
    const artifact = await store.store("héllo\n", "text/plain; charset=utf-8");
    const onDisk = await Deno.readFile(join(runDir, artifact.ref));
    assert.equal(artifact.sha256, sha256(onDisk));
    assert.deepEqual(artifact, {
      ref: `artifacts/${sha256(new TextEncoder().encode("héllo\n"))}.txt`,
      sha256: artifact.sha256,
      bytes: 7,
      media_type: "text/plain; charset=utf-8",
      truncated: false,
      original_bytes: 7,
    });
    assert.equal(new TextDecoder().decode(onDisk), "héllo\n");
  });
});

Deno.test("ArtifactStore.store keeps one file when the same content is stored twice", async () => {
  await withTempDir(async (runDir) => {
    const artifactsDir = join(runDir, "artifacts");
    const store = new ArtifactStore({ artifactsDir, runDir, maxBytes: 1024 });
    const results = await Promise.all([
      store.store('{"a":1}', "application/json"),
      store.store('{"a":1}', "application/json"),
      store.store(new TextEncoder().encode('{"a":1}'), "application/json"),
    ]);
    assert.equal(new Set(results.map((result) => result.ref)).size, 1);
    assert.match(results[0]?.ref ?? "", /^artifacts\/[0-9a-f]{64}\.json$/);
    assert.deepEqual(await listArtifacts(artifactsDir), [`${results[0]?.sha256}.json`]);
  });
});

Deno.test("ArtifactStore.store cuts content and marks it truncated when above maxBytes", async () => {
  await withTempDir(async (runDir) => {
    const store = new ArtifactStore({
      artifactsDir: join(runDir, "artifacts"),
      runDir,
      maxBytes: 10,
    });
    const bytes = Uint8Array.from({ length: 25 }, (_, index) => index);
    const artifact = await store.store(bytes, "application/octet-stream");
    const onDisk = await Deno.readFile(join(runDir, artifact.ref));
    assert.deepEqual(onDisk, bytes.subarray(0, 10));
    assert.equal(artifact.truncated, true);
    assert.equal(artifact.bytes, 10);
    assert.equal(artifact.original_bytes, 25);
    assert.equal(artifact.sha256, sha256(onDisk));
    assert.ok(artifact.ref.endsWith(".bin"));
  });
});

Deno.test("ArtifactStore.store cuts text on a character boundary when a character straddles maxBytes", async () => {
  await withTempDir(async (runDir) => {
    const store = new ArtifactStore({
      artifactsDir: join(runDir, "artifacts"),
      runDir,
      maxBytes: 5,
    });
    const artifact = await store.store("abcdé€", "text/markdown");
    const text = new TextDecoder("utf-8", { fatal: true }).decode(
      await Deno.readFile(join(runDir, artifact.ref)),
    );
    assert.equal(text, "abcd");
    assert.equal(artifact.truncated, true);
    assert.equal(artifact.original_bytes, 9);
  });
});

Deno.test("ArtifactStore.store leaves no temporary file when the store completes", async () => {
  await withTempDir(async (runDir) => {
    const artifactsDir = join(runDir, "artifacts");
    const store = new ArtifactStore({ artifactsDir, runDir, maxBytes: 100 });
    await store.store("one", "text/plain");
    await store.store("two", "application/problem+json");
    const names = await listArtifacts(artifactsDir);
    assert.equal(names.length, 2);
    assert.ok(names.every((name) => /^[0-9a-f]{64}\.(txt|json)$/.test(name)), names.join());
  });
});

Deno.test("ArtifactStore refuses an artifacts folder when it is outside the run folder", () => {
  assert.throws(
    () => new ArtifactStore({ artifactsDir: "/tmp/elsewhere", runDir: "/tmp/run", maxBytes: 1 }),
    RangeError,
  );
  assert.throws(
    () => new ArtifactStore({ artifactsDir: "/tmp/run/a", runDir: "/tmp/run", maxBytes: -1 }),
    RangeError,
  );
});

Deno.test("ArtifactStore.store names the file by sha256 on both sides of the size hashed at once", async () => {
  await withTempDir(async (runDir) => {
    const store = new ArtifactStore({
      artifactsDir: join(runDir, "artifacts"),
      runDir,
      maxBytes: 4 * 1024 * 1024,
    });
    // 1 MiB is hashed on the calling thread, one byte more by crypto.subtle: the same names.
    for (const size of [1024 * 1024, 1024 * 1024 + 1]) {
      const bytes = new Uint8Array(size).map((_, index) => index % 251);
      const artifact = await store.store(bytes, "application/octet-stream");
      const onDisk = await Deno.readFile(join(runDir, artifact.ref));
      assert.equal(artifact.sha256, sha256(bytes));
      assert.equal(artifact.ref, `artifacts/${sha256(onDisk)}.bin`);
      assert.equal(artifact.bytes, size);
    }
  });
});
