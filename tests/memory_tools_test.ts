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

Deno.test("external mode only proposes: the store is untouched, recall ranks what it holds; scopes never traverse", async () => {
  await using run = await openTestRun({
    permissions: ALLOW_MEMORY,
    config: { memory: { folder: "../memory", write_mode: "external", provider: { kind: "file" } } },
  });
  const memory = nodePath.join(run.sandbox.root, "memory");
  const proposed = await run.call("memory.write_memory", { content: "Deploys need a ticket" });
  assert.equal(proposed.ok, true, proposed.output);
  assert.equal(await exists(memory), false, "the agent never writes the store");
  const candidates = nodePath.join(run.session.folder.paths.archive, "memory_candidates.jsonl");
  assert.match(await Deno.readTextFile(candidates), /Deploys need a ticket/);
  for (
    const content of ["Deploys go through the staging cluster first", "The cafeteria opens at nine"]
  ) {
    await remember(run, memory, content, "project");
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
  const files = [...Deno.readDirSync(memory)].map((entry) => entry.name);
  assert.deepEqual(files, ["projects"], "nothing written outside the scope files");
  const projects = [...Deno.readDirSync(nodePath.join(memory, "projects"))].map((entry) =>
    entry.name
  );
  assert.deepEqual(projects, [`${run.session.memory?.project?.key}.jsonl`]);
  assert.match(projects[0] ?? "", /^[0-9a-f]{32}\.jsonl$/);
});

/** Stores a memory as `kagent-run memory promote` would for `run`'s project. */
async function remember(
  run: { session: { memory: { project?: { key: string } | null } | null } },
  folder: string,
  content: string,
  scope: string,
): Promise<void> {
  const projectKey = run.session.memory?.project?.key ?? null;
  await new FileMemoryProvider({ folder, projectKey }).write(content, scope, []);
}

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
  const projects: unknown[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      seen.push(request.headers.get("authorization") ?? "");
      const body = await request.json();
      projects.push(body.project);
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
    await store.write("Use the loopback memory service", "user", []);
    const recalled = await run.call("memory.recall_memory", {
      query: "loopback memory",
      scope: "user",
    });
    assert.match(recalled.output, /loopback memory service/);
    assert.ok(seen.length >= 1 && seen.every((header) => header === "Bearer token-for-memory-123"));
    // Every request names the workspace's project, so the service can keep projects apart.
    const key = run.session.memory?.project?.key;
    assert.match(key ?? "", /^[0-9a-f]{32}$/);
    assert.ok(projects.every((project) => project === key), JSON.stringify(projects));
  } finally {
    Deno.env.delete("KAGENT_MEMORY_TOKEN");
    await server.shutdown();
    await Deno.remove(folder, { recursive: true });
  }
});

/** A run in a fresh workspace over a shared memory folder. */
function projectRun(
  folder: string,
  memory: Record<string, unknown> = {},
  origin: string | null = null,
) {
  return openTestRun({
    permissions: ALLOW_MEMORY,
    config: { memory: { folder, write_mode: "external", provider: { kind: "file" }, ...memory } },
    prepare: async (sandbox) => {
      if (origin === null) return;
      await Deno.mkdir(nodePath.join(sandbox.workspace, ".git"));
      await Deno.writeTextFile(
        nodePath.join(sandbox.workspace, ".git", "config"),
        `[core]\n\tbare = false\n[remote "origin"]\n\turl = ${origin}\n\tfetch = +refs/heads/*\n`,
      );
    },
  });
}

async function recallCount(run: Awaited<ReturnType<typeof projectRun>>, query: string) {
  const recalled = await run.call("memory.recall_memory", { query, scope: "project" });
  assert.equal(recalled.ok, true, recalled.output);
  return (recalled.data as { records: unknown[] }).records.length;
}

Deno.test("project memories stay with their workspace when two workspaces share a memory folder", async () => {
  const folder = await Deno.makeTempDir({ prefix: "kagent-memory-" });
  try {
    {
      await using first = await projectRun(folder);
      await remember(first, folder, "The alpha service deploys on Fridays", "project");
      await remember(first, folder, "alpha is my editor", "user");
      assert.equal(await recallCount(first, "alpha deploys"), 1);
    }
    // Another workspace (another project) sees none of it, though it shares the folder.
    await using second = await projectRun(folder);
    assert.equal(await recallCount(second, "alpha deploys"), 0);
    // The near miss: the user scope is shared on purpose.
    const user = await second.call("memory.recall_memory", { query: "alpha", scope: "user" });
    assert.equal((user.data as { records: unknown[] }).records.length, 1);
    // Nothing landed in the old machine-wide project file.
    assert.equal(await exists(nodePath.join(folder, "project.jsonl")), false);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("project memories are shared when two checkouts have one origin or one configured id", async () => {
  const folder = await Deno.makeTempDir({ prefix: "kagent-memory-" });
  try {
    {
      await using ssh = await projectRun(folder, {}, "git@github.com:acme/api.git");
      assert.equal(ssh.session.memory?.project?.source, "git_origin");
      assert.equal(ssh.session.memory?.project?.value, "github.com/acme/api");
      await remember(ssh, folder, "The api checkout runs its tests with deno task test", "project");
    }
    // Another checkout of the same repository, at another path, cloned over https with a token.
    {
      await using https = await projectRun(
        folder,
        {},
        "https://x-access-token:ghs_notarealtoken@github.com/acme/api",
      );
      assert.equal(await recallCount(https, "api tests"), 1);
    }
    // A fork (another origin) is another project.
    {
      await using fork = await projectRun(folder, {}, "git@github.com:someone/api.git");
      assert.equal(await recallCount(fork, "api tests"), 0);
    }
    // A configured id pins the identity: two unrelated workspaces with one id share.
    {
      await using pinned = await projectRun(folder, { project_id: "acme-platform" });
      assert.equal(pinned.session.memory?.project?.source, "config");
      await remember(pinned, folder, "Platform releases are tagged vYYYY.MM", "project");
    }
    await using samePin = await projectRun(folder, { project_id: "acme-platform" });
    assert.equal(await recallCount(samePin, "platform releases"), 1);
    await using otherPin = await projectRun(folder, { project_id: "acme-website" });
    assert.equal(await recallCount(otherPin, "platform releases"), 0);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
