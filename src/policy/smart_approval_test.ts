// Smart approval (permissions.mode "smart", issue 18 §2): allowed and still-asking pairs.
import assert from "node:assert/strict";
import type { ResolvedPath } from "../sandbox/mod.ts";
import type { ToolDescriptor } from "../tools/mod.ts";
import { EffectivePolicy } from "./effective_policy.ts";
import type { ConfigRule } from "./policy_inputs.ts";
import { NO_TARGETS } from "./policy_rule.ts";

const WORKSPACE = "/w/project";

function tool(
  name: string,
  permission: "readonly" | "write",
  annotations: Partial<ToolDescriptor["annotations"]> = {},
  tags: string[] = [],
): ToolDescriptor {
  return {
    name,
    description: name,
    input_schema: { type: "object" },
    permission,
    tags,
    annotations: {
      read_only: permission === "readonly",
      destructive: false,
      idempotent: true,
      open_world: false,
      risk_level: 0,
      category: "demo",
      requires_confirmation: false,
      ...annotations,
    },
  };
}

const safe = tool("demo.lookup", "readonly");
const lowRisk = tool("demo.index", "readonly", { risk_level: 1 });
const openWorld = tool("demo.search", "readonly", { open_world: true });
const destructive = tool("demo.purge", "readonly", { destructive: true });
const confirm = tool("demo.confirm", "readonly", { requires_confirmation: true });
const writer = tool("demo.save", "write", { read_only: false, risk_level: 0 });
const TOOLS = [safe, lowRisk, openWorld, destructive, confirm, writer];

/** Every tool asked by a config rule; `smart` sets the mode. */
function policy(smart: { maxRisk: number } | null, rules?: ConfigRule[]): EffectivePolicy {
  return EffectivePolicy.compute({
    tools: TOOLS,
    workspace: WORKSPACE,
    configRules: rules ?? [
      { id: "ask-all", tools: ["demo.*"], decision: "ask" },
      { id: "purge-on", tools: ["demo.purge"], decision: "ask" },
    ],
    configSource: "inline",
    sandbox: {},
    smartApproval: smart,
  });
}

Deno.test("smart mode allows a read-only, closed-world, risk-0 tool a config rule asks for", () => {
  const decision = policy({ maxRisk: 0 }).decide(safe, NO_TARGETS);
  assert.equal(decision.decision, "allow");
  assert.equal(decision.rule, "smart:annotations");
  assert.match(decision.reason, /"ask-all"/);
  // Near miss: without the mode the same call asks.
  assert.equal(policy(null).decide(safe, NO_TARGETS).decision, "ask");
});

Deno.test("smart mode lets a tool run unasked only up to smart_max_risk", () => {
  assert.equal(policy({ maxRisk: 0 }).decide(lowRisk, NO_TARGETS).decision, "ask");
  const raised = policy({ maxRisk: 1 }).decide(lowRisk, NO_TARGETS);
  assert.equal(raised.decision, "allow");
  assert.equal(raised.rule, "smart:annotations");
});

Deno.test("smart mode still asks for open-world, destructive, write and confirmation tools", () => {
  const smart = policy({ maxRisk: 4 });
  assert.equal(smart.decide(openWorld, NO_TARGETS).rule, "ask-all");
  assert.equal(smart.decide(destructive, NO_TARGETS).decision, "ask");
  assert.equal(smart.decide(writer, NO_TARGETS).rule, "ask-all");
  const confirmed = smart.decide(confirm, NO_TARGETS);
  assert.equal(confirmed.decision, "ask");
  assert.equal(confirmed.rule, "runtime:requires-confirmation");
  // Near miss: the safe tool of the same policy runs unasked.
  assert.equal(smart.decide(safe, NO_TARGETS).decision, "allow");
});

Deno.test("smart mode answers the default write ask but never a runtime ask or a deny", () => {
  const write = tool("demo.note", "write", { read_only: true });
  const smart = EffectivePolicy.compute({
    tools: [write, safe],
    workspace: WORKSPACE,
    configRules: [{ id: "no-lookup", tools: ["demo.lookup"], decision: "deny" }],
    configSource: "inline",
    sandbox: {},
    smartApproval: { maxRisk: 0 },
  });
  const note = smart.decide(write, NO_TARGETS);
  assert.equal(note.decision, "allow");
  assert.equal(note.layer, "default");
  assert.equal(smart.decide(safe, NO_TARGETS).decision, "deny");
  // A sensitive file asks (runtime), whatever the mode.
  const sensitive: ResolvedPath = {
    requested: ".env",
    real: `${WORKSPACE}/.env`,
    spelled: `${WORKSPACE}/.env`,
    display: ".env",
    access: "read",
    type: "file",
    via_symlink: false,
    root: WORKSPACE,
    protected: null,
    sensitive: ".env",
    identity: null,
    size: 0,
  };
  const asked = policy({ maxRisk: 4 }).decide(safe, { paths: [sensitive] });
  assert.equal(asked.decision, "ask");
  assert.equal(asked.rule, "runtime:sensitive-path");
});

Deno.test("smart mode is part of the policy's meaning: its hash differs, others' stay", () => {
  assert.notEqual(policy({ maxRisk: 0 }).hash, policy(null).hash);
  assert.notEqual(policy({ maxRisk: 0 }).hash, policy({ maxRisk: 1 }).hash);
  assert.equal("mode" in policy(null).snapshot(), false);
});
