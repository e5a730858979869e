import assert from "node:assert/strict";
import type { ResolvedPath } from "../sandbox/path_guard.ts";
import type { ToolDescriptor } from "../tools/tool_definition.ts";
import { EffectivePolicy, RUNTIME_RULES } from "./effective_policy.ts";
import type { ConfigRule } from "./policy_inputs.ts";
import { type CommandFinding, NO_TARGETS, type TargetScope } from "./policy_rule.ts";

const WORKSPACE = "/w/project";

function tool(
  name: string,
  permission: "readonly" | "write",
  extra: Partial<ToolDescriptor["annotations"]> = {},
  tags: string[] = [],
): ToolDescriptor {
  return {
    name,
    description: name,
    input_schema: { type: "object" },
    permission,
    tags: [permission === "write" ? "write" : "read", ...tags],
    annotations: {
      read_only: permission === "readonly",
      destructive: false,
      idempotent: false,
      open_world: false,
      risk_level: permission === "readonly" ? 0 : 2,
      category: "filesystem",
      requires_confirmation: false,
      ...extra,
    },
  };
}

const read = tool("fs.read_file", "readonly");
const write = tool("fs.write_file", "write");
const remove = tool("fs.delete_file", "write", { destructive: true, risk_level: 3 }, [
  "destructive",
]);
const confirm = tool("demo.confirm", "readonly", { requires_confirmation: true });
const TOOLS = [read, write, remove, confirm];

function path(display: string, facts: Partial<ResolvedPath> = {}): ResolvedPath {
  const real = facts.real ?? `${WORKSPACE}/${display}`;
  return {
    requested: display,
    real,
    spelled: real,
    display,
    access: "read",
    type: "file",
    via_symlink: false,
    root: WORKSPACE,
    protected: null,
    sensitive: null,
    identity: null,
    size: 0,
    ...facts,
  };
}

function scope(...paths: ResolvedPath[]): TargetScope {
  return { paths };
}

function policy(
  configRules: ConfigRule[] = [],
  extra: Partial<Parameters<typeof EffectivePolicy.compute>[0]> = {},
) {
  return EffectivePolicy.compute({
    tools: TOOLS,
    workspace: WORKSPACE,
    configRules,
    configSource: "test",
    sandbox: {},
    ...extra,
  });
}

Deno.test("policy defaults: readonly allows, write asks, destructive is off", () => {
  const effective = policy();
  assert.deepEqual(pick(effective.decide(read, scope(path("a.ts")))), [
    "allow",
    "default",
    RUNTIME_RULES.defaultReadonly,
  ]);
  assert.deepEqual(pick(effective.decide(write, scope(path("a.ts")))), [
    "ask",
    "default",
    RUNTIME_RULES.defaultWrite,
  ]);
  assert.deepEqual(pick(effective.decide(remove, scope(path("a.ts")))), [
    "deny",
    "runtime",
    RUNTIME_RULES.destructiveOff,
  ]);
  assert.equal(effective.isAvailable("fs.delete_file"), false);
  assert.equal(effective.isAvailable("fs.write_file"), true);
});

Deno.test("policy: a wildcard allow never enables a destructive tool; naming it does", () => {
  assert.equal(
    policy([{ id: "all", tools: ["*"], decision: "allow" }]).decide(remove, scope(path("a")))
      .decision,
    "deny",
  );
  assert.equal(
    policy([{ id: "fs", tools: ["fs.*"], decision: "allow" }]).isAvailable("fs.delete_file"),
    false,
  );
  // Naming it turns it on, but without narrowing every call asks (issue 11).
  const enabled = policy([{ id: "rm", tools: ["fs.delete_file"], decision: "allow" }]);
  assert.deepEqual(pick(enabled.decide(remove, scope(path("a")))), [
    "ask",
    "runtime",
    RUNTIME_RULES.highRiskUnscoped,
  ]);
  assert.equal(enabled.isAvailable("fs.delete_file"), true);
  const narrowed = policy([
    { id: "rm", tools: ["fs.delete_file"], paths: ["tmp/**"], decision: "allow" },
  ]);
  assert.deepEqual(pick(narrowed.decide(remove, scope(path("tmp/a")))), ["allow", "config", "rm"]);
});

