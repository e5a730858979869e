// Smart approval (issue 18 §2) from the annotations tools really carry: declarative tool files
// that declare them, and MCP tools whose hints count only from a server with trust_annotations.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { ConfigError } from "../src/config/mod.ts";
import { mcpToolDefinition } from "../src/mcp_client/mcp_tool_definition.ts";
import { EffectivePolicy } from "../src/policy/mod.ts";
import { NO_TARGETS } from "../src/policy/policy_rule.ts";
import { describeTool, type ToolDefinition } from "../src/tools/mod.ts";
import { loadDeclarativeTools } from "../src/toolsets/declarative/mod.ts";
import { toolSet } from "../src/toolsets/mod.ts";
import { openTestRun } from "../src/testing/run_harness.ts";

/** The decision for `tool` under a rule that asks for every tool, in smart mode up to `maxRisk`. */
function decision(tool: ToolDefinition, maxRisk: number | null) {
  const descriptor = describeTool(tool);
  return EffectivePolicy.compute({
    tools: [descriptor],
    workspace: "/w",
    configRules: [{ id: "ask-all", tools: ["*"], decision: "ask" }],
    configSource: "inline",
    sandbox: {},
    smartApproval: maxRisk === null ? null : { maxRisk },
  }).decide(descriptor, NO_TARGETS);
}

const FILE = {
  name: "repo.count_lines",
  description: "Counts lines",
  input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  permission: "readonly",
  tags: ["repo"],
  command_type: "exec",
  command: "wc",
  args: ["-l", "{{path}}"],
  working_dir: ".",
  env_allowlist: [],
  timeout_ms: 10000,
  stdout_limit_bytes: 65536,
  stderr_limit_bytes: 16384,
};

async function declarative(file: Record<string, unknown>): Promise<ToolDefinition> {
  const dir = await Deno.makeTempDir({ prefix: "kagent-smart-" });
  try {
    await Deno.writeTextFile(nodePath.join(dir, "tool.json"), JSON.stringify(file));
    const files = await loadDeclarativeTools([dir]);
    const settings = {
      command_tools: true,
      declarative_tools: files,
      skill_dirs: [],
      memory: null,
    };
    const tool = toolSet(settings, []).find((candidate) => candidate.name === file.name);
    assert.ok(tool !== undefined);
    return tool;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a declarative tool that declares risk 0 runs unasked in smart mode; undeclared it asks", async () => {
  const declared = await declarative({ ...FILE, annotations: { risk: 0, category: "repo" } });
  assert.equal(declared.annotations.risk_level, 0);
  assert.equal(declared.annotations.category, "repo");
  const allowed = decision(declared, 0);
  assert.equal(allowed.decision, "allow");
  assert.equal(allowed.rule, "smart:annotations");
  // Near misses: the derived risk (1) is above smart_max_risk 0; an open-world one asks.
  assert.equal(decision(await declarative(FILE), 0).decision, "ask");
  const open = await declarative({ ...FILE, annotations: { risk: 0, open_world: true } });
  assert.equal(decision(open, 4).decision, "ask");
  // And without smart mode the declared one asks too.
  assert.equal(decision(declared, null).decision, "ask");
});

Deno.test("a declarative file cannot claim read-only for a write tool or lower a dangerous one", async () => {
  await assert.rejects(
    declarative({ ...FILE, permission: "write", annotations: { read_only: true } }),
    (error: unknown) =>
      error instanceof ConfigError && /annotations\.read_only.*permission/.test(error.message),
  );
  await assert.rejects(
    declarative({ ...FILE, tags: ["dangerous"], annotations: { risk: 0 } }),
    (error: unknown) => error instanceof ConfigError && /annotations\.risk/.test(error.message),
  );
});

Deno.test("MCP hints count for smart mode only from a server with trust_annotations", () => {
  const listed = {
    name: "lookup",
    inputSchema: { type: "object" as const, properties: {} },
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
  const untrusted = mcpToolDefinition("docs", listed, false);
  const trusted = mcpToolDefinition("docs", listed, true);
  assert.ok("definition" in untrusted && "definition" in trusted);
  assert.equal(decision(untrusted.definition, 4).decision, "ask");
  // A trusted read-only hint is risk 1 (a server's read may still reach its own data sources).
  assert.equal(decision(trusted.definition, 0).decision, "ask");
  assert.equal(decision(trusted.definition, 1).rule, "smart:annotations");
});

Deno.test("a run in smart mode reads a file a rule asks for and records rule smart:annotations; without the mode it asks", async () => {
  const rules = [{ id: "ask-reads", tools: ["fs.read_file"], decision: "ask" }];
  {
    await using run = await openTestRun({ permissions: { mode: "smart", rules } });
    await Deno.writeTextFile(nodePath.join(run.sandbox.workspace, "a.txt"), "hello\n");
    const result = await run.call("fs.read_file", { path: "a.txt" });
    assert.equal(result.ok, true, result.output);
    const [line] = await run.readLog("tools");
    const policy = line?.policy as {
      decision: string;
      rule: string;
      layer: string;
      reason: string;
    };
    assert.equal(policy.decision, "allow");
    assert.equal(policy.rule, "smart:annotations");
    assert.equal(policy.layer, "config");
    assert.match(policy.reason, /"ask-reads"/);
    assert.equal((line?.approval as { by: string; rule: string }).rule, "smart:annotations");
  }
  // Near miss: the same rule without the mode leaves the call to a person (none here).
  await using run = await openTestRun({ permissions: { rules } });
  await Deno.writeTextFile(nodePath.join(run.sandbox.workspace, "a.txt"), "hello\n");
  const asked = await run.call("fs.read_file", { path: "a.txt" });
  assert.equal(asked.error?.type, "approval_required");
});
