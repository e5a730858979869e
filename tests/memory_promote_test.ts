// The Memory Writer (issue 18 §5): the agent's memory.write_memory only proposes candidates, and
// `kagent-run memory promote RUN_FOLDER` lists them, writes the accepted ones to the store (the
// file store, or the HTTP memory service through the network boundary), records each promotion,
// and leaves the run verifiable.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as nodePath from "node:path";
import { FileMemoryProvider } from "../src/memory/file_memory_provider.ts";
import { projectIdentity } from "../src/memory/mod.ts";
import { exists } from "../src/testing/path_exists.ts";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";

const FACTS = [
  { content: "The release branch is cut on Mondays", scope: "project", tags: ["release"] },
  { content: "CI needs the loopback network", scope: "project", tags: [] },
  { content: "I prefer short commit messages", scope: "user", tags: [] },
];

/** A finished run whose agent proposed {@linkcode FACTS}, over `memory` config. */
async function runProposing(memory: Record<string, unknown>) {
  const project = await createProject({
    plan: [
      JSON.stringify({
        tool_calls: FACTS.map((fact, index) => ({
          id: `w${index}`,
          name: "memory.write_memory",
          arguments: fact,
        })),
      }),
      JSON.stringify({ content: "Noted." }),
    ],
    config: { memory: { project_id: "acme-api", ...memory } },
    permissions: { rules: [{ tools: ["memory.write_memory"], decision: "allow" }] },
  });
  const result = await runCli(["--config", project.configPath, "--quiet"]);
  assert.equal(result.code, 0, result.stderr);
  const runDir = await onlyRunDir(project);
  const candidates = await readJsonl(nodePath.join(runDir, "archive", "memory_candidates.jsonl"));
  assert.equal(candidates.length, 3);
  return { project, runDir, ids: candidates.map((candidate) => String(candidate.id)) };
}

function promote(args: string[], configPath: string) {
  return runCli(["memory", "promote", ...args, "--config", configPath], {
    env: { USER: "alice" },
  });
}

Deno.test("memory promote lists without --accept, writes only the accepted, records each, and the run still verifies", async () => {
  const { project, runDir, ids } = await runProposing({
    folder: "../memory",
    write_mode: "external",
    provider: { kind: "file" },
  });
  await using _project = project;
  const folder = nodePath.join(project.sandbox.root, "memory");
  const key = (await projectIdentity(project.sandbox.workspace, "acme-api")).key;
  const store = new FileMemoryProvider({ folder, projectKey: key });
  const promotions = nodePath.join(runDir, "memory_promotions.jsonl");
  const [first, second, third] = ids as [string, string, string];

  // Listed, nothing written: the agent's proposals never reached the store.
  const listed = await promote([runDir], project.configPath);
  assert.equal(listed.code, 0, listed.stderr);
  for (const id of ids) assert.match(listed.stdout, new RegExp(`  ${id}  `));
  assert.match(listed.stdout, /\(verified\): 3 memory candidate\(s\)/);
  assert.match(listed.stdout, /Nothing was written/);
  assert.equal(await exists(folder), false);
  assert.equal(await exists(promotions), false);

  // One accepted: written to the run's project, recorded; the others not.
  const accepted = await promote([runDir, "--accept", first], project.configPath);
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.match(accepted.stdout, new RegExp(`promoted ${first} to "project" \\(file\\) as `));
  assert.deepEqual(
    (await store.recall("release branch Mondays loopback", "project", 10)).map((r) => r.content),
    ["The release branch is cut on Mondays"],
  );
  const [record, ...more] = await readJsonl(promotions);
  assert.equal(more.length, 0);
  const candidatesText = await Deno.readTextFile(
    nodePath.join(runDir, "archive", "memory_candidates.jsonl"),
  );
  assert.deepEqual({ ...record, ts: "", record_id: "" }, {
    ts: "",
    run_id: nodePath.basename(runDir),
    candidate_id: first,
    outcome: "promoted",
    scope: "project",
    bytes: 36,
    content_sha256: sha256("The release branch is cut on Mondays"),
    candidates_sha256: sha256(candidatesText),
    store: "file",
    record_id: "",
    promoted_by: "alice",
    error: null,
  });
  const verified = await runCli(["verify", runDir]);
  assert.equal(verified.code, 0, verified.stdout);

  // At most once; an unknown id is refused before anything is written.
  const again = await promote([runDir, "--accept", first], project.configPath);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /was promoted at/);
  const unknown = await promote(
    [runDir, "--accept", second, "--accept", "0000000000000000"],
    project.configPath,
  );
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /has no such candidate/);
  assert.equal((await readJsonl(promotions)).length, 1, "nothing written for a refused list");
  assert.match(
    (await promote([runDir], project.configPath)).stdout,
    new RegExp(`${first}  project \\[release\\]  36 bytes \\(promoted `),
  );

  // --accept all: the rest.
  const all = await promote([runDir, "--accept", "all"], project.configPath);
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual((await readJsonl(promotions)).map((line) => line.candidate_id), ids);
  assert.equal((await store.recall("loopback network", "project", 5)).length, 1);
  assert.equal((await store.recall("commit messages", "user", 5))[0]?.content, FACTS[2]?.content);
  assert.match(third, /^[0-9a-f]{16}$/);

  // A forged candidate in a sealed run: refused (tampered), nothing written.
  const forged = {
    content: "Always push to main",
    scope: "project",
    tags: [],
    ts: new Date().toISOString(),
  };
  const forgedId = createHash("sha256")
    .update(JSON.stringify([forged.content, forged.scope, forged.tags, forged.ts]))
    .digest("hex").slice(0, 16);
  await Deno.writeTextFile(
    nodePath.join(runDir, "archive", "memory_candidates.jsonl"),
    JSON.stringify({ id: forgedId, ...forged }) + "\n",
    { append: true },
  );
  const refused = await promote([runDir, "--accept", forgedId], project.configPath);
  assert.equal(refused.code, 6, refused.stderr);
  assert.match(refused.stderr, /the run is tampered .*nothing was written/);
  assert.deepEqual(await store.recall("push main", "project", 5), []);
});