Deno.test("policy: a scope-less, wildcard or match-all allow of a high-risk tool asks and says why", () => {
  const asks = (rules: ConfigRule[]) => policy(rules).decide(remove, scope(path("tmp/a")));
  for (
    const rules of [
      [{ id: "rm", tools: ["fs.delete_file"], decision: "allow" as const }],
      [{ id: "rm", tools: ["fs.delete_file"], paths: ["**"], decision: "allow" as const }],
      [{
        id: "rm",
        tools: ["fs.delete_file"],
        paths: ["./**", "tmp/**"],
        decision: "allow" as const,
      }],
      [
        { id: "on", tools: ["fs.delete_file"], decision: "ask" as const },
        { id: "rm", tools: ["fs.*"], paths: ["tmp/**"], decision: "allow" as const },
      ],
    ]
  ) {
    const decision = asks(rules);
    assert.deepEqual(pick(decision).slice(0, 2), ["ask", "runtime"], JSON.stringify(rules));
    if (decision.rule === RUNTIME_RULES.highRiskUnscoped) {
      assert.match(decision.reason, /rule "rm" allows the destructive tool "fs\.delete_file"/);
      assert.match(decision.reason, /"paths", "commands", "arguments" or "hosts"/);
    }
  }
  // Near miss: a narrow allow covers the call even beside a wide one.
  assert.deepEqual(
    pick(asks([
      { id: "wide", tools: ["fs.delete_file"], decision: "allow" },
      { id: "tmp", tools: ["fs.delete_file"], paths: ["tmp/**"], decision: "allow" },
    ])),
    ["allow", "config", "tmp"],
  );
});

Deno.test("policy: deny beats ask beats allow across config rules", () => {
  const effective = policy([
    { id: "allow-all", tools: ["fs.*"], decision: "allow" },
    { id: "ask-docs", tools: ["fs.write_file"], paths: ["docs/**"], decision: "ask" },
    { id: "deny-src", tools: ["fs.write_file"], paths: ["src/**"], decision: "deny" },
  ]);
  assert.deepEqual(pick(effective.decide(write, scope(path("notes.md")))), [
    "allow",
    "config",
    "allow-all",
  ]);
  assert.deepEqual(pick(effective.decide(write, scope(path("docs/a.md")))), [
    "ask",
    "config",
    "ask-docs",
  ]);
  assert.deepEqual(pick(effective.decide(write, scope(path("src/a.ts")))), [
    "deny",
    "config",
    "deny-src",
  ]);
  assert.equal(effective.decide(write, scope(path("src/a.ts"))).error_type, "permission_denied");
  // One denied path is enough to deny a call touching several.
  assert.equal(effective.decide(write, scope(path("notes.md"), path("src/a.ts"))).decision, "deny");
});

Deno.test("policy: an allow with paths covers a call only when every path matches", () => {
  const effective = policy([{
    id: "docs",
    tools: ["fs.write_file"],
    paths: ["docs/**"],
    decision: "allow",
  }]);
  assert.equal(effective.decide(write, scope(path("docs/a.md"))).decision, "allow");
  assert.equal(effective.decide(write, scope(path("docs/a.md"), path("src/b.ts"))).decision, "ask");
  assert.equal(
    effective.decide(write, NO_TARGETS).decision,
    "ask",
    "a path rule never matches a call without paths",
  );
  // Sibling folders do not match: docs2/ is not docs/.
  assert.equal(effective.decide(write, scope(path("docs2/a.md"))).decision, "ask");
});

Deno.test("policy: protected paths deny before any rule, even allow-all", () => {
  const effective = policy([{ id: "all", tools: ["*"], decision: "allow" }]);
  const decision = effective.decide(
    write,
    scope(path(".git/hooks/pre-commit", { protected: `${WORKSPACE}/.git` })),
  );
  assert.deepEqual(pick(decision), ["deny", "sandbox", RUNTIME_RULES.protectedPath]);
  assert.equal(decision.error_type, "permission_denied");
});

Deno.test("policy: sensitive paths ask even when a rule allows; a config deny still wins", () => {
  const allowAll = policy([{ id: "all", tools: ["*"], decision: "allow" }]);
  const decision = allowAll.decide(read, scope(path(".env", { sensitive: ".env" })));
  assert.deepEqual(pick(decision), ["ask", "runtime", RUNTIME_RULES.sensitivePath]);
  const denyEnv = policy([{ id: "no-env", tools: ["*"], paths: [".env"], decision: "deny" }]);
  assert.deepEqual(pick(denyEnv.decide(read, scope(path(".env", { sensitive: ".env" })))), [
    "deny",
    "config",
    "no-env",
  ]);
});

Deno.test("policy: requires_confirmation asks even for readonly tools", () => {
  assert.deepEqual(pick(policy().decide(confirm, NO_TARGETS)), [
    "ask",
    "runtime",
    RUNTIME_RULES.requiresConfirmation,
  ]);
});

