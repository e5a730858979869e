import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "./config_error.ts";
import { loadConfig } from "./load_config.ts";

/** Writes `config` as `agent.jsonc` in a fresh folder (with `plans/worker.jsonl`) and loads it. */
async function load(
  config: Record<string, unknown>,
): Promise<Awaited<ReturnType<typeof loadConfig>>> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent_agents_config_" }));
  try {
    await Deno.mkdir(join(dir, "plans"));
    await Deno.writeTextFile(join(dir, "plans", "worker.jsonl"), '{"content": "done"}\n');
    await Deno.writeTextFile(join(dir, "agent.jsonc"), JSON.stringify(config));
    return await loadConfig(join(dir, "agent.jsonc"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("loadConfig resolves agents: script paths absolute, max_turns from agent.max_turns", async () => {
  const config = await load({
    agent: { max_turns: 7, max_depth: 1, max_concurrent_children: 2 },
    agents: {
      worker: {
        description: "Claims steps",
        agent_type: "worker",
        model: { provider: "script", script: "plans/worker.jsonl" },
        allowed_tools: ["fs.write_file"],
      },
      reviewer: { description: "Reviews", agent_type: "sub", max_turns: 3 },
    },
  });
  assert.equal(config.agent.max_depth, 1);
  assert.equal(config.agent.max_concurrent_children, 2);
  assert.equal(config.agent.max_children_per_run, 16);
  const worker = config.agents.worker;
  assert.equal(worker?.model?.provider, "script");
  assert.ok(
    worker?.model?.provider === "script" && worker.model.script.endsWith("/plans/worker.jsonl"),
  );
  assert.equal(worker?.max_turns, 7);
  assert.deepEqual(worker?.allowed_tools, ["fs.write_file"]);
  assert.deepEqual(config.agents.reviewer, {
    id: "reviewer",
    description: "Reviews",
    agent_type: "sub",
    instructions: null,
    model: null,
    allowed_tools: null,
    suggested_tools: [],
    max_turns: 3,
  });
});

Deno.test("loadConfig refuses an agent with a missing script, a bad id or an unknown type", async () => {
  const missing = await load({
    agents: {
      worker: {
        description: "x",
        agent_type: "worker",
        model: { provider: "script", script: "plans/none.jsonl" },
      },
    },
  }).catch((error) => error);
  assert.ok(missing instanceof ConfigError);
  assert.equal(missing.key, "agents.worker.model.script");
  for (
    const agents of [
      { "Bad Id": { description: "x", agent_type: "sub" } },
      { boss: { description: "x", agent_type: "main" } },
      { sub: { description: "x", agent_type: "sub", grants: ["*"] } },
    ]
  ) {
    const error = await load({ agents }).catch((caught) => caught);
    assert.ok(error instanceof ConfigError, JSON.stringify(agents));
    assert.equal(error.code, "config_invalid");
  }
  // The near miss: a valid one loads.
  const ok = await load({ agents: { sub: { description: "x", agent_type: "sub" } } });
  assert.equal(ok.agents.sub?.agent_type, "sub");
});
