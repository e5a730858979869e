import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "./config_error.ts";
import { DEFAULT_LIMITS, DEFAULT_SECRET_ENV, MAX_INSTRUCTIONS_BYTES } from "./defaults.ts";
import { loadConfig } from "./load_config.ts";

const TESTDATA = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "tests",
  "testdata",
  "config",
);
const fixture = (...parts: string[]) => join(TESTDATA, ...parts);

/** Runs `body` in a fresh temporary folder, removed afterwards. */
async function withTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent_config_test_" }));
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes `value` (an object, serialised as JSON, or raw text) to `dir/name` and returns the path. */
async function writeConfig(dir: string, name: string, value: unknown): Promise<string> {
  const path = join(dir, name);
  await Deno.writeTextFile(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

/** Asserts that `promise` rejects with a ConfigError and returns it for further checks. */
async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  try {
    await promise;
  } catch (error: unknown) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${error}`);
    return error;
  }
  assert.fail("expected a ConfigError, but loading succeeded");
}

Deno.test("loadConfig fills every default when the file sets only the workspace", async () => {
  const config = await loadConfig(fixture("minimal.jsonc"), {}, { home: () => "/home/tester" });
  const kagentHome = Deno.env.get("KAGENT_HOME");
  assert.deepEqual(config, {
    configPath: fixture("minimal.jsonc"),
    configDir: TESTDATA,
    workspace: TESTDATA,
    runs_dir: join(TESTDATA, "runs"),
    sandbox: {
      command_isolation: "auto",
      command_network: false,
      allow_nested_repositories: false,
      read_roots: [],
      write_roots: [],
      sensitive_paths: [],
      hide_sensitive_in_listings: false,
    },
    permissionsPath: null,
    permissions: { rules: [], mode: "default", smart_max_risk: 0 },
    model: null,
    task: null,
    agent: {
      max_turns: 50,
      max_parallel_tools: 4,
      instructions: null,
      max_children_per_run: 16,
      max_concurrent_children: 4,
      max_depth: 2,
      instruction_files: ["AGENTS.md", "CLAUDE.md"],
      instruction_file_max_bytes: 8192,
    },
    commands: [],
    tools: {
      default_timeout_ms: 120_000,
      max_timeout_ms: 600_000,
      stdout_limit_bytes: 65_536,
      stderr_limit_bytes: 16_384,
      env: [],
      git_safe_mode: true,
      git_write: false,
      max_processes: 512,
      interpreters: { ".sh": "sh", ".py": "python3" },
      dirs: [kagentHome ? `${kagentHome}/tools` : "/home/tester/.kagent/tools"],
    },
    skills: { dirs: [join(TESTDATA, "skills"), join(TESTDATA, ".agents", "skills")] },
    limits: { ...DEFAULT_LIMITS, max_total_tokens: null },
    audit: {
      secret_env: [...DEFAULT_SECRET_ENV],
      signing_key_env: null,
      trace_content: false,
      trace_hosts: [],
    },
    hooks: { pre_tool_use: [], post_tool_use: [] },
    mcp_servers: {},
    agents: {},
    network: { hosts: [], max_response_bytes: 10_485_760, timeout_ms: 30_000, max_redirects: 5 },
    tasks: { store: { kind: "sqlite" }, lease_ms: 60_000, renew_ms: 20_000 },
    memory: {
      write_mode: "candidate",
      folder: "/home/tester/.kagent/memory",
      scopes: ["run", "project", "user"],
      project_id: null,
      provider: { kind: "file" },
      context_max_bytes: 4096,
      context_limit: 5,
    },
  });
  assert.equal(config.limits.max_argument_bytes, 1_048_576);
  assert.equal(config.limits.max_output_bytes, 65_536);
});

Deno.test("loadConfig uses the config folder as workspace when the file is empty", async () => {
  const config = await loadConfig(fixture("empty.jsonc"));
  assert.equal(config.workspace, TESTDATA);
  assert.equal(config.runs_dir, join(TESTDATA, "runs"));
  assert.deepEqual(config.permissions, { rules: [], mode: "default", smart_max_risk: 0 });
});

Deno.test("loadConfig resolves relative paths against the config folder when run from elsewhere", async () => {
  const base = fixture("relative");
  const config = await loadConfig(fixture("relative", "agent.jsonc"));
  assert.equal(config.configDir, base);
  assert.equal(config.workspace, join(base, "ws"));
  assert.equal(config.runs_dir, fixture("relative_runs"));
  assert.deepEqual(config.sandbox.read_roots, [join(base, "docs")]);
  assert.deepEqual(config.sandbox.write_roots, [join(base, "ws", "build")]);
  assert.equal(config.permissionsPath, join(base, "perms", "permissions.json"));
  assert.deepEqual(config.model, { provider: "script", script: join(base, "plan.jsonl") });
  assert.deepEqual(config.permissions.rules.map((rule) => rule.id), [
    "config:0",
    "ask-commands",
    "config:2",
  ]);
  assert.deepEqual(config.permissions.rules[1]?.commands, ["git"]);
});

Deno.test("loadConfig does not create the runs folder when loading", async () => {
  await loadConfig(fixture("relative", "agent.jsonc"));
  await assert.rejects(Deno.stat(fixture("relative_runs")), Deno.errors.NotFound);
});

Deno.test("loadConfig accepts comments and trailing commas when the file is JSONC", async () => {
  const config = await loadConfig(fixture("commented.jsonc"));
  assert.deepEqual(config.sandbox.sensitive_paths, ["**/*.pem"]);
  assert.equal(config.task, "Summarise the README");
  assert.equal(config.permissionsPath, null);
  assert.deepEqual(config.permissions.rules, [
    { id: "config:0", tools: ["fs.read_file", "fs.list_files"], decision: "allow" },
    { id: "no-exec", tools: ["exec.*"], decision: "deny", reason: "no commands here" },
  ]);
});

Deno.test("loadConfig names the file, line and column when the JSONC is malformed", async () => {
  const error = await configError(loadConfig(fixture("syntax_error.jsonc")));
  assert.equal(error.code, "config_syntax");
  assert.equal(error.file, fixture("syntax_error.jsonc"));
  assert.equal(error.key, null);
  assert.equal(
    error.message,
    `Cannot load config "${fixture("syntax_error.jsonc")}": line 3, column 10: expected ":"`,
  );
});

Deno.test("loadConfig refuses a key given twice when a later value would override", async () => {
  const error = await configError(loadConfig(fixture("repeated_key.jsonc")));
  assert.equal(error.code, "config_syntax");
  assert.match(error.message, /: line 4, column 3: key "task" is repeated$/);
});

Deno.test("loadConfig reports a syntax error when the file holds only a comment", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", "  // nothing\n");
    const error = await configError(loadConfig(path));
    assert.equal(error.code, "config_syntax");
    assert.match(error.message, /: line \d+, column \d+: expected a value$/);
  });
});

Deno.test("loadConfig names the file and the key when a key is unknown", async () => {
  const path = fixture("unknown_key.jsonc");
  const error = await configError(loadConfig(path));
  assert.equal(error.code, "config_invalid");
  assert.equal(error.file, path);
  assert.equal(error.key, "sandbox.read_root");
  assert.equal(
    error.message,
    `Cannot load config "${path}": key "sandbox.read_root" is not a known key`,
  );
});

Deno.test("loadConfig lists every issue when several keys are wrong", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", {
      task: 3,
      agent: { max_turns: 0 },
      limits: { max_output_bytes: 1.5 },
      extra: true,
      audit: { secret_env: ["MY-TOKEN"] },
    });
    const error = await configError(loadConfig(path));
    assert.equal(error.code, "config_invalid");
    assert.deepEqual([...error.issues].sort(), [
      'key "agent.max_turns" must be at least 1',
      'key "audit.secret_env[0]" must be an environment variable name (letters, digits and ' +
      "underscores)",
      'key "extra" is not a known key',
      'key "limits.max_output_bytes" must be an integer',
      'key "task" must be a string',
    ]);
    assert.ok(error.message.endsWith(error.issues[0] ?? "missing"));
  });
});

Deno.test("loadConfig refuses a non-object document when the file holds an array", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", "[]");
    const error = await configError(loadConfig(path));
    assert.equal(error.key, null);
    assert.equal(error.message, `Cannot load config "${path}": the file must be an object`);
  });
});

Deno.test("loadConfig reports config_not_found when the file does not exist", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "absent.jsonc");
    const error = await configError(loadConfig(path));
    assert.equal(error.code, "config_not_found");
    assert.equal(error.file, path);
    assert.equal(error.message, `Cannot load config "${path}": file does not exist`);
  });
});

Deno.test("loadConfig refuses a write root outside the workspace when it is a sibling", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(join(dir, "project"));
    await Deno.mkdir(join(dir, "project2"));
    const path = await writeConfig(dir, "agent.jsonc", {
      workspace: "project",
      sandbox: { write_roots: ["project2", "project/../project2/out", "/tmp"] },
    });
    const error = await configError(loadConfig(path));
    assert.equal(error.code, "config_invalid");
    assert.equal(error.key, "sandbox.write_roots[0]");
    assert.equal(
      error.message,
      `Cannot load config "${path}": key "sandbox.write_roots[0]" must be a path inside the ` +
        `workspace: "${join(dir, "project2")}" is not inside "${join(dir, "project")}"`,
    );
    assert.deepEqual(error.issues.map((issue) => issue.split(" must")[0]), [
      'key "sandbox.write_roots[0]"',
      'key "sandbox.write_roots[1]"',
      'key "sandbox.write_roots[2]"',
    ]);
  });
});

Deno.test("loadConfig accepts a write root inside the workspace when its name starts with dots", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(join(dir, "project"));
    const path = await writeConfig(dir, "agent.jsonc", {
      workspace: "project",
      sandbox: { write_roots: ["project", "project/..build", "project/out/../dist"] },
    });
    const config = await loadConfig(path);
    assert.deepEqual(config.sandbox.write_roots, [
      join(dir, "project"),
      join(dir, "project", "..build"),
      join(dir, "project", "dist"),
    ]);
  });
});

Deno.test("loadConfig refuses the workspace when the directory does not exist", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", { workspace: "missing" });
    const error = await configError(loadConfig(path));
    assert.equal(error.code, "config_invalid");
    assert.equal(error.key, "workspace");
    assert.equal(
      error.message,
      `Cannot load config "${path}": key "workspace" must be an existing directory: ` +
        `"${join(dir, "missing")}" does not exist`,
    );
  });
});

Deno.test("loadConfig refuses the workspace when it is a file", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", { workspace: "agent.jsonc" });
    const error = await configError(loadConfig(path));
    assert.equal(error.key, "workspace");
    assert.match(
      error.message,
      /must be an existing directory: ".*agent\.jsonc" is not a directory$/,
    );
  });
});

Deno.test("loadConfig refuses a read root when it does not exist", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", {
      sandbox: { read_roots: ["agent.jsonc", "gone"] },
    });
    const error = await configError(loadConfig(path));
    assert.equal(error.key, "sandbox.read_roots[1]");
    assert.match(
      error.message,
      /key "sandbox\.read_roots\[1\]" must be an existing path: ".*gone"/,
    );
  });
});

Deno.test("loadConfig refuses a model script when the file does not exist", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", {
      model: { provider: "script", script: "plan.jsonl" },
    });
    const error = await configError(loadConfig(path));
    assert.equal(error.key, "model.script");
    assert.match(error.message, /key "model\.script" must be an existing file: ".*plan\.jsonl"/);
  });
});

Deno.test("loadConfig names the allowed providers when the provider is unknown", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", { model: { provider: "openia" } });
    const error = await configError(loadConfig(path));
    assert.equal(error.key, "model.provider");
    assert.equal(
      error.message,
      `Cannot load config "${path}": key "model.provider" must be one of "script", "openai", "anthropic", "openai-responses", "azure", "bedrock", "vertex", "google", "mistral", "groq"`,
    );
  });
});

Deno.test("loadConfig says a key is required when a model omits its script", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", { model: { provider: "script" } });
    const error = await configError(loadConfig(path));
    assert.equal(error.message, `Cannot load config "${path}": key "model.script" is required`);
  });
});

Deno.test("loadConfig resolves --workspace against the current directory when overridden", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(join(dir, "elsewhere"));
    const path = await writeConfig(dir, "agent.jsonc", { workspace: "missing-but-overridden" });
    const config = await loadConfig(path, { workspace: join(dir, "elsewhere") });
    assert.equal(config.workspace, join(dir, "elsewhere"));

    const relative = await loadConfig(fixture("minimal.jsonc"), { workspace: "." });
    assert.equal(relative.workspace, Deno.cwd());
  });
});

Deno.test("loadConfig checks write roots against the overriding workspace when --workspace is given", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(join(dir, "a"));
    await Deno.mkdir(join(dir, "b"));
    const path = await writeConfig(dir, "agent.jsonc", {
      workspace: "a",
      sandbox: { write_roots: ["a/out"] },
    });
    const error = await configError(loadConfig(path, { workspace: join(dir, "b") }));
    assert.equal(error.key, "sandbox.write_roots[0]");
  });
});

Deno.test("loadConfig refuses --workspace when the directory does not exist", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", {});
    const error = await configError(loadConfig(path, { workspace: join(dir, "nope") }));
    assert.equal(error.code, "config_invalid");
    assert.equal(error.key, "workspace");
    assert.match(
      error.message,
      /--workspace ".*nope" must be an existing directory: .* does not exist$/,
    );
  });
});

Deno.test("loadConfig expands ~/ to the home folder when a path starts with it", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(join(dir, "home", "shared"), { recursive: true });
    const path = await writeConfig(dir, "agent.jsonc", {
      runs_dir: "~/runs",
      sandbox: { read_roots: ["~/shared"] },
    });
    const config = await loadConfig(path, {}, { home: () => join(dir, "home") });
    assert.equal(config.runs_dir, join(dir, "home", "runs"));
    assert.deepEqual(config.sandbox.read_roots, [join(dir, "home", "shared")]);

    const error = await configError(loadConfig(path, {}, { home: () => undefined }));
    assert.equal(error.key, "runs_dir");
    assert.match(error.message, /key "runs_dir" cannot be resolved: HOME is not set$/);
  });
});

Deno.test("loadConfig adds the file's secret_env names to the defaults when listed", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", {
      audit: { secret_env: ["MY_SERVICE_TOKEN", "GITHUB_TOKEN"] },
      limits: { max_output_bytes: 1024 },
      agent: { max_turns: 7 },
    });
    const config = await loadConfig(path);
    assert.deepEqual(config.audit.secret_env, [...DEFAULT_SECRET_ENV, "MY_SERVICE_TOKEN"]);
    assert.deepEqual(config.limits, {
      ...DEFAULT_LIMITS,
      max_output_bytes: 1024,
      max_total_tokens: null,
    });
    assert.equal(config.agent.max_turns, 7);
  });
});

Deno.test("loadConfig refuses max_turns when it is above 1000", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", { agent: { max_turns: 1001 } });
    const error = await configError(loadConfig(path));
    assert.equal(
      error.message,
      `Cannot load config "${path}": key "agent.max_turns" must be at most 1000`,
    );
  });
});

Deno.test("loadConfig reports permissions_not_found naming the permissions file when it is missing", async () => {
  const path = fixture("permissions_missing.jsonc");
  const error = await configError(loadConfig(path));
  assert.equal(error.code, "permissions_not_found");
  assert.equal(error.file, fixture("does_not_exist.json"));
  assert.equal(error.key, "permissions");
  assert.equal(
    error.message,
    `Cannot load permissions "does_not_exist.json" (from key "permissions" of "${path}"): file ` +
      "does not exist",
  );
});

Deno.test("loadConfig reports permissions_syntax when the permissions file is malformed", async () => {
  const error = await configError(loadConfig(fixture("permissions_malformed.jsonc")));
  assert.equal(error.code, "permissions_syntax");
  assert.equal(error.file, fixture("malformed_permissions.json"));
  assert.equal(error.key, null);
  assert.equal(
    error.message,
    'Cannot load permissions "malformed_permissions.json": line 3, column 25: expected ","',
  );
});

Deno.test("loadConfig reports permissions_invalid with the key when a decision is unknown", async () => {
  const error = await configError(loadConfig(fixture("permissions_bad_decision.jsonc")));
  assert.equal(error.code, "permissions_invalid");
  assert.equal(error.file, fixture("bad_decision_permissions.json"));
  assert.equal(error.key, "rules[2].decision");
  assert.equal(
    error.message,
    'Cannot load permissions "bad_decision_permissions.json": key "rules[2].decision" must be ' +
      'one of "allow", "ask", "deny"',
  );
});

Deno.test("loadConfig refuses inline permissions when a value would need coercion", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", {
      permissions: {
        rules: [
          { tools: ["fs.*"], decision: "allow " },
          { tools: "fs.*", decision: "allow" },
        ],
      },
    });
    const error = await configError(loadConfig(path));
    assert.equal(error.code, "config_invalid");
    assert.equal(error.file, path);
    assert.equal(error.key, "permissions.rules[0].decision");
    assert.deepEqual(error.issues, [
      'key "permissions.rules[0].decision" must be one of "allow", "ask", "deny"',
      'key "permissions.rules[1].tools" must be an array',
    ]);
  });
});

Deno.test("loadConfig refuses inline permissions when rule ids repeat", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", {
      permissions: {
        rules: [
          { id: "config:1", tools: ["fs.read_file"], decision: "allow" },
          { tools: ["fs.write_file"], decision: "deny" },
        ],
      },
    });
    const error = await configError(loadConfig(path));
    assert.equal(error.key, "permissions.rules[1].id");
    assert.equal(
      error.message,
      `Cannot load config "${path}": key "permissions.rules[1].id" must be unique: "config:1" ` +
        "is also the id of rules[0]",
    );
  });
});

Deno.test("loadConfig names both types when permissions is neither a path nor an object", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", { permissions: 42 });
    const error = await configError(loadConfig(path));
    assert.equal(
      error.message,
      `Cannot load config "${path}": key "permissions" must be a string or an object`,
    );
  });
});

Deno.test("loadConfig treats __proto__ as an unknown key when a file sets it", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", '{ "__proto__": { "task": "injected" } }');
    const error = await configError(loadConfig(path));
    assert.equal(error.key, "__proto__");
    assert.match(error.message, /key "__proto__" is not a known key$/);
    assert.equal(({} as Record<string, unknown>).task, undefined);
  });
});

Deno.test("loadConfig refuses a default timeout above the maximum and a tool folder in the workspace", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "agent.jsonc");
    await Deno.writeTextFile(path, JSON.stringify({ tools: { default_timeout_ms: 700_000 } }));
    const tooLong = await configError(loadConfig(path));
    assert.equal(tooLong.key, "tools.default_timeout_ms");
    assert.match(tooLong.message, /must not exceed "tools.max_timeout_ms" \(600000\)/);
    await Deno.writeTextFile(path, JSON.stringify({ tools: { dirs: ["tools"] } }));
    const inside = await configError(loadConfig(path));
    assert.equal(inside.key, "tools.dirs[0]");
    assert.match(inside.message, /must be outside the workspace/);
    await Deno.writeTextFile(
      path,
      JSON.stringify({ commands: ["git"], sandbox: { command_isolation: "maybe" } }),
    );
    assert.equal((await configError(loadConfig(path))).key, "sandbox.command_isolation");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadConfig reads agent.instructions relative to the config folder when it is set", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(join(dir, "config", "prompts"), { recursive: true });
    await Deno.writeTextFile(
      join(dir, "config", "prompts", "agent.md"),
      "\uFEFF# House rules\n\nKeep the tests green. Ünïcode stays.\n",
    );
    const path = await writeConfig(join(dir, "config"), "agent.jsonc", {
      workspace: "..",
      agent: { instructions: "prompts/agent.md" },
    });
    const config = await loadConfig(path);
    assert.deepEqual(config.agent.instructions, {
      path: join(dir, "config", "prompts", "agent.md"),
      text: "# House rules\n\nKeep the tests green. Ünïcode stays.\n",
    });
  });
});

Deno.test("loadConfig refuses agent.instructions when the file does not exist", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", { agent: { instructions: "missing.md" } });
    const error = await configError(loadConfig(path));
    assert.equal(error.code, "config_invalid");
    assert.equal(error.key, "agent.instructions");
    assert.equal(
      error.message,
      `Cannot load config "${path}": key "agent.instructions" must be an existing file: ` +
        `"${join(dir, "missing.md")}" does not exist`,
    );
  });
});

Deno.test("loadConfig refuses agent.instructions above 64 KiB and accepts exactly 64 KiB", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(join(dir, "full.md"), "a".repeat(MAX_INSTRUCTIONS_BYTES));
    await Deno.writeTextFile(join(dir, "over.md"), "a".repeat(MAX_INSTRUCTIONS_BYTES + 1));
    const full = await writeConfig(dir, "full.jsonc", { agent: { instructions: "full.md" } });
    const over = await writeConfig(dir, "over.jsonc", { agent: { instructions: "over.md" } });
    assert.equal((await loadConfig(full)).agent.instructions?.text.length, 65_536);
    const error = await configError(loadConfig(over));
    assert.equal(error.key, "agent.instructions");
    assert.equal(
      error.message,
      `Cannot load config "${over}": key "agent.instructions" must be at most 65536 bytes ` +
        `(64 KiB): "${join(dir, "over.md")}" is larger`,
    );
  });
});

Deno.test("loadConfig refuses agent.instructions when it is a folder, a FIFO or not text", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(join(dir, "folder.md"));
    const fifo = await new Deno.Command("mkfifo", { args: [join(dir, "pipe.md")] }).output();
    assert.ok(fifo.success, "mkfifo failed");
    await Deno.writeFile(join(dir, "latin1.md"), new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await Deno.writeFile(join(dir, "nul.md"), new Uint8Array([0x61, 0x00, 0x62]));
    const cases: [string, RegExp][] = [
      ["folder.md", /must be a regular file: ".*folder\.md" is a directory$/],
      // Loading must not open (and block on) the FIFO: the check comes before the open.
      ["pipe.md", /must be a regular file: ".*pipe\.md" is a FIFO, socket or device$/],
      ["latin1.md", /must be UTF-8 text: ".*latin1\.md" is not valid UTF-8$/],
      ["nul.md", /must be a text file: ".*nul\.md" contains NUL bytes$/],
    ];
    for (const [name, reason] of cases) {
      const path = await writeConfig(dir, "agent.jsonc", { agent: { instructions: name } });
      const error = await configError(loadConfig(path));
      assert.equal(error.key, "agent.instructions", name);
      assert.match(error.message, reason);
    }
  });
});

Deno.test("loadConfig accepts agent.instructions through a symlink to a regular file", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(join(dir, "real.md"), "Be brief.\n");
    await Deno.symlink(join(dir, "real.md"), join(dir, "link.md"));
    const path = await writeConfig(dir, "agent.jsonc", { agent: { instructions: "link.md" } });
    assert.deepEqual((await loadConfig(path)).agent.instructions, {
      path: join(dir, "link.md"),
      text: "Be brief.\n",
    });
  });
});

Deno.test("loadConfig accepts model.strict for openai and refuses it for anthropic", async () => {
  await withTempDir(async (dir) => {
    const openai = await writeConfig(dir, "openai.jsonc", {
      model: { provider: "openai", model: "gpt-test", strict: true },
    });
    assert.deepEqual((await loadConfig(openai)).model, {
      provider: "openai",
      model: "gpt-test",
      strict: true,
    });
    const anthropic = await writeConfig(dir, "anthropic.jsonc", {
      model: { provider: "anthropic", model: "claude-test", strict: true },
    });
    const error = await configError(loadConfig(anthropic));
    assert.equal(error.key, "model.strict");
    const notBoolean = await writeConfig(dir, "text.jsonc", {
      model: { provider: "openai", model: "gpt-test", strict: "yes" },
    });
    assert.equal((await configError(loadConfig(notBoolean))).key, "model.strict");
  });
});

Deno.test("loadConfig refuses a model or memory base_url that is not http(s)", async () => {
  await withTempDir(async (dir) => {
    for (
      const [name, config, key] of [
        [
          "ftp",
          { model: { provider: "openai", model: "m", base_url: "ftp://x/v1" } },
          "model.base_url",
        ],
        [
          "file",
          { model: { provider: "anthropic", model: "m", base_url: "file:///v1" } },
          "model.base_url",
        ],
        [
          "bare",
          { memory: { provider: { kind: "http", base_url: "memory.internal:8080" } } },
          "memory.provider.base_url",
        ],
      ] as const
    ) {
      const error = await configError(loadConfig(await writeConfig(dir, `${name}.jsonc`, config)));
      assert.equal(error.key, key, name);
      assert.match(error.message, /must be an http:\/\/ or https:\/\/ URL/, name);
    }
    // Near miss: a local server over plain http loads.
    const local = await writeConfig(dir, "local.jsonc", {
      model: { provider: "openai", model: "llama3.1", base_url: "http://127.0.0.1:11434/v1" },
    });
    assert.equal((await loadConfig(local)).model?.provider, "openai");
  });
});

Deno.test("loadConfig reads the search time budget and the listing switch when the file sets them", async () => {
  await withTempDir(async (dir) => {
    const path = await writeConfig(dir, "agent.jsonc", {
      limits: { search_time_budget_ms: 2500 },
      sandbox: { hide_sensitive_in_listings: true },
    });
    const config = await loadConfig(path);
    assert.equal(config.limits.search_time_budget_ms, 2500);
    assert.equal(config.sandbox.hide_sensitive_in_listings, true);
    const defaults = await loadConfig(await writeConfig(dir, "plain.jsonc", {}));
    assert.equal(defaults.limits.search_time_budget_ms, 10_000);
    assert.equal(defaults.sandbox.hide_sensitive_in_listings, false);
    const bad = await writeConfig(dir, "bad.jsonc", { limits: { search_time_budget_ms: 0 } });
    const error = await configError(loadConfig(bad));
    assert.deepEqual(error.issues, ['key "limits.search_time_budget_ms" must be at least 1']);
  });
});

Deno.test("loadConfig fills an mcp_servers entry pasted from another client", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/agent.jsonc`,
      JSON.stringify({
        mcp_servers: {
          everything: {
            command: "npx",
            args: ["-y", "@modelcontextprotocol/server-everything"],
            env: { TOKEN: "${MY_TOKEN}" },
          },
        },
      }),
    );
    const config = await loadConfig(`${dir}/agent.jsonc`);
    assert.deepEqual(config.mcp_servers.everything, {
      type: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-everything"],
      env: { TOKEN: "${MY_TOKEN}" },
      cwd: await Deno.realPath(dir),
      timeout_ms: 60_000,
      startup_timeout_ms: 30_000,
      tools: null,
      trust_annotations: false,
      required: true,
      write: false,
      network: false,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadConfig loads an HTTP MCP server and refuses a URL with credentials or another scheme", async () => {
  const dir = await Deno.makeTempDir();
  const write = (servers: unknown) =>
    Deno.writeTextFile(`${dir}/agent.jsonc`, JSON.stringify({ mcp_servers: servers }));
  try {
    await write({
      remote: {
        type: "streamable-http",
        url: "https://example.com/mcp",
        headers: { Authorization: "Bearer ${TOKEN}" },
      },
      legacy: { type: "sse", url: "http://127.0.0.1:8931/sse", required: false },
    });
    const config = await loadConfig(`${dir}/agent.jsonc`);
    assert.deepEqual(config.mcp_servers.remote, {
      type: "http",
      url: "https://example.com/mcp",
      headers: { Authorization: "Bearer ${TOKEN}" },
      timeout_ms: 60_000,
      startup_timeout_ms: 30_000,
      tools: null,
      trust_annotations: false,
      required: true,
    });
    assert.equal(config.mcp_servers.legacy?.type, "sse");
    for (
      const [url, reason] of [
        ["https://user:pass@example.com/mcp", /must not hold credentials/],
        ["ftp://example.com/mcp", /must be an http:\/\/ or https:\/\/ URL/],
      ] as const
    ) {
      await write({ remote: { type: "http", url } });
      await assert.rejects(
        () => loadConfig(`${dir}/agent.jsonc`),
        (error: Error) =>
          error instanceof ConfigError && error.message.includes("mcp_servers.remote") &&
          reason.test(error.message),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadConfig reads tasks.store postgres and makes its URL variable a secret", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(
      join(dir, "agent.jsonc"),
      JSON.stringify({
        tasks: {
          store: { kind: "postgres", url_env: "KAGENT_TASKS_DATABASE_URL" },
          lease_ms: 3000,
        },
      }),
    );
    const config = await loadConfig(join(dir, "agent.jsonc"));
    assert.deepEqual(config.tasks, {
      store: { kind: "postgres", url_env: "KAGENT_TASKS_DATABASE_URL", schema: "kagent" },
      lease_ms: 3000,
      renew_ms: 20_000,
    });
    assert.ok(config.audit.secret_env.includes("KAGENT_TASKS_DATABASE_URL"));
    // Near miss: a schema that is not a lower-case identifier is refused, naming the key.
    await Deno.writeTextFile(
      join(dir, "agent.jsonc"),
      JSON.stringify({ tasks: { store: { kind: "postgres", url_env: "X", schema: "Bad-Name" } } }),
    );
    await assert.rejects(() => loadConfig(join(dir, "agent.jsonc")), /tasks\.store\.schema/);
  });
});