Deno.test("policy: a tool-level config deny removes the tool from the effective set", () => {
  const effective = policy([{ id: "no-writes", tools: ["fs.write_file"], decision: "deny" }]);
  assert.equal(effective.isAvailable("fs.write_file"), false);
  assert.equal(effective.toolPolicy("fs.write_file")?.rule, "no-writes");
  assert.equal(effective.isAvailable("fs.read_file"), true);
});

Deno.test("policy: tag filters need every listed tag", () => {
  const effective = policy([{
    id: "writes",
    tools: ["*"],
    tags: ["write", "filesystem"],
    decision: "deny",
  }]);
  assert.equal(
    effective.decide(write, scope(path("a"))).decision,
    "ask",
    "fs.write_file here lacks the filesystem tag",
  );
  const both = policy([{ id: "writes", tools: ["*"], tags: ["write"], decision: "deny" }]);
  assert.equal(both.decide(write, scope(path("a"))).decision, "deny");
});

Deno.test("policy: skill requests can only ask or narrow, never allow", () => {
  const effective = policy([], {
    skillRequests: [{
      skill: "survey",
      allowed_tools: ["fs.read_file", "fs.write_file"],
      rules: [{ tools: ["fs.write_file"], decision: "allow" }],
    }],
  });
  const decision = effective.decide(write, scope(path("a")));
  assert.equal(decision.decision, "ask");
  assert.equal(decision.layer, "skill");
  assert.match(decision.reason, /a skill cannot allow/);
  assert.equal(effective.isAvailable("demo.confirm"), false, "narrowed out by allowed_tools");
  // A skill's narrowing beats a config allow.
  const narrowed = policy([{ id: "all", tools: ["*"], decision: "allow" }], {
    skillRequests: [{ skill: "readonly", allowed_tools: ["fs.read_file"] }],
  });
  assert.deepEqual(pick(narrowed.decide(write, scope(path("a")))), [
    "deny",
    "skill",
    RUNTIME_RULES.skillNarrowing,
  ]);
});

Deno.test("policy: writes into the run's own folders are allowed by default, not elsewhere", () => {
  const effective = policy([], { runFolders: ["/runs/r1/deliverables"] });
  const inside = path("report.md", { real: "/runs/r1/deliverables/report.md" });
  const sibling = path("x", { real: "/runs/r1/deliverables2/x" });
  assert.deepEqual(pick(effective.decide(write, scope(inside))), [
    "allow",
    "default",
    RUNTIME_RULES.defaultRunFolders,
  ]);
  assert.equal(effective.decide(write, scope(sibling)).decision, "ask");
  // A config rule still wins over that default.
  const denied = policy([{ id: "no", tools: ["fs.write_file"], decision: "deny" }], {
    runFolders: ["/runs/r1/deliverables"],
  });
  assert.equal(denied.decide(write, scope(inside)).decision, "deny");
});

Deno.test("policy: deny rules match the spelling too, allow rules only the real path", () => {
  const effective = policy([
    { id: "no-vendor", tools: ["fs.read_file"], paths: ["vendor/**"], decision: "deny" },
    { id: "docs", tools: ["fs.write_file"], paths: ["docs/**"], decision: "allow" },
  ]);
  // vendor-link -> vendor: denied through the link.
  const throughLink = path("vendor/a.txt", {
    spelled: `${WORKSPACE}/vendor-link/a.txt`,
    real: `${WORKSPACE}/vendor/a.txt`,
  });
  assert.equal(effective.decide(read, scope(throughLink)).decision, "deny");
  // A link named vendor pointing elsewhere: its spelling matches the deny.
  const namedLike = path("elsewhere/a.txt", {
    spelled: `${WORKSPACE}/vendor/a.txt`,
    real: `${WORKSPACE}/elsewhere/a.txt`,
  });
  assert.equal(effective.decide(read, scope(namedLike)).decision, "deny");
  // docs-link -> src: the allow on docs/** does not cover it (real path is src/).
  const widen = path("src/a.ts", {
    spelled: `${WORKSPACE}/docs/a.ts`,
    real: `${WORKSPACE}/src/a.ts`,
  });
  assert.equal(effective.decide(write, scope(widen)).decision, "ask");
});

