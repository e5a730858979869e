import assert from "node:assert/strict";
import type { ToolDescriptor } from "../tools/tool_definition.ts";
import { EffectivePolicy, RUNTIME_RULES } from "./effective_policy.ts";
import type { SkillRequest } from "./policy_inputs.ts";
import { NO_TARGETS, type TargetScope } from "./policy_rule.ts";

const WORKSPACE = "/w/project";

function tool(name: string): ToolDescriptor {
  return {
    name,
    description: name,
    input_schema: { type: "object" },
    permission: "write",
    tags: ["write"],
    annotations: {
      read_only: false,
      destructive: false,
      idempotent: false,
      open_world: false,
      risk_level: 2,
      category: "exec",
      requires_confirmation: false,
    },
  };
}

const run = tool("exec.run_command");
const read = tool("fs.read_file");

function commandScope(...argv: string[]): TargetScope {
  const cwd = {
    requested: ".",
    real: WORKSPACE,
    spelled: WORKSPACE,
    display: ".",
    access: "read" as const,
    type: "directory" as const,
    via_symlink: false,
    root: WORKSPACE,
    protected: null,
    sensitive: null,
    identity: null,
    size: 0,
  };
  return {
    paths: [cwd],
    commands: [{ program: argv[0]!, path: `/usr/bin/${argv[0]}`, argv, cwd, findings: [] }],
  };
}

function policy(...skillRequests: SkillRequest[]): EffectivePolicy {
  return EffectivePolicy.compute({
    tools: [run, read],
    workspace: WORKSPACE,
    configRules: [{ id: "config:0", tools: ["exec.run_command"], decision: "allow" }],
    configSource: "inline",
    sandbox: {},
    skillRequests,
  });
}

const gitOnly: SkillRequest = {
  skill: "git-reader",
  allowed_tools: ["exec.run_command"],
  allowed_commands: [
    { tool: "exec.run_command", argv: ["git"], prefix: true },
    { tool: "exec.run_command", argv: ["npm", "test"], prefix: false },
  ],
};

Deno.test("policy: a skill's allowed_commands deny a command tool's other programs", () => {
  const narrowed = policy(gitOnly);
  const denied = narrowed.decide(run, commandScope("rm", "-rf", "x"));
  assert.equal(denied.decision, "deny");
  assert.equal(denied.rule, RUNTIME_RULES.skillNarrowing);
  assert.equal(denied.layer, "skill");
  assert.match(denied.reason, /only for "git …", "npm test", not for "rm -rf x"/);
  // An exact entry covers only that argv.
  assert.equal(narrowed.decide(run, commandScope("npm", "test", "--", "x")).decision, "deny");
  // Near misses: the run's own allow still decides the commands the skill lists.
  assert.equal(narrowed.decide(run, commandScope("git", "status")).decision, "allow");
  assert.equal(narrowed.decide(run, commandScope("npm", "test")).decision, "allow");
  // The tool stays in the set (the tool-level view names no command).
  assert.equal(narrowed.isAvailable("exec.run_command"), true);
  assert.equal(narrowed.decide(run, NO_TARGETS).decision, "allow");
});

Deno.test("policy: a call of a limited command tool that names no command is denied", () => {
  const decision = policy(gitOnly).decide(run, { paths: [], commands: [] });
  assert.equal(decision.decision, "deny");
  assert.equal(decision.rule, RUNTIME_RULES.skillNarrowing);
});

Deno.test("policy: allowed_commands never widen: a prefix of words, not of characters", () => {
  const narrowed = policy({
    skill: "differ",
    allowed_tools: ["exec.run_command"],
    allowed_commands: [{ tool: "exec.run_command", argv: ["git", "diff"], prefix: true }],
  });
  assert.equal(narrowed.decide(run, commandScope("git", "diff", "--stat")).decision, "allow");
  assert.equal(narrowed.decide(run, commandScope("git", "difftool")).decision, "deny");
  assert.equal(narrowed.decide(run, commandScope("git")).decision, "deny");
  // Every loaded skill's limits apply: a second skill cannot lift the first one's.
  const both = policy(gitOnly, { skill: "any", allowed_tools: ["*"] });
  assert.equal(both.decide(run, commandScope("rm", "x")).decision, "deny");
  // Without the run's allow, a listed command still asks: a skill never allows.
  const asked = EffectivePolicy.compute({
    tools: [run],
    workspace: WORKSPACE,
    configRules: [],
    configSource: null,
    sandbox: {},
    skillRequests: [gitOnly],
  }).decide(run, commandScope("git", "status"));
  assert.equal(asked.decision, "ask");
});