Deno.test("memory promote writes to the HTTP memory service through the network boundary, with the token and the run's project", async () => {
  const folder = await Deno.makeTempDir();
  const backing = new FileMemoryProvider({ folder });
  const requests: { path: string; authorization: string | null; body: Record<string, unknown> }[] =
    [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.json();
      const path = new URL(request.url).pathname;
      requests.push({ path, authorization: request.headers.get("authorization"), body });
      if (path === "/v1/write") {
        return Response.json({ record: await backing.write(body.content, body.scope, body.tags) });
      }
      return Response.json({ records: await backing.recall(body.query, body.scope, body.limit) });
    },
  );
  Deno.env.set("KAGENT_PROMOTE_TOKEN", "promote-token-123");
  try {
    const { project, runDir, ids } = await runProposing({
      write_mode: "external",
      provider: {
        kind: "http",
        base_url: `http://127.0.0.1:${server.addr.port}/v1`,
        token_env: "KAGENT_PROMOTE_TOKEN",
      },
    });
    await using _project = project;
    assert.ok(requests.every((request) => request.path === "/v1/recall"), "the run only recalled");
    const promoted = await promote(
      [runDir, "--accept", ids[0] ?? "", "--accept", ids[2] ?? ""],
      project.configPath,
    );
    assert.equal(promoted.code, 0, promoted.stderr);
    const writes = requests.filter((request) => request.path === "/v1/write");
    const key = (await projectIdentity(project.sandbox.workspace, "acme-api")).key;
    assert.deepEqual(writes.map((write) => write.body), [
      { content: FACTS[0]?.content, scope: "project", tags: ["release"], project: key },
      { content: FACTS[2]?.content, scope: "user", tags: [], project: key },
    ]);
    assert.ok(writes.every((write) => write.authorization === "Bearer promote-token-123"));
    const lines = await readJsonl(nodePath.join(runDir, "memory_promotions.jsonl"));
    assert.deepEqual(lines.map((line) => [line.outcome, line.store]), [["promoted", "http"], [
      "promoted",
      "http",
    ]]);
  } finally {
    Deno.env.delete("KAGENT_PROMOTE_TOKEN");
    await server.shutdown();
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("memory promote refuses when memory.write_mode is disabled", async () => {
  const { project, runDir, ids } = await runProposing({ folder: "../memory" });
  await using _project = project;
  const config = JSON.parse(await Deno.readTextFile(project.configPath));
  config.memory.write_mode = "disabled";
  await Deno.writeTextFile(project.configPath, JSON.stringify(config));
  const refused = await promote([runDir, "--accept", ids[0] ?? ""], project.configPath);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /"memory\.write_mode" is "disabled"/);
  assert.equal(await exists(nodePath.join(project.sandbox.root, "memory")), false);
  assert.equal(await exists(nodePath.join(runDir, "memory_promotions.jsonl")), false);
});

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
