import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { TargetScope } from "../policy/policy_rule.ts";
import type { ResolvedPath } from "../sandbox/path_guard.ts";
import { namedLocations } from "../policy/named_locations.ts";
import { grantCovers, normaliseScope } from "./grant.ts";

const SECRET = "grant-secret-0b1c2d3e";
const holdsSecret = (text: string) => text.includes(SECRET);

function path(real: string, access: "read" | "write" = "write"): ResolvedPath {
  return { real, access } as unknown as ResolvedPath;
}

function commandScope(argv: string[], cwd = "/w"): TargetScope {
  const folder = path(cwd, "read");
  return {
    paths: [folder],
    commands: [{ program: "echo", path: "/usr/bin/echo", argv, cwd: folder, findings: [] }],
  };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

Deno.test("normaliseScope names an argv by its sha256 when it holds a secret", () => {
  const scope = normaliseScope(commandScope(["echo", "-n", SECRET]), [], holdsSecret);
  assert.deepEqual(scope, [`command:echo sha256:${sha256(`["-n","${SECRET}"]`)} in /w`]);
  assert.ok(!scope.join("").includes(SECRET));
  // The same call gives the same scope: a grant made from it covers it again, a wider one not.
  const grant = { tool: "exec.run_command", scope, policy: "0".repeat(64) };
  assert.ok(grantCovers(grant, "exec.run_command", scope));
  const wider = normaliseScope(commandScope(["echo", SECRET]), [], holdsSecret);
  assert.ok(!grantCovers(grant, "exec.run_command", wider));
});

Deno.test("normaliseScope shows an argv as JSON when it holds no secret (near miss)", () => {
  assert.deepEqual(normaliseScope(commandScope(["echo", "hello"]), [], holdsSecret), [
    'command:echo ["hello"] in /w',
  ]);
});

Deno.test("normaliseScope names a folder or a path by its sha256 when it holds a secret", () => {
  const cwd = `/w/${SECRET}`;
  assert.deepEqual(normaliseScope(commandScope(["echo", "x"], cwd), [], holdsSecret), [
    `command:echo ["x"] in sha256:${sha256(cwd)}`,
  ]);
  const written = normaliseScope(
    { paths: [path(`/run/out/${SECRET}.txt`), path("/run/out/plain.txt")] },
    [{ name: "<run>", path: "/run" }],
    holdsSecret,
  );
  assert.deepEqual(written, [
    "write:<run>/out/plain.txt",
    `write:sha256:${sha256(`<run>/out/${SECRET}.txt`)}`,
  ]);
});

const CHECKOUT_A = namedLocations({
  workspace: "/home/a/repo",
  runDir: "/home/a/repo/runs/1",
  readRoots: ["/opt/shared"],
});
const CHECKOUT_B = namedLocations({
  workspace: "/srv/ci/build/repo",
  runDir: "/srv/ci/runs/7",
  readRoots: ["/mnt/shared-copy"],
});

function scopeIn(root: string, runDir: string, shared: string): TargetScope {
  const folder = path(`${root}/sub`, "read");
  return {
    paths: [
      path(`${root}/src/a.ts`),
      path(`${shared}/x`, "read"),
      path(`${runDir}/deliverables/r.md`),
      folder,
    ],
    commands: [{
      program: "cat",
      path: "/usr/bin/cat",
      argv: ["cat", `${root}/src/a.ts`, `--file=${shared}/x`, "plain"],
      cwd: folder,
      findings: [],
    }],
  };
}

Deno.test("normaliseScope writes the same scope for the same call in two checkouts at different paths", () => {
  const inA = normaliseScope(
    scopeIn("/home/a/repo", "/home/a/repo/runs/1", "/opt/shared"),
    CHECKOUT_A,
    holdsSecret,
  );
  const inB = normaliseScope(
    scopeIn("/srv/ci/build/repo", "/srv/ci/runs/7", "/mnt/shared-copy"),
    CHECKOUT_B,
    holdsSecret,
  );
  assert.deepEqual(inA, inB);
  assert.deepEqual(inA, [
    'command:cat ["<workspace>/src/a.ts","--file=<read_root:0>/x","plain"] in <workspace>/sub',
    "read:<read_root:0>/x",
    "write:<run>/deliverables/r.md",
    "write:<workspace>/src/a.ts",
  ]);
});

Deno.test("normaliseScope keeps paths outside every location absolute and escapes look-alike arguments (near miss)", () => {
  const folder = path("/home/a/repo", "read");
  const scope = normaliseScope(
    {
      paths: [path("/home/a/repo2/a.ts"), folder],
      commands: [{
        program: "cat",
        path: "/usr/bin/cat",
        argv: ["cat", "<workspace>/a", "/home/a/repo/a"],
        cwd: folder,
        findings: [],
      }],
    },
    CHECKOUT_A,
    holdsSecret,
  );
  // A sibling folder is no part of the workspace; a literal "<workspace>/a" argument is not the
  // workspace's file, so the two arguments never write the same.
  assert.deepEqual(scope, [
    'command:cat ["\\\\<workspace>/a","<workspace>/a"] in <workspace>',
    "write:/home/a/repo2/a.ts",
  ]);
});