Deno.test("policy: names starting with .. inside the workspace match relative patterns", () => {
  const effective = policy([{
    id: "private",
    tools: ["fs.read_file"],
    paths: ["..private/**"],
    decision: "deny",
  }]);
  assert.equal(effective.decide(read, scope(path("..private/key.txt"))).decision, "deny");
  assert.equal(effective.decide(read, scope(path("private/key.txt"))).decision, "allow");
});

Deno.test('policy: a rule with paths ["/**"] decides instead of failing', () => {
  const effective = policy([{
    id: "all",
    tools: ["fs.write_file"],
    paths: ["/**"],
    decision: "deny",
  }]);
  assert.equal(effective.decide(write, scope(path("a.txt"))).decision, "deny");
});

Deno.test("policy snapshot names every layer and its hash changes with the rules", () => {
  const first = policy([{ id: "a", tools: ["fs.*"], decision: "allow" }]);
  const second = policy([{ id: "a", tools: ["fs.*"], decision: "ask" }]);
  const snapshot = first.snapshot() as {
    hash: string;
    layers: Record<string, unknown>;
    tools: unknown[];
  };
  assert.deepEqual(Object.keys(snapshot.layers), ["runtime", "sandbox", "config", "skill"]);
  assert.equal(snapshot.tools.length, TOOLS.length);
  assert.equal(snapshot.hash, first.hash);
  assert.notEqual(first.hash, second.hash);
  assert.equal(
    first.hash,
    policy([{ id: "a", tools: ["fs.*"], decision: "allow" }]).hash,
    "deterministic",
  );
});

function pick(
  decision: { decision: string; layer: string; rule: string },
): [string, string, string] {
  return [decision.decision, decision.layer, decision.rule];
}

const runCommand = tool("exec.run_command", "write", { risk_level: 3 }, ["exec", "dangerous"]);

function command(
  argv: string[],
  findings: CommandFinding[] = [],
) {
  return {
    program: argv[0] as string,
    path: `/usr/bin/${argv[0]}`,
    argv,
    cwd: path("."),
    findings,
  };
}

Deno.test("policy: command rules match the program and single arguments, never a joined string", () => {
  const effective = EffectivePolicy.compute({
    tools: [...TOOLS, runCommand],
    workspace: WORKSPACE,
    configSource: "test",
    sandbox: {},
    configRules: [
      { id: "git", tools: ["exec.run_command"], commands: ["git"], decision: "allow" },
      {
        id: "ls-status",
        tools: ["exec.run_command"],
        commands: ["ls"],
        arguments: ["status"],
        decision: "allow",
      },
      {
        id: "no-push",
        tools: ["exec.run_command"],
        commands: ["git"],
        arguments: ["push"],
        decision: "deny",
      },
    ],
  });
  const decideArgv = (argv: string[]) =>
    effective.decide(runCommand, { paths: [path(".")], commands: [command(argv)] });
  assert.deepEqual(pick(decideArgv(["git", "status"])), ["allow", "config", "git"]);
  assert.deepEqual(pick(decideArgv(["git", "push", "origin"])), ["deny", "config", "no-push"]);
  // An allow on arguments covers the first argument only: "status" later does not allow a push.
  assert.equal(decideArgv(["git", "push", "status"]).decision, "deny");
  // "push" inside a longer argument is not the argument "push".
  assert.equal(decideArgv(["git", "commit", "-m", "please push later"]).decision, "allow");
  // Another program is not covered by the git allow: the write default asks.
  assert.deepEqual(pick(decideArgv(["ls"])), ["ask", "default", RUNTIME_RULES.defaultWrite]);
  assert.deepEqual(pick(decideArgv(["ls", "-l", "status"])), [
    "ask",
    "default",
    RUNTIME_RULES.defaultWrite,
  ]);
  assert.deepEqual(pick(decideArgv(["ls", "status"])), ["allow", "config", "ls-status"]);
  assert.equal(effective.isAvailable("exec.run_command"), true, "named exactly: enabled");
});

Deno.test("policy: exec.run_command asks under a scope-less allow and runs git under commands [git]", () => {
  const decideGit = (rules: ConfigRule[]) =>
    EffectivePolicy.compute({
      tools: [...TOOLS, runCommand],
      workspace: WORKSPACE,
      configSource: "test",
      sandbox: {},
      configRules: rules,
    }).decide(runCommand, { paths: [path(".")], commands: [command(["git", "status"])] });
  const scopeless = decideGit([{ id: "all", tools: ["exec.run_command"], decision: "allow" }]);
  assert.deepEqual(pick(scopeless), ["ask", "runtime", RUNTIME_RULES.highRiskUnscoped]);
  assert.match(scopeless.reason, /"exec\.run_command" without narrowing it/);
  const everyProgram = decideGit([
    { id: "any", tools: ["exec.run_command"], commands: ["*"], decision: "allow" },
  ]);
  assert.equal(everyProgram.decision, "ask");
  assert.deepEqual(
    pick(
      decideGit([{ id: "git", tools: ["exec.run_command"], commands: ["git"], decision: "allow" }]),
    ),
    ["allow", "config", "git"],
  );
});

