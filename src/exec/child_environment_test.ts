import assert from "node:assert/strict";
import {
  buildChildEnvironment,
  commandSearchPath,
  DEFAULT_ENV_ALLOWLIST,
  expandAllowlist,
  isNeverPassed,
  NEVER_PASSED,
  NEVER_PASSED_FAMILIES,
} from "./child_environment.ts";
import { runConfined } from "./spawn_confined.ts";
import { baseSpec, tempDir } from "./_test_support.ts";
import { exists } from "../testing/path_exists.ts";

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
  assert.deepEqual(expandAllowlist(["GIT_*"], NAMES), []);
  assert.deepEqual(expandAllowlist(["GIT_*", "GIT_CONFIG_GLOBAL", "GIT_AUTHOR_NAME"], NAMES), [
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
  // Near miss: ordinary variables do pass.
  assert.ok(passed.includes("CI") && passed.includes("GITHUB_SHA"));
});

Deno.test("expandAllowlist throws TypeError when an entry is empty or holds =", () => {
  assert.throws(() => expandAllowlist([""], NAMES), TypeError);
  assert.throws(() => expandAllowlist(["A=B"], NAMES), TypeError);
});

Deno.test("isNeverPassed matches prefixes, suffixes, fragments and exact names, ignoring case", () => {
  assert.ok(isNeverPassed("LD_AUDIT") && isNeverPassed("DYLD_INSERT_LIBRARIES"));
  assert.ok(isNeverPassed("GIT_CONFIG") && isNeverPassed("GIT_CONFIG_PARAMETERS"));
  assert.ok(isNeverPassed("DENO_AUTH_TOKENS") && isNeverPassed("npm_config_script_shell"));
  assert.ok(isNeverPassed("TAR_OPTIONS") && isNeverPassed("tar_options"));
  assert.ok(isNeverPassed("EXINIT") && isNeverPassed("LUA_INIT") && isNeverPassed("https_proxy"));
  // Near misses: names no family covers.
  for (const name of ["CI", "GITHUB_SHA", "ENVIRONMENT", "LANG", "TZ", "USER", "NO_COLOR"]) {
    assert.ok(!isNeverPassed(name), name);
  }
  for (const rule of NEVER_PASSED) {
    assert.match(rule.pattern, /^\*?[A-Za-z_][A-Za-z0-9_]*\*?$/);
    assert.ok(rule.reason.length > 10, rule.pattern);
  }
});

/** A name a pattern matches: `GIT_*` → `GIT_KAGENT`, `*_OPTIONS` → `KAGENT_OPTIONS`. */
function sample(pattern: string): string {
  return pattern.replace(/^\*/, "KAGENT").replace(/\*$/, "_KAGENT");
}

for (const family of NEVER_PASSED_FAMILIES) {
  Deno.test(`expandAllowlist passes no ${family.family} variable through a glob, and each when named exactly`, () => {
    assert.ok(family.reason.length > 20 && !family.reason.includes("\n"), family.family);
    const names = family.patterns.map(sample);
    const lower = names.map((name) => name.toLowerCase());
    const globs = [
      "*",
      ...family.patterns.map((pattern) => pattern.includes("*") ? pattern : `${pattern}*`),
    ];
    assert.deepEqual(expandAllowlist(globs, [...names, ...lower, "CI"]), ["CI"], family.family);
    for (const name of names) assert.deepEqual(expandAllowlist([name], names), [name]);
  });
}

/** Variables the attack suite used to make an allowlisted program run or read other things. */
const CONFIGURING = [
  "TAR_OPTIONS",
  "RIPGREP_CONFIG_PATH",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_TRACE",
  "GIT_COMMON_DIR",
  "GIT_DIR",
  "OPENSSL_CONF",
  "MAKEFLAGS",
  "MFLAGS",
  "GNUMAKEFLAGS",
  "EXINIT",
  "PYTHONINSPECT",
  "XDG_CONFIG_HOME",
  "LUA_INIT",
  "INPUTRC",
  "WGETRC",
  "CURL_HOME",
  "LESSOPEN",
  "GREP_OPTIONS",
  "_JAVA_OPTIONS",
  "JAVA_TOOL_OPTIONS",
  "CLASSPATH",
  "RUSTC_WRAPPER",
  "GOFLAGS",
  "PIP_INDEX_URL",
  "BUNDLE_GEMFILE",
  "DOCKER_HOST",
  "KUBECONFIG",
  "AWS_SECRET_ACCESS_KEY",
  "GITHUB_TOKEN",
  "SSH_AUTH_SOCK",
  "GNUPGHOME",
  "SSLKEYLOGFILE",
  "SSL_CERT_FILE",
  "HOSTALIASES",
  "RES_OPTIONS",
  "NLSPATH",
  "TERMINFO",
  "PAGER",
  "GIT_PAGER",
  "EDITOR",
  "VISUAL",
  "BASH_ENV",
  "ENV",
];

