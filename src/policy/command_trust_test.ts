import assert from "node:assert/strict";
import type { ResolvedPath } from "../sandbox/path_guard.ts";
import type { ToolDescriptor } from "../tools/tool_definition.ts";
import { EffectivePolicy, RUNTIME_RULES } from "./effective_policy.ts";
import type { ConfigRule } from "./policy_inputs.ts";
import type { CommandScope, PolicyDecision } from "./policy_rule.ts";

const WORKSPACE = "/w/project";

const runCommand: ToolDescriptor = {
  name: "exec.run_command",
  description: "runs a command",
  input_schema: { type: "object" },
  permission: "write",
  tags: ["exec", "write", "dangerous"],
  annotations: {
    read_only: false,
    destructive: false,
    idempotent: false,
    open_world: false,
    risk_level: 3,
    category: "exec",
    requires_confirmation: false,
  },
};

const cwd: ResolvedPath = {
  requested: ".",
  real: WORKSPACE,
  spelled: WORKSPACE,
  display: ".",
  access: "list",
  type: "directory",
  via_symlink: false,
  root: WORKSPACE,
  protected: null,
  sensitive: null,
  identity: null,
  size: 0,
};

/** A command as resolve_command.ts gives it: interpreters carry their finding. */
function command(argv: string[], readOnly: boolean): CommandScope {
  const program = argv[0] as string;
  const unrestricted = ["npm", "node", "sh"].includes(program);
  return {
    program,
    path: `/usr/bin/${program}`,
    argv,
    cwd,
    findings: unrestricted
      ? [{
        id: "argv:build-tool",
        kind: "unrestricted_execution",
        index: 0,
        argument: program,
        reason: "runs code",
      }]
      : [],
    readOnly,
  };
}

function decide(
  rules: ConfigRule[],
  isolation: "bwrap" | "none",
  argv: string[],
  readOnly = false,
): PolicyDecision {
  const policy = EffectivePolicy.compute({
    tools: [runCommand],
    workspace: WORKSPACE,
    configRules: rules,
    configSource: "test",
    sandbox: {},
    commandIsolation: { effective: isolation, reason: "test", tools: ["exec.run_command"] },
  });
  return policy.decide(runCommand, { paths: [cwd], commands: [command(argv, readOnly)] });
}

const pick = (decision: PolicyDecision) => [decision.decision, decision.rule];
const NPM: ConfigRule = {
  id: "npm",
  tools: ["exec.run_command"],
  commands: ["npm"],
  decision: "allow",
};

Deno.test("policy: under bwrap an allow rule naming npm runs npm test unasked; a glob that covers it asks", () => {
  assert.deepEqual(pick(decide([NPM], "bwrap", ["npm", "test"])), ["allow", "npm"]);
  const glob = { ...NPM, id: "glob", commands: ["n*"] };
  assert.deepEqual(pick(decide([glob], "bwrap", ["npm", "test"])), [
    "ask",
    RUNTIME_RULES.unrestrictedExecution,
  ]);
  // The same rule by the program's path names it too.
  const byPath = { ...NPM, id: "path", commands: ["/usr/bin/npm"] };
  assert.deepEqual(pick(decide([byPath], "bwrap", ["npm", "test"])), ["allow", "path"]);
});

Deno.test("policy: under isolation none the rule naming npm still asks", () => {
  assert.equal(decide([NPM], "none", ["npm", "test"]).decision, "ask");
});

Deno.test("policy: an argv that may write asks through a rule that does not name its program", () => {
  const glob: ConfigRule = {
    id: "glob",
    tools: ["exec.run_command"],
    commands: ["z*"],
    decision: "allow",
  };
  const zip = ["zip", "-T", "-TT", "sh -c id", "a.zip", "f"];
  assert.deepEqual(pick(decide([glob], "bwrap", zip)), ["ask", RUNTIME_RULES.programNotNamed]);
  const named = { ...glob, id: "named", commands: ["zip"] };
  assert.deepEqual(pick(decide([named], "bwrap", zip)), ["allow", "named"]);
  // Known-safe: the glob allows it, and so does the default without any command rule.
  assert.deepEqual(pick(decide([glob], "bwrap", ["zcat", "f"], true)), ["allow", "glob"]);
  assert.deepEqual(pick(decide([NPM], "bwrap", ["git", "diff"], true)), [
    "allow",
    RUNTIME_RULES.defaultReadOnlyCommand,
  ]);
  assert.deepEqual(pick(decide([NPM], "bwrap", ["git", "push"])), [
    "ask",
    RUNTIME_RULES.defaultWrite,
  ]);
});

Deno.test("policy: argument_prefix narrows a named program to its first arguments, in order", () => {
  const lint: ConfigRule = { ...NPM, id: "lint", argument_prefix: ["run", "lint"] };
  assert.deepEqual(pick(decide([lint], "bwrap", ["npm", "run", "lint"])), ["allow", "lint"]);
  assert.deepEqual(pick(decide([lint], "bwrap", ["npm", "run", "lint", "--", "--fix"])), [
    "allow",
    "lint",
  ]);
  for (const argv of [["npm", "run", "build"], ["npm", "lint", "run"], ["npm", "run"]]) {
    assert.equal(decide([lint], "bwrap", argv).decision, "ask", argv.join(" "));
  }
  const tests: ConfigRule = { ...NPM, id: "tests", argument_prefix: ["test*"] };
  assert.deepEqual(pick(decide([tests], "bwrap", ["npm", "test"])), ["allow", "tests"]);
  assert.equal(decide([tests], "bwrap", ["npm", "install"]).decision, "ask");
});
