/**
 * The shared contract test of memory providers: every provider registers these cases, so the file
 * store and the HTTP client (against a real server) behave the same.
 *
 * @module
 */

import assert from "node:assert/strict";
import { MAX_MEMORY_BYTES, MemoryError, type MemoryProvider } from "./memory_provider.ts";

/** A provider under test, with what it needs cleaned up afterwards. */
export interface ProviderFixture extends AsyncDisposable {
  provider: MemoryProvider;
}

/**
 * Registers the contract cases with `Deno.test`, each on a fresh provider from `open`. The
 * provider must allow the scopes `project` and `user`.
 *
 * @param label Prefix of the test names, e.g. `FileMemoryProvider`.
 * @param open Makes a fresh, empty provider.
 */
export function testMemoryContract(label: string, open: () => Promise<ProviderFixture>): void {
  Deno.test(`${label} recalls a written memory first when the query matches it`, async () => {
    await using fixture = await open();
    const { provider } = fixture;
    await provider.write("The build uses deno task check before commits", "project", []);
    const written = await provider.write(
      "Integration tests need the loopback network: --allow-net=127.0.0.1",
      "project",
      ["testing", "network"],
    );
    await provider.write("Lunch is at noon", "project", []);
    const records = await provider.recall("which network do integration tests need", "project", 5);
    assert.ok(records.length >= 1);
    const [best] = records;
    assert.equal(best?.id, written.id);
    assert.equal(best?.content, written.content);
    assert.deepEqual(best?.tags, ["testing", "network"]);
    assert.equal(best?.scope, "project");
    assert.equal(best?.created_at, written.created_at);
    assert.equal(typeof best?.score, "number");
    assert.ok(!Number.isNaN(Date.parse(written.created_at)));
  });

  Deno.test(`${label} keeps scopes apart when two scopes hold similar memories`, async () => {
    await using fixture = await open();
    const { provider } = fixture;
    await provider.write("favourite editor is helix", "user", []);
    await provider.write("project editor config lives in .editorconfig", "project", []);
    const user = await provider.recall("editor", "user", 10);
    const project = await provider.recall("editor", "project", 10);
    assert.deepEqual(user.map((record) => record.content), ["favourite editor is helix"]);
    assert.deepEqual(project.map((record) => record.content), [
      "project editor config lives in .editorconfig",
    ]);
    assert.ok(
      [...user, ...project].every((record, index) =>
        record.scope === (index === 0 ? "user" : "project")
      ),
    );
  });

  Deno.test(`${label} returns at most limit records when more match`, async () => {
    await using fixture = await open();
    const { provider } = fixture;
    for (let index = 0; index < 7; index++) {
      await provider.write(`release note number ${index}`, "project", []);
    }
    assert.equal((await provider.recall("release note", "project", 3)).length, 3);
    assert.equal((await provider.recall("release note", "project", 50)).length, 7);
    await assert.rejects(provider.recall("release", "project", 0), MemoryError);
    await assert.rejects(provider.recall("release", "project", 51), MemoryError);
  });

  Deno.test(`${label} refuses a scope when it is path-like or not allowed`, async () => {
    await using fixture = await open();
    const { provider } = fixture;
    for (const scope of ["../x", "/etc", "a/b", "", "..", "Project", "secret"]) {
      await assert.rejects(
        provider.write("content", scope, []),
        (error: unknown) => error instanceof MemoryError && error.code === "invalid_scope",
        `write to ${JSON.stringify(scope)}`,
      );
      await assert.rejects(
        provider.recall("content", scope, 5),
        (error: unknown) => error instanceof MemoryError && error.code === "invalid_scope",
        `recall from ${JSON.stringify(scope)}`,
      );
    }
    // The near miss: an allowed scope works.
    await provider.write("content", "user", []);
    assert.equal((await provider.recall("content", "user", 5)).length, 1);
  });

  Deno.test(`${label} refuses content when it is larger than the cap`, async () => {
    await using fixture = await open();
    const { provider } = fixture;
    await assert.rejects(
      provider.write("x".repeat(MAX_MEMORY_BYTES + 1), "project", []),
      (error: unknown) => error instanceof MemoryError && error.code === "content_too_large",
    );
    // Multi-byte characters count as bytes: 5462 × 3 bytes > 16 KiB.
    await assert.rejects(provider.write("€".repeat(5462), "project", []), MemoryError);
    // The near miss: exactly the cap is stored.
    await provider.write("y".repeat(MAX_MEMORY_BYTES), "project", []);
    assert.equal((await provider.recall("anything", "project", 5)).length, 0);
  });

  Deno.test(`${label} refuses tags when they are invalid or too many`, async () => {
    await using fixture = await open();
    const { provider } = fixture;
    await assert.rejects(provider.write("a", "project", ["Bad Tag"]), MemoryError);
    await assert.rejects(provider.write("a", "project", ["../x"]), MemoryError);
    const many = Array.from({ length: 17 }, (_, index) => `t${index}`);
    await assert.rejects(provider.write("a", "project", many), MemoryError);
    const record = await provider.write("a", "project", many.slice(0, 16));
    assert.equal(record.tags.length, 16);
  });
}
