/**
 * The bounds of agents that start agents: an unknown definition, a definition of another type,
 * `agent.max_children_per_run`, `agent.max_depth`; and `kagent-run tools --agent-type` showing
 * each type's set when the config defines agents.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";

const SUB = {
  description: "Answers",
  agent_type: "sub",
  model: { provider: "script", script: "sub.jsonl" },
};

const start = (id: string, name: string, agentId: string) => ({
  id,
  name,
  arguments: { agent_id: agentId, task: "Answer" },
});

/** Runs a project whose sub-agent answers at once; returns the main run's tool results by id. */
async function runWith(agent: Record<string, unknown>, calls: unknown[]) {
  await using project = await createProject({
    config: { agent, agents: { sub: SUB } },
    plan: [JSON.stringify({ tool_calls: calls }), JSON.stringify({ content: "done" })],
  });
  await Deno.writeTextFile(
    nodePath.join(project.configDir, "sub.jsonl"),
    JSON.stringify({ content: "answered" }) + "\n",
  );
  const { code, stderr } = await runCli(["run", "--config", project.configPath]);
  assert.equal(code, 0, stderr);
  const runDir = await onlyRunDir(project);
  const tools = await readJsonl(nodePath.join(runDir, "logs", "tools.jsonl"));
  const results = new Map(tools.map((line) => {
    const result = line.result as Record<string, unknown>;
    return [String(line.tool_call_id), result.ok === true ? "ok" : String(result.error_type)];
  }));
  const children = await Array.fromAsync(Deno.readDir(nodePath.join(runDir, "agents")))
    .catch(() => []);
  return { results, children: children.length };
}

Deno.test("a start call fails without a child for an unknown definition, another type, or past max_children_per_run", async () => {
  const { results, children } = await runWith({ max_children_per_run: 1 }, [
    start("unknown", "agent.create_sub_agent", "nobody"),
    start("wrong-type", "agent.fork_agent", "sub"),
    start("first", "agent.create_sub_agent", "sub"),
    start("second", "agent.create_sub_agent", "sub"),
  ]);
  assert.equal(results.get("unknown"), "not_found");
  assert.equal(results.get("wrong-type"), "invalid_arguments");
  // Both starts ran (wait_all); one child was started, the other hit the limit.
  assert.deepEqual([results.get("first"), results.get("second")].sort(), ["agent_limit", "ok"]);
  assert.equal(children, 1);
});

Deno.test("agent.max_depth 1 allows no child; 2 (the default) allows the main agent's children", async () => {
  const shallow = await runWith({ max_depth: 1 }, [start("c", "agent.create_sub_agent", "sub")]);
  assert.equal(shallow.results.get("c"), "agent_limit");
  assert.equal(shallow.children, 0);
  const near = await runWith({}, [start("c", "agent.create_sub_agent", "sub")]);
  assert.equal(near.results.get("c"), "ok");
  assert.equal(near.children, 1);
});

Deno.test("kagent-run tools and policy --agent-type show each type's set when the config defines agents", async () => {
  await using project = await createProject({ config: { agents: { sub: SUB } } });
  await Deno.writeTextFile(nodePath.join(project.configDir, "sub.jsonl"), '{"content": "x"}\n');
  const names = async (type: string) =>
    (JSON.parse(
      (await runCli(["tools", "--agent-type", type, "--config", project.configPath, "--json"]))
        .stdout,
    ) as { name: string }[]).map((tool) => tool.name);
  const main = await names("main");
  for (const tool of ["agent.create_sub_agent", "agent.dispatch_worker", "agent.task_create"]) {
    assert.ok(main.includes(tool), `main lacks ${tool}`);
  }
  assert.deepEqual(await names("worker"), [
    "fs.read_file",
    "fs.list_files",
    "fs.grep_files",
    "agent.task_get",
    "agent.task_query_steps",
    "agent.task_claim_step",
    "agent.task_update_step",
  ]);
  const sub = await names("sub");
  assert.ok(sub.includes("fs.write_file") && sub.includes("agent.task_claim_step"));
  for (const tool of ["agent.plan_template", "agent.task_create", "agent.create_sub_agent"]) {
    assert.ok(!sub.includes(tool), `sub has ${tool}`);
  }
  assert.deepEqual(await names("fork"), sub);
  // kagent-run policy says the same, and why a tool is out.
  const policy = JSON.parse(
    (await runCli(["policy", "--agent-type", "worker", "--json", "--config", project.configPath]))
      .stdout,
  ) as { agent: { type: string }; tools: { tool: string; available: boolean; rule: string }[] };
  assert.equal(policy.agent.type, "worker");
  assert.deepEqual(
    policy.tools.filter((tool) => tool.available).map((tool) => tool.tool),
    await names("worker"),
  );
  assert.equal(
    policy.tools.find((tool) => tool.tool === "fs.write_file")?.rule,
    "runtime:agent-type",
  );
});