Deno.test("expandAllowlist passes no variable that configures a program through the globs one would write", () => {
  const globs = [
    "*",
    "GIT_*",
    "TAR_*",
    "*_OPTIONS",
    "*_PATH",
    "XDG_*",
    "*INIT",
    "PYTHON*",
    "*FLAGS",
  ];
  assert.deepEqual(expandAllowlist(globs, CONFIGURING), []);
  // Near miss: the config author names one exactly, on purpose.
  assert.deepEqual(expandAllowlist(["TAR_OPTIONS", "*"], CONFIGURING), ["TAR_OPTIONS"]);
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
    const names = expandAllowlist(
      [...DEFAULT_ENV_ALLOWLIST, "CI", "GITHUB_*", "GIT_*", "GIT_AUTHOR_NAME"],
      NAMES,
    );
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

Deno.test("commandSearchPath puts the programs' folders first, then the system folders, once each", () => {
  assert.equal(
    commandSearchPath(["/opt/jq/bin/jq", "/usr/bin/git", "/opt/jq/bin/yq", "/usr/bin/tar"], []),
    "/opt/jq/bin:/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/sbin:/bin",
  );
});

Deno.test("commandSearchPath leaves out folders inside or equal to a forbidden root, by components", () => {
  const path = commandSearchPath(
    ["/w/project/bin/tool", "/w/project/x", "/w/project2/bin/tool", "/usr/bin/git"],
    ["/w/project", "/usr/local"],
  );
  assert.equal(path, "/w/project2/bin:/usr/bin:/usr/sbin:/sbin:/bin");
  for (const entry of path.split(":")) assert.ok(entry.startsWith("/"), entry);
});

Deno.test("commandSearchPath leaves out relative, unnormalised and colon-holding folders", () => {
  assert.equal(
    commandSearchPath(["bin/x", "./x", "/opt/a/../b/x", "/opt/a:b/x", "/opt//c/x", "x"], [
      "/usr",
    ]),
    "/sbin:/bin",
  );
});

Deno.test("commandSearchPath throws when every folder is forbidden or a root is relative", () => {
  assert.throws(() => commandSearchPath(["/usr/bin/git"], ["/"]), RangeError);
  assert.throws(() => commandSearchPath(["/usr/bin/git"], ["workspace"]), TypeError);
  assert.throws(() => commandSearchPath(["/usr/bin/git"], ["/w/"]), TypeError);
});

Deno.test("tar -z finds the system gzip with commandSearchPath, not a workspace bin/gzip", async () => {
  const workspace = await tempDir();
  try {
    const marker = `${workspace}/marker-gzip`;
    await Deno.mkdir(`${workspace}/bin`);
    await Deno.writeTextFile(`${workspace}/bin/gzip`, `#!/bin/sh\ntouch ${marker}\nexit 1\n`, {
      mode: 0o755,
    });
    await Deno.writeTextFile(`${workspace}/data.txt`, "data\n");
    const tar = async (path: string, archive: string) => {
      const spec = baseSpec("/usr/bin/tar", ["-czf", archive, "data.txt"], workspace);
      return await runConfined({ ...spec, env: { ...spec.env, PATH: path } });
    };
    const safe = await tar(commandSearchPath(["/usr/bin/tar"], [workspace]), "safe.tgz");
    assert.equal(safe.exit_code, 0, safe.stderr.text);
    assert.equal(await exists(marker), false, "the workspace gzip ran");
    // Near miss, showing the attack is real: the parent's PATH with the workspace bin/ first.
    await tar(`${workspace}/bin:/usr/bin:/bin`, "shadowed.tgz");
    assert.equal(
      await exists(marker),
      true,
      "the shadowing gzip did not run: the test proves nothing",
    );
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
