// docs/MEMORY_SERVICE.md against the HTTP memory client: its real requests have the documented
// method, path, headers and body shape; the documented answers are accepted as they are; the
// documented failures are read as documented.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { HttpMemoryProvider } from "../src/memory/http_memory_provider.ts";
import { MemoryError } from "../src/memory/mod.ts";
import { repository } from "./_cli_helpers.ts";

const DOC = Deno.readTextFileSync(nodePath.join(repository, "docs", "MEMORY_SERVICE.md"));

/** The JSON block after `<!-- wire: NAME -->`. */
function example(name: string): Record<string, unknown> {
  const match = new RegExp(`<!-- wire: ${name} -->\\s*\`\`\`json\\n([\\s\\S]*?)\\n\`\`\``).exec(
    DOC,
  );
  assert.ok(match, `docs/MEMORY_SERVICE.md has no "${name}" example`);
  return JSON.parse(match[1] ?? "");
}

/** The JSON type of each key, deeply (arrays by their first element), to compare shapes. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return [value.length === 0 ? "empty" : shape(value[0])];
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map((
        [key, entry],
      ) => [key, shape(entry)]),
    );
  }
  return value === null ? "null" : typeof value;
}

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A service on loopback that answers each path with `answers[path]` and keeps the requests. */
function service(answer: (path: string) => Response) {
  const seen: Seen[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const path = new URL(request.url).pathname;
      seen.push({
        method: request.method,
        path,
        headers: Object.fromEntries(request.headers),
        body: await request.json(),
      });
      return answer(path);
    },
  );
  return {
    seen,
    baseUrl: `http://127.0.0.1:${server.addr.port}/memory/`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

const PROJECT = "3b0c6f4e9a2d4c1f8e7a6b5c4d3e2f10";

function client(baseUrl: string) {
  return new HttpMemoryProvider({
    base_url: baseUrl,
    token_env: "MEMORY_TOKEN",
    env: () => "token-from-env",
    project: PROJECT,
  });
}

Deno.test("the memory client sends recall and write as docs/MEMORY_SERVICE.md documents them, and reads the documented answers", async () => {
  const recallAnswer = example("recall response");
  const writeAnswer = example("write response");
  await using server = service((path) =>
    Response.json(path.endsWith("/recall") ? recallAnswer : writeAnswer)
  );
  const memory = client(server.baseUrl);
  const recalled = await memory.recall("which network do integration tests need", "project", 5);
  const written = await memory.write(
    "Integration tests need the loopback network: --allow-net=127.0.0.1",
    "project",
    ["testing", "network"],
  );
  // The documented answers are accepted whole.
  assert.deepEqual(recalled, recallAnswer.records);
  assert.deepEqual(written, writeAnswer.record);

  const [recall, write] = server.seen;
  assert.equal(server.seen.length, 2);
  for (
    const [request, path, documented] of [
      [recall, "/memory/recall", example("recall request")],
      [write, "/memory/write", example("write request")],
    ] as const
  ) {
    assert.equal(request?.method, "POST");
    assert.equal(request?.path, path);
    assert.equal(request?.headers["content-type"], "application/json");
    assert.equal(request?.headers["accept"], "application/json");
    assert.equal(request?.headers["authorization"], "Bearer token-from-env");
    assert.deepEqual(shape(request?.body), shape(documented), path);
  }
  // The examples are the very requests made for the same arguments.
  assert.deepEqual(recall?.body, example("recall request"));
  assert.deepEqual(write?.body, example("write request"));
});

Deno.test("the memory client reads the documented failures: another status, an unknown key, a stray scope", async () => {
  const record = (example("write response").record ?? {}) as Record<string, unknown>;
  const cases: [Response, MemoryError["code"], RegExp][] = [
    [new Response("no", { status: 401 }), "unavailable", /HTTP 401/],
    [new Response("moved", { status: 302, headers: { location: "/x" } }), "unavailable", /./],
    [Response.json({ record: { ...record, extra: 1 } }), "invalid_response", /unexpected answer/],
    [Response.json({ record: { ...record, scope: "user" } }), "invalid_response", /scope "user"/],
    [new Response("not json"), "invalid_response", /not JSON/],
  ];
  for (const [response, code, message] of cases) {
    await using server = service(() => response.clone());
    await assert.rejects(
      client(server.baseUrl).write("x", "project", []),
      (error: unknown) =>
        error instanceof MemoryError && error.code === code && message.test(error.message),
      `${response.status} ${code}`,
    );
  }
  // The near miss: the documented answer is accepted.
  await using server = service(() => Response.json(example("write response")));
  assert.equal((await client(server.baseUrl).write("x", "project", [])).id, record.id);
});