Deno.test("a sub-agent starts fresh while a fork sees its parent's calls (same script, both ways)", async () => {
  await using project = await createProject({
    config: {
      agents: {
        probe: {
          description: "Names the parent's listing",
          agent_type: "sub",
          model: { provider: "script", script: "probe.jsonl" },
        },
        "probe-fork": {
          description: "Names the parent's listing",
          agent_type: "fork",
          model: { provider: "script", script: "probe.jsonl" },
        },
      },
    },
    plan: [
      JSON.stringify({
        tool_calls: [{ id: "listing", name: "fs.list_files", arguments: { path: "." } }],
      }),
      JSON.stringify({
        tool_calls: [
          start("fresh", "agent.create_sub_agent", "probe"),
          start("forked", "agent.fork_agent", "probe-fork"),
        ],
      }),
      JSON.stringify({ content: "done" }),
    ],
  });
  // The template names the parent's call: it fills only in a conversation that holds it.
  await Deno.writeTextFile(
    nodePath.join(project.configDir, "probe.jsonl"),
    JSON.stringify({ content: "I see: {{listing.summary}}" }) + "\n",
  );
  const { code, stderr } = await runCli(["run", "--config", project.configPath]);
  assert.equal(code, 0, stderr);
  const runDir = await onlyRunDir(project);
  const tools = await readJsonl(nodePath.join(runDir, "logs", "tools.jsonl"));
  const result = (id: string) =>
    tools.find((line) => line.tool_call_id === id)?.result as Record<string, unknown>;
  assert.equal(result("fresh").error_type, "agent_failed");
  assert.match(String(result("fresh").output), /no such value yet/);
  assert.equal(result("forked").ok, true);
  assert.match(String(result("forked").output), /I see: /);
});

Deno.test("dispatch_worker calls started together cannot pass agent.max_children_per_run (the limit is taken before the task is read)", async () => {
  await using project = await createProject({
    config: {
      agent: { max_children_per_run: 1 },
      agents: {
        worker: {
          description: "Works",
          agent_type: "worker",
          model: { provider: "script", script: "worker.jsonl" },
        },
      },
    },
    plan: [
      JSON.stringify({
        tool_calls: [{
          id: "create",
          name: "agent.task_create",
          arguments: { title: "One step", steps: [{ id: "s", title: "Step" }] },
        }],
      }),
      JSON.stringify({
        tool_calls: ["w1", "w2", "w3"].map((id) => ({
          id,
          name: "agent.dispatch_worker",
          arguments: { agent_id: "worker", task_id: "{{create.data.task.id}}" },
        })),
      }),
      JSON.stringify({ content: "done" }),
    ],
  });
  await Deno.writeTextFile(
    nodePath.join(project.configDir, "worker.jsonl"),
    JSON.stringify({ content: "nothing to do" }) + "\n",
  );
  const { code, stderr } = await runCli(["run", "--config", project.configPath]);
  assert.equal(code, 0, stderr);
  const runDir = await onlyRunDir(project);
  const tools = await readJsonl(nodePath.join(runDir, "logs", "tools.jsonl"));
  const outcomes = ["w1", "w2", "w3"].map((id) => {
    const result = tools.find((line) => line.tool_call_id === id)?.result as
      | Record<string, unknown>
      | undefined;
    return result?.ok === true ? "ok" : String(result?.error_type);
  });
  // Near miss: one worker (the limit) still starts.
  assert.deepEqual(outcomes.sort(), ["agent_limit", "agent_limit", "ok"]);
  const children = await Array.fromAsync(Deno.readDir(nodePath.join(runDir, "agents")));
  assert.equal(children.length, 1);
});
