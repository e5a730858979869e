// memory.recall_memory and memory.write_memory through the pipeline (issue 5): write modes, the
// file store outside the workspace, scopes that never traverse, and the HTTP provider on loopback.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { ConfigError } from "../src/config/mod.ts";
import { FileMemoryProvider } from "../src/memory/file_memory_provider.ts";
import { openTestRun } from "../src/testing/run_harness.ts";
import { exists } from "../src/testing/path_exists.ts";

/** memory.write_memory is a write tool: it asks by default like any other. */
const ALLOW_MEMORY = { rules: [{ tools: ["memory.*"], decision: "allow" }] };

Deno.test("write_memory in candidate mode (the default) appends to the run's archive, redacted", async () => {
  Deno.env.set("KAGENT_MEMORY_TEST_SECRET", "canary-memory-secret-42");
  try {
    await using run = await openTestRun({
      permissions: ALLOW_MEMORY,
      config: {
        memory: { folder: "../memory" },
        audit: { secret_env: ["KAGENT_MEMORY_TEST_SECRET"] },
      },
    });
    const written = await run.call("memory.write_memory", {
      content: "The build needs canary-memory-secret-42 and deno 2.9",
      scope: "project",
      tags: ["build"],
    });
    assert.equal(written.ok, true, written.output);
    const file = nodePath.join(run.session.folder.paths.archive, "memory_candidates.jsonl");
    const text = await Deno.readTextFile(file);
    assert.match(text, /The build needs/);
    assert.doesNotMatch(text, /canary-memory-secret-42/);
    assert.equal(await exists(nodePath.join(run.sandbox.root, "memory", "project.jsonl")), false);
  } finally {
    Deno.env.delete("KAGENT_MEMORY_TEST_SECRET");
  }
});

Deno.test("external mode writes to the file store and recall ranks it; scopes never traverse", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_MEMORY,
    config: { memory: { folder: "../memory", write_mode: "external", provider: { kind: "file" } } },
  });
  for (
    const content of ["Deploys go through the staging cluster first", "The cafeteria opens at nine"]
  ) {
    const result = await run.call("memory.write_memory", { content, scope: "project" });
    assert.equal(result.ok, true, result.output);
  }
  const recalled = await run.call("memory.recall_memory", {
    query: "staging deploys",
    scope: "project",
    limit: 2,
  });
  assert.equal(recalled.ok, true, recalled.output);
  assert.match(recalled.output.split("\n")[0] ?? "", /staging/);
  for (const scope of ["../x", "/etc", "a/b", ""]) {
    const refused = await run.call("memory.write_memory", { content: "x", scope });
    assert.equal(refused.error?.type, "invalid_arguments", `${scope}: ${refused.output}`);
  }
  const files = [...Deno.readDirSync(nodePath.join(run.sandbox.root, "memory"))].map((entry) =>
    entry.name
  );
  assert.deepEqual(files, ["project.jsonl"], "nothing written outside the scope files");
});

Deno.test("write_memory asks by default like any write tool", async () => {
  await using run = await openTestRun({ config: { memory: { folder: "../memory" } } });
  const asked = await run.call("memory.write_memory", { content: "x" });
  assert.equal(asked.error?.type, "approval_required");
});

Deno.test("disabled mode registers no write tool; recall still works", async () => {
  await using run = await openTestRun({
    config: { memory: { folder: "../memory", write_mode: "disabled" } },
  });
  const write = await run.call("memory.write_memory", { content: "x" });
  assert.equal(write.error?.type, "tool_not_available");
  const recall = await run.call("memory.recall_memory", { query: "x" });
  assert.equal(recall.ok, true, recall.output);
  const snapshot = run.session.policy.snapshot() as {
    layers: { sandbox: { memory: { write_mode: string } } };
  };
  assert.equal(snapshot.layers.sandbox.memory.write_mode, "disabled");
});

Deno.test("a memory folder inside the workspace stops the run at start-up", async () => {
  await assert.rejects(
    openTestRun({ config: { memory: { folder: "../workspace/memory" } } }),
    (error: unknown) => error instanceof ConfigError && error.key === "memory.folder",
  );
});

Deno.test("the HTTP provider reaches its host through the main thread, with the bearer token", async () => {
  const folder = await Deno.makeTempDir();
  const store = new FileMemoryProvider({ folder });
  const seen: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      seen.push(request.headers.get("authorization") ?? "");
      const body = await request.json();
      if (new URL(request.url).pathname === "/write") {
        return Response.json({ record: await store.write(body.content, body.scope, body.tags) });
      }
      return Response.json({ records: await store.recall(body.query, body.scope, body.limit) });
    },
  );
  Deno.env.set("KAGENT_MEMORY_TOKEN", "token-for-memory-123");
  try {
    await using run = await openTestRun({
      permissions: ALLOW_MEMORY,
      config: {
        memory: {
          write_mode: "external",
          provider: {
            kind: "http",
            base_url: `http://127.0.0.1:${server.addr.port}`,
            token_env: "KAGENT_MEMORY_TOKEN",
          },
        },
      },
    });
    // The Worker never holds net permission: requests go through the main thread's memory channel.
    assert.equal(run.session.workerPermissions.net, false);
    assert.deepEqual(run.session.network.memory, [`127.0.0.1:${server.addr.port}`]);
    assert.deepEqual(run.session.workerPermissions.env, ["KAGENT_MEMORY_TOKEN"]);
    const written = await run.call("memory.write_memory", {
      content: "Use the loopback memory service",
      scope: "user",
    });
    assert.equal(written.ok, true, written.output);
    const recalled = await run.call("memory.recall_memory", {
      query: "loopback memory",
      scope: "user",
    });
    assert.match(recalled.output, /loopback memory service/);
    assert.ok(seen.length >= 2 && seen.every((header) => header === "Bearer token-for-memory-123"));
  } finally {
    Deno.env.delete("KAGENT_MEMORY_TOKEN");
    await server.shutdown();
    await Deno.remove(folder, { recursive: true });
  }
});