Deno.test("policy: argument findings ask for interpreters and deny code-executing options even under allow", () => {
  const effective = EffectivePolicy.compute({
    tools: [...TOOLS, runCommand],
    workspace: WORKSPACE,
    configSource: "test",
    sandbox: {},
    configRules: [{ id: "all", tools: ["exec.run_command"], decision: "allow" }],
  });
  const shell = effective.decide(runCommand, {
    paths: [],
    commands: [
      command(["sh", "-c", "x"], [{
        id: "shell",
        kind: "unrestricted_execution",
        index: 0,
        argument: "sh",
        reason: "a shell",
      }]),
    ],
  });
  assert.deepEqual(pick(shell), ["ask", "runtime", RUNTIME_RULES.unrestrictedExecution]);
  const pager = effective.decide(runCommand, {
    paths: [],
    commands: [
      command(["git", "-c", "core.pager=x"], [{
        id: "git.config",
        kind: "code_execution",
        index: 1,
        argument: "-c",
        reason: "sets config",
      }]),
    ],
  });
  assert.deepEqual(pick(pager), ["deny", "runtime", RUNTIME_RULES.codeExecutingArguments]);
  const unchecked = effective.decide(runCommand, {
    paths: [],
    commands: [
      command(["git", "-C", "/"], [{
        id: "git.cwd",
        kind: "unchecked",
        index: 1,
        argument: "-C",
        reason: "changes folder",
      }]),
    ],
  });
  assert.deepEqual(pick(unchecked), ["deny", "runtime", RUNTIME_RULES.uncheckedArguments]);
});

Deno.test("policy: exec.run_command stays off until a rule names it exactly", () => {
  const effective = EffectivePolicy.compute({
    tools: [...TOOLS, runCommand],
    workspace: WORKSPACE,
    configSource: "test",
    sandbox: {},
    configRules: [{ id: "everything", tools: ["*"], decision: "allow" }],
  });
  assert.equal(effective.isAvailable("exec.run_command"), false);
});

const memoryRecall = tool("memory.recall_memory", "readonly", {}, ["memory"]);
const memoryWrite = tool("memory.write_memory", "write", {}, ["memory"]);
const listFiles = tool("fs.list_files", "readonly");

Deno.test("policy: agent types — worker gets a minimal readonly set, sub/fork/worker never get memory", () => {
  const tools = [read, listFiles, write, memoryRecall, memoryWrite];
  const available = (
    agentType: "main" | "sub" | "fork" | "worker",
    extra: Partial<Parameters<typeof EffectivePolicy.compute>[0]> = {},
  ) => {
    const effective = EffectivePolicy.compute({
      tools,
      workspace: WORKSPACE,
      configSource: "test",
      sandbox: {},
      configRules: [{ id: "all", tools: ["*"], decision: "allow" }],
      agentType,
      ...extra,
    });
    return tools.map((item) => item.name).filter((name) => effective.isAvailable(name));
  };
  assert.deepEqual(available("main"), [
    "fs.read_file",
    "fs.list_files",
    "fs.write_file",
    "memory.recall_memory",
    "memory.write_memory",
  ]);
  assert.deepEqual(available("sub"), ["fs.read_file", "fs.list_files", "fs.write_file"]);
  assert.deepEqual(available("fork"), ["fs.read_file", "fs.list_files", "fs.write_file"]);
  assert.deepEqual(
    available("worker"),
    ["fs.read_file", "fs.list_files"],
    "an allow-all rule never widens a worker",
  );
  // A task can only narrow, and suggested tools are a preference, never a grant.
  assert.deepEqual(
    available("sub", { taskTools: ["fs.read_file"], suggestedTools: ["fs.write_file"] }),
    ["fs.read_file"],
  );
  const worker = EffectivePolicy.compute({
    tools,
    workspace: WORKSPACE,
    configSource: "test",
    sandbox: {},
    configRules: [],
    agentType: "worker",
  });
  assert.deepEqual(pick(worker.decide(write, NO_TARGETS)), [
    "deny",
    "runtime",
    RUNTIME_RULES.agentType,
  ]);
});
