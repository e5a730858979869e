import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { testMemoryContract } from "./_memory_contract.ts";
import { FileMemoryProvider } from "./file_memory_provider.ts";
import { HttpMemoryProvider } from "./http_memory_provider.ts";
import { MemoryError, type MemoryProvider } from "./memory_provider.ts";

/** A real memory service on loopback, backed by a file store; records each request's headers. */
async function openServer(options: { delayMs?: number; status?: number; answer?: unknown } = {}) {
  const folder = await Deno.makeTempDir({ prefix: "kagent-memory-http-" });
  const store: MemoryProvider = new FileMemoryProvider({ folder: nodePath.join(folder, "memory") });
  const seen: Headers[] = [];
  const abort = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: abort.signal, onListen: () => {} },
    async (request) => {
      seen.push(request.headers);
      if (options.delayMs !== undefined) {
        await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      }
      if (options.status !== undefined) return new Response("failed", { status: options.status });
      if (options.answer !== undefined) return Response.json(options.answer);
      const path = new URL(request.url).pathname;
      const body = await request.json();
      try {
        if (path === "/v1/recall") {
          return Response.json({ records: await store.recall(body.query, body.scope, body.limit) });
        }
        if (path === "/v1/write") {
          return Response.json({ record: await store.write(body.content, body.scope, body.tags) });
        }
        return new Response("not found", { status: 404 });
      } catch (error) {
        const status = error instanceof MemoryError && error.isInvalidArgument ? 400 : 500;
        return Response.json({ error: String(error) }, { status });
      }
    },
  );
  const baseUrl = `http://127.0.0.1:${server.addr.port}/v1/`;
  return {
    baseUrl,
    seen,
    async [Symbol.asyncDispose]() {
      abort.abort();
      await server.finished;
      await Deno.remove(folder, { recursive: true });
    },
  };
}

testMemoryContract("HttpMemoryProvider", async () => {
  const server = await openServer();
  return {
    provider: new HttpMemoryProvider({ base_url: server.baseUrl }),
    [Symbol.asyncDispose]: () => server[Symbol.asyncDispose](),
  };
});

Deno.test("HttpMemoryProvider sends the bearer token read from the named variable", async () => {
  await using server = await openServer();
  const asked: string[] = [];
  const provider = new HttpMemoryProvider({
    base_url: server.baseUrl,
    token_env: "MEMORY_TOKEN",
    env: (name) => {
      asked.push(name);
      return name === "MEMORY_TOKEN" ? "tok-123456789" : undefined;
    },
  });
  await provider.write("remember this", "project", []);
  await provider.recall("remember", "project", 1);
  assert.deepEqual(asked, ["MEMORY_TOKEN", "MEMORY_TOKEN"]);
  assert.deepEqual(server.seen.map((headers) => headers.get("authorization")), [
    "Bearer tok-123456789",
    "Bearer tok-123456789",
  ]);
});

Deno.test("HttpMemoryProvider sends no Authorization header when no token_env is set", async () => {
  await using server = await openServer();
  await new HttpMemoryProvider({ base_url: server.baseUrl }).recall("x", "project", 1);
  assert.equal(server.seen[0]?.get("authorization"), null);
});

Deno.test("HttpMemoryProvider fails without a request when the token variable is unset", async () => {
  await using server = await openServer();
  const provider = new HttpMemoryProvider({ base_url: server.baseUrl, token_env: "MISSING" });
  await assert.rejects(provider.recall("x", "project", 1), (error: unknown) => {
    assert.ok(error instanceof MemoryError);
    assert.equal(error.code, "unavailable");
    assert.match(error.message, /environment variable "MISSING" is not set$/);
    return true;
  });
  assert.equal(server.seen.length, 0);
});

Deno.test("HttpMemoryProvider fails with timeout when the service answers too late", async () => {
  await using server = await openServer({ delayMs: 500 });
  const provider = new HttpMemoryProvider({ base_url: server.baseUrl, timeout_ms: 50 });
  const started = performance.now();
  await assert.rejects(provider.recall("x", "project", 1), (error: unknown) => {
    assert.ok(error instanceof MemoryError);
    assert.equal(error.code, "timeout");
    assert.equal(
      error.message,
      `Cannot recall memory from "${server.baseUrl}recall": no answer within 50 ms`,
    );
    return true;
  });
  assert.ok(performance.now() - started < 450);
});

Deno.test("HttpMemoryProvider reports the status when the service answers HTTP 500", async () => {
  await using server = await openServer({ status: 500 });
  const provider = new HttpMemoryProvider({ base_url: server.baseUrl });
  await assert.rejects(
    provider.recall("x", "project", 1),
    new RegExp(`^MemoryError: Cannot recall memory from "${server.baseUrl}recall": HTTP 500$`),
  );
});

Deno.test("HttpMemoryProvider refuses the answer when it has unknown keys or a wrong scope", async () => {
  const record = {
    id: "1",
    scope: "project",
    content: "c",
    tags: [],
    created_at: "2025-01-01T00:00:00.000Z",
  };
  for (
    const answer of [
      { records: [record], extra: true },
      { records: [{ ...record, injected: "x" }] },
      { records: [{ ...record, scope: "user" }] },
      { records: "nope" },
    ]
  ) {
    await using server = await openServer({ answer });
    const provider = new HttpMemoryProvider({ base_url: server.baseUrl });
    await assert.rejects(
      provider.recall("c", "project", 5),
      (error: unknown) => error instanceof MemoryError && error.code === "invalid_response",
      JSON.stringify(answer),
    );
  }
  // The near miss: the exact shape is accepted.
  await using server = await openServer({ answer: { records: [record] } });
  const records = await new HttpMemoryProvider({ base_url: server.baseUrl }).recall(
    "c",
    "project",
    5,
  );
  assert.deepEqual(records, [record]);
});

Deno.test("HttpMemoryProvider refuses a base URL when it is unsafe", () => {
  assert.throws(() => new HttpMemoryProvider({ base_url: "ftp://host/x" }), TypeError);
  assert.throws(() => new HttpMemoryProvider({ base_url: "https://u:p@host/x" }), TypeError);
  assert.throws(
    () => new HttpMemoryProvider({ base_url: "http://memory.example.com", token_env: "T" }),
    TypeError,
  );
  // Near misses.
  new HttpMemoryProvider({ base_url: "https://memory.example.com", token_env: "T" });
  new HttpMemoryProvider({ base_url: "http://127.0.0.1:9/", token_env: "T" });
});

Deno.test("HttpMemoryProvider fails with unavailable when nothing listens", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const provider = new HttpMemoryProvider({ base_url: `http://127.0.0.1:${port}` });
  await assert.rejects(
    provider.write("x", "project", []),
    (error: unknown) => error instanceof MemoryError && error.code === "unavailable",
  );
});
