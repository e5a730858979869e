import assert from "node:assert/strict";
import type { ToolDescriptor } from "../tools/tool_definition.ts";
import { EffectivePolicy } from "./effective_policy.ts";
import type { ConfigRule } from "./policy_inputs.ts";
import { replaceLocations, sortLocations } from "./named_locations.ts";

const write = {
  name: "fs.write_file",
  description: "",
  permission: "write",
  tags: ["filesystem"],
  annotations: { risk_level: 2, destructive: false, requires_confirmation: false },
  input_schema: {},
} as unknown as ToolDescriptor;

const RULES: ConfigRule[] = [
  { id: "docs", tools: ["fs.write_file"], paths: ["docs/**"], decision: "allow" },
];

/** The policy of a checkout at `root`, laid out as kagent-run lays out a run. */
function checkout(root: string, rules = RULES, extraProtected: string[] = []) {
  const workspace = `${root}/repo`;
  const runDir = `${root}/repo/runs/20260101T000000Z-abcdef`;
  return EffectivePolicy.compute({
    tools: [write],
    workspace,
    configRules: rules,
    configSource: `${root}/repo/permissions.json`,
    runFolders: [`${runDir}/workspace`, `${runDir}/deliverables`],
    runDir,
    folders: { home: "/home/ci", config: workspace, runs: `${workspace}/runs` },
    sandbox: {
      workspace,
      read_roots: [`${root}/shared`],
      write_roots: [`${workspace}/out`],
      protected_paths: [`${workspace}/runs`, `${workspace}/agent.jsonc`, ...extraProtected],
      commands: { programs: [{ name: "git", path: "/usr/bin/git" }], interpreters: [] },
    },
  });
}

Deno.test("the policy hash is the same for two checkouts of a project at different paths", () => {
  const one = checkout("/home/ci/work/a");
  const two = checkout("/srv/build/other-place");
  assert.equal(one.hash, two.hash);
  // The snapshot still records where things lie; only the hash is location-free.
  assert.notDeepEqual(one.snapshot().layers, two.snapshot().layers);
});

Deno.test("the policy hash changes when the meaning changes (near miss)", () => {
  const base = checkout("/home/ci/work/a").hash;
  const wider = checkout("/home/ci/work/a", [
    { id: "docs", tools: ["fs.write_file"], paths: ["**"], decision: "allow" },
  ]);
  assert.notEqual(wider.hash, base, "another rule");
  // A protected path outside every named location stays absolute, so it still counts.
  assert.notEqual(checkout("/home/ci/work/a", RULES, ["/etc/extra"]).hash, base);
  assert.notEqual(
    checkout("/home/ci/work/a", RULES, ["/etc/other"]).hash,
    checkout("/home/ci/work/a", RULES, ["/etc/extra"]).hash,
  );
});

Deno.test("replaceLocations replaces whole paths and their leading components only", () => {
  const locations = sortLocations([
    { name: "<workspace>", path: "/w/repo" },
    { name: "<run>", path: "/w/repo/runs/1" },
  ]);
  const text = JSON.stringify({
    a: "/w/repo",
    b: "/w/repo/src/x.ts",
    c: "/w/repo/runs/1/workspace",
    d: "/w/repo2/x",
    e: "/x/w/repo/y",
    f: 'see "/w/repo/docs" here',
  });
  assert.deepEqual(JSON.parse(replaceLocations(text, locations)), {
    a: "<workspace>",
    b: "<workspace>/src/x.ts",
    c: "<run>/workspace",
    d: "/w/repo2/x",
    e: "/x/w/repo/y",
    f: 'see "<workspace>/docs" here',
  });
});
