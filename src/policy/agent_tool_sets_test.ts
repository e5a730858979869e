import assert from "node:assert/strict";
import type { ToolDescriptor } from "../tools/tool_definition.ts";
import { EffectivePolicy, RUNTIME_RULES } from "./effective_policy.ts";
import type { AllowedToolsList } from "./agent_tool_sets.ts";
import type { AgentType, ConfigRule } from "./policy_inputs.ts";
import { NO_TARGETS } from "./policy_rule.ts";

function tool(name: string, permission: "readonly" | "write"): ToolDescriptor {
  return {
    name,
    description: name,
    input_schema: { type: "object" },
    permission,
    tags: [],
    annotations: {
      read_only: permission === "readonly",
      destructive: false,
      idempotent: false,
      open_world: false,
      risk_level: permission === "readonly" ? 0 : 2,
      category: "test",
      requires_confirmation: false,
    },
  };
}

/** Every tool kind the rules name: files, memory, plan, task (read and edit), agents. */
const TOOLS = [
  tool("fs.read_file", "readonly"),
  tool("fs.grep_files", "readonly"),
  tool("fs.write_file", "write"),
  tool("fs.edit_file", "write"),
  tool("memory.recall_memory", "readonly"),
  tool("agent.plan_template", "readonly"),
  tool("agent.task_create", "write"),
  tool("agent.task_update", "write"),
  tool("agent.task_complete", "write"),
  tool("agent.task_get", "readonly"),
  tool("agent.task_query_steps", "readonly"),
  tool("agent.task_claim_step", "write"),
  tool("agent.task_update_step", "write"),
  tool("agent.list_agent_definitions", "readonly"),
  tool("agent.create_sub_agent", "readonly"),
  tool("agent.fork_agent", "readonly"),
  tool("agent.list_workers", "readonly"),
  tool("agent.dispatch_worker", "readonly"),
  tool("agent.inspect_agent", "readonly"),
];

function policy(
  agentType: AgentType,
  allowedTools: AllowedToolsList[] = [],
  configRules: ConfigRule[] = [{ id: "all", tools: ["*"], decision: "allow" }],
): EffectivePolicy {
  return EffectivePolicy.compute({
    tools: TOOLS,
    workspace: "/w",
    configSource: "test",
    sandbox: {},
    configRules,
    agentType,
    allowedTools,
  });
}

const available = (effective: EffectivePolicy) =>
  TOOLS.map((item) => item.name).filter((name) => effective.isAvailable(name));

Deno.test("the main agent's set has every tool, agent and task tools included", () => {
  assert.deepEqual(available(policy("main")), TOOLS.map((item) => item.name));
});

Deno.test("a sub-agent or fork never gets the plan tool, task creation or edits, agent starts or memory", () => {
  for (const type of ["sub", "fork"] as const) {
    assert.deepEqual(available(policy(type)), [
      "fs.read_file",
      "fs.grep_files",
      "fs.write_file",
      "fs.edit_file",
      "agent.task_get",
      "agent.task_query_steps",
      "agent.task_claim_step",
      "agent.task_update_step",
      "agent.inspect_agent",
    ], type);
    const decision = policy(type).decide(tool("agent.create_sub_agent", "readonly"), NO_TARGETS);
    assert.equal(decision.rule, RUNTIME_RULES.agentType);
    assert.match(decision.reason, /only the main agent/);
  }
});

Deno.test("a worker gets the four task tools and readonly file tools; an allow-all rule never widens it", () => {
  assert.deepEqual(available(policy("worker")), [
    "fs.read_file",
    "fs.grep_files",
    "agent.task_get",
    "agent.task_query_steps",
    "agent.task_claim_step",
    "agent.task_update_step",
  ]);
});

Deno.test("a worker gets a write tool only when allowed_tools names it exactly and the policy allows it", () => {
  const dispatch = {
    source: "the dispatch",
    patterns: ["fs.write_file", "fs.read_file", "agent.task_*"],
  };
  assert.deepEqual(available(policy("worker", [dispatch])), [
    "fs.read_file",
    "fs.write_file",
    "agent.task_get",
    "agent.task_query_steps",
    "agent.task_claim_step",
    "agent.task_update_step",
  ]);
  // Near misses: a pattern is not a request; a request the policy denies stays out.
  const wide = { source: "the dispatch", patterns: ["fs.*", "agent.*"] };
  assert.ok(!policy("worker", [wide]).isAvailable("fs.write_file"));
  assert.ok(!policy("worker", [wide]).isAvailable("agent.task_create"));
  const denied = policy("worker", [dispatch], [
    { id: "no-writes", tools: ["fs.write_file"], decision: "deny" },
  ]);
  assert.ok(!denied.isAvailable("fs.write_file"));
  // Memory and agent starts are never requested into a worker's set.
  const greedy = {
    source: "the dispatch",
    patterns: ["agent.task_create", "agent.create_sub_agent", "memory.recall_memory"],
  };
  assert.deepEqual(available(policy("worker", [greedy])), []);
});

Deno.test("allowed_tools lists only narrow: each list intersects, the rule names which list", () => {
  const config = { source: 'agent "reviewer" (config)', patterns: ["fs.*", "agent.task_get"] };
  const parent = { source: "the parent's call", patterns: ["fs.read_file", "fs.write_file"] };
  assert.deepEqual(available(policy("sub", [config, parent])), ["fs.read_file", "fs.write_file"]);
  const decision = policy("sub", [config, parent]).decide(
    tool("fs.grep_files", "readonly"),
    NO_TARGETS,
  );
  assert.equal(decision.rule, RUNTIME_RULES.agentAllowedTools);
  assert.match(decision.reason, /the parent's call/);
  // A list cannot add what the type forbids.
  assert.ok(
    !policy("sub", [{ source: "x", patterns: ["agent.plan_template"] }]).isAvailable(
      "agent.plan_template",
    ),
  );
});

Deno.test("suggested tools are a preference recorded in the snapshot, never a grant", () => {
  const effective = EffectivePolicy.compute({
    tools: TOOLS,
    workspace: "/w",
    configSource: "test",
    sandbox: {},
    configRules: [],
    agentType: "worker",
    suggestedTools: ["fs.write_file", "agent.create_sub_agent"],
  });
  assert.ok(!effective.isAvailable("fs.write_file"));
  assert.ok(!effective.isAvailable("agent.create_sub_agent"));
  const agent = effective.snapshot().agent as { suggested_tools: string[] };
  assert.deepEqual(agent.suggested_tools, ["fs.write_file", "agent.create_sub_agent"]);
});
