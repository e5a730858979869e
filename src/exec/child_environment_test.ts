import assert from "node:assert/strict";
import {
  buildChildEnvironment,
  DEFAULT_ENV_ALLOWLIST,
  expandAllowlist,
  isNeverPassed,
  NEVER_PASSED,
} from "./child_environment.ts";
import { runConfined } from "./spawn_confined.ts";
import { baseSpec, tempDir } from "./_test_support.ts";

/** A parent environment holding a canary secret and variables that make programs run code. */
const PARENT: Record<string, string> = {
  PATH: "/usr/bin:/bin",
  HOME: "/root",
  LANG: "C.UTF-8",
  ANTHROPIC_API_KEY: "canary-123",
  LD_PRELOAD: "/x.so",
  LD_LIBRARY_PATH: "/evil",
  "BASH_FUNC_x%%": "() { touch /tmp/pwned; }",
  NODE_OPTIONS: "--require /x.js",
  BASH_ENV: "/x.sh",
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "core.pager",
  GIT_CONFIG_VALUE_0: "touch /tmp/pwned",
  GIT_CONFIG_GLOBAL: "/x.gitconfig",
  GIT_SSH_COMMAND: "touch /tmp/pwned",
  GIT_AUTHOR_NAME: "Ada",
  PYTHONSTARTUP: "/x.py",
  CI: "true",
  GITHUB_SHA: "0123abcd",
};
const NAMES = Object.keys(PARENT);

Deno.test("expandAllowlist passes exact names that exist and matches globs", () => {
  assert.deepEqual(
    expandAllowlist([...DEFAULT_ENV_ALLOWLIST, "CI", "GITHUB_*", "ABSENT"], NAMES),
    ["CI", "GITHUB_SHA", "HOME", "LANG", "PATH"],
  );
});

Deno.test("expandAllowlist passes GIT_CONFIG_GLOBAL when named exactly but not via GIT_*", () => {
  assert.deepEqual(expandAllowlist(["GIT_*"], NAMES), ["GIT_AUTHOR_NAME"]);
  assert.deepEqual(expandAllowlist(["GIT_*", "GIT_CONFIG_GLOBAL"], NAMES), [
    "GIT_AUTHOR_NAME",
    "GIT_CONFIG_GLOBAL",
  ]);
});

Deno.test("expandAllowlist never passes a code-running variable through the * glob", () => {
  const passed = expandAllowlist(["*"], NAMES);
  for (
    const name of ["LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_FUNC_x%%", "NODE_OPTIONS", "BASH_ENV"]
  ) {
    assert.ok(!passed.includes(name), `${name} passed`);
  }
  for (const name of ["GIT_CONFIG_COUNT", "GIT_SSH_COMMAND", "PYTHONSTARTUP"]) {
    assert.ok(!passed.includes(name), `${name} passed`);
  }
  // Near miss: ordinary variables do pass (a bare "*" also passes secrets: configs must not use it).
  assert.ok(passed.includes("CI") && passed.includes("GIT_AUTHOR_NAME"));
});

Deno.test("expandAllowlist throws TypeError when an entry is empty or holds =", () => {
  assert.throws(() => expandAllowlist([""], NAMES), TypeError);
  assert.throws(() => expandAllowlist(["A=B"], NAMES), TypeError);
});

Deno.test("isNeverPassed matches each rule's prefix or exact name", () => {
  assert.ok(isNeverPassed("LD_AUDIT") && isNeverPassed("DYLD_INSERT_LIBRARIES"));
  assert.ok(isNeverPassed("GIT_CONFIG") && isNeverPassed("GIT_CONFIG_PARAMETERS"));
  assert.ok(isNeverPassed("DENO_AUTH_TOKENS") && isNeverPassed("npm_config_script_shell"));
  // Near misses: similar names that run nothing.
  assert.ok(!isNeverPassed("GIT_AUTHOR_NAME") && !isNeverPassed("ENVIRONMENT"));
  assert.ok(!isNeverPassed("LDFLAGS") && !isNeverPassed("PYTHONUNBUFFERED"));
  for (const rule of NEVER_PASSED) {
    assert.match(rule.pattern, /^[A-Za-z_][A-Za-z0-9_]*\*?$/);
    assert.ok(rule.reason.length > 10, rule.pattern);
  }
});

Deno.test("buildChildEnvironment sets overrides over inherited values and extra ones", () => {
  const env = buildChildEnvironment({
    names: ["PATH", "HOME", "MISSING"],
    read: (name) => PARENT[name],
    overrides: { HOME: "/run/home", TMPDIR: "/run/tmp" },
    extra: { GIT_TERMINAL_PROMPT: "0", HOME: "/elsewhere" },
  });
  assert.deepEqual(env, {
    PATH: "/usr/bin:/bin",
    HOME: "/run/home",
    TMPDIR: "/run/tmp",
    GIT_TERMINAL_PROMPT: "0",
  });
});

Deno.test("buildChildEnvironment throws TypeError when an override is relative or a value holds NUL", () => {
  const read = () => "x\0y";
  assert.throws(
    () => buildChildEnvironment({ names: [], read, overrides: { HOME: "home", TMPDIR: "/t" } }),
    TypeError,
  );
  assert.throws(
    () => buildChildEnvironment({ names: ["A"], read, overrides: { HOME: "/h", TMPDIR: "/t" } }),
    TypeError,
  );
});

Deno.test("a child started with the built environment sees no secret and no code-running variable", async () => {
  const dir = await tempDir();
  try {
    const names = expandAllowlist([...DEFAULT_ENV_ALLOWLIST, "CI", "GITHUB_*", "GIT_*"], NAMES);
    const env = buildChildEnvironment({
      names,
      read: (name) => PARENT[name],
      overrides: { HOME: dir, TMPDIR: dir },
    });
    const outcome = await runConfined(baseSpec("/usr/bin/env", [], dir, { env }));
    const printed = outcome.stdout.text;
    for (
      const leak of ["canary-123", "LD_", "BASH_FUNC", "NODE_OPTIONS", "GIT_CONFIG", "GIT_SSH"]
    ) {
      assert.ok(!printed.includes(leak), `the child saw "${leak}": ${printed}`);
    }
    for (const leak of ["BASH_ENV", "PYTHONSTARTUP", "/root"]) {
      assert.ok(!printed.includes(leak), `the child saw "${leak}": ${printed}`);
    }
    // Near miss: allowlisted variables reach the child, HOME and TMPDIR point at the run's folder.
    assert.deepEqual(printed.trim().split("\n").sort(), [
      "CI=true",
      "GITHUB_SHA=0123abcd",
      "GIT_AUTHOR_NAME=Ada",
      `HOME=${dir}`,
      "LANG=C.UTF-8",
      "PATH=/usr/bin:/bin",
      `TMPDIR=${dir}`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
