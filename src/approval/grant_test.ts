import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { TargetScope } from "../policy/policy_rule.ts";
import type { ResolvedPath } from "../sandbox/path_guard.ts";
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
  const scope = normaliseScope(commandScope(["echo", "-n", SECRET]), null, holdsSecret);
  assert.deepEqual(scope, [`command:/usr/bin/echo sha256:${sha256(`["-n","${SECRET}"]`)} in /w`]);
  assert.ok(!scope.join("").includes(SECRET));
  // The same call gives the same scope: a grant made from it covers it again, a wider one not.
  const grant = { tool: "exec.run_command", scope, policy: "0".repeat(64) };
  assert.ok(grantCovers(grant, "exec.run_command", scope));
  const wider = normaliseScope(commandScope(["echo", SECRET]), null, holdsSecret);
  assert.ok(!grantCovers(grant, "exec.run_command", wider));
});

Deno.test("normaliseScope shows an argv as JSON when it holds no secret (near miss)", () => {
  assert.deepEqual(normaliseScope(commandScope(["echo", "hello"]), null, holdsSecret), [
    'command:/usr/bin/echo ["hello"] in /w',
  ]);
});

Deno.test("normaliseScope names a folder or a path by its sha256 when it holds a secret", () => {
  const cwd = `/w/${SECRET}`;
  assert.deepEqual(normaliseScope(commandScope(["echo", "x"], cwd), null, holdsSecret), [
    `command:/usr/bin/echo ["x"] in sha256:${sha256(cwd)}`,
  ]);
  const written = normaliseScope(
    { paths: [path(`/run/out/${SECRET}.txt`), path("/run/out/plain.txt")] },
    "/run",
    holdsSecret,
  );
  assert.deepEqual(written, [
    "write:<run>/out/plain.txt",
    `write:sha256:${sha256(`<run>/out/${SECRET}.txt`)}`,
  ]);
});
