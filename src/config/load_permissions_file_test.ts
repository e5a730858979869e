import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "./config_error.ts";
import { loadPermissionsFile } from "./load_permissions_file.ts";

const TESTDATA = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "tests",
  "testdata",
  "config",
);
const CONFIG = join(TESTDATA, "agent.jsonc");

async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  try {
    await promise;
  } catch (error: unknown) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${error}`);
    return error;
  }
  assert.fail("expected a ConfigError, but loading succeeded");
}

async function withPermissionsFile(
  content: unknown,
  body: (path: string, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kagent_permissions_test_" });
  try {
    const path = join(dir, "permissions.json");
    await Deno.writeTextFile(path, JSON.stringify(content));
    await body(path, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("loadPermissionsFile fills config:<index> ids when rules have none", async () => {
  const loaded = await loadPermissionsFile(
    "relative/perms/permissions.json",
    "permissions",
    CONFIG,
  );
  assert.deepEqual(loaded.rules, [
    { id: "config:0", tools: ["fs.*"], paths: ["src/**"], decision: "allow" },
    { id: "ask-commands", tools: ["exec.run_command"], commands: ["git"], decision: "ask" },
    {
      id: "config:2",
      tools: ["*"],
      tags: ["destructive"],
      decision: "deny",
      reason: "destructive tools are off",
    },
  ]);
});

Deno.test("loadPermissionsFile names both indexes when two rules share an id", async () => {
  const error = await configError(
    loadPermissionsFile("duplicate_ids_permissions.json", "permissions", CONFIG),
  );
  assert.equal(error.code, "permissions_invalid");
  assert.equal(error.file, join(TESTDATA, "duplicate_ids_permissions.json"));
  assert.equal(error.key, "rules[2].id");
  assert.equal(
    error.message,
    'Cannot load permissions "duplicate_ids_permissions.json": key "rules[2].id" must be unique: ' +
      '"reads" is also the id of rules[0]',
  );
});

Deno.test("loadPermissionsFile refuses tools when given as a string instead of an array", async () => {
  await withPermissionsFile({ rules: [{ tools: "fs.*", decision: "allow" }] }, async (path) => {
    const error = await configError(loadPermissionsFile(path, "permissions", CONFIG));
    assert.equal(error.code, "permissions_invalid");
    assert.equal(error.key, "rules[0].tools");
    assert.equal(
      error.message,
      `Cannot load permissions "${path}": key "rules[0].tools" must be an array`,
    );
  });
});

Deno.test("loadPermissionsFile refuses a decision when it has a trailing space", async () => {
  await withPermissionsFile({ rules: [{ tools: ["fs.*"], decision: "allow " }] }, async (path) => {
    const error = await configError(loadPermissionsFile(path, "permissions", CONFIG));
    assert.equal(error.key, "rules[0].decision");
    assert.match(error.message, /must be one of "allow", "ask", "deny"$/);
  });
});

Deno.test("loadPermissionsFile refuses a rule when its tools list is empty", async () => {
  await withPermissionsFile({ rules: [{ tools: [], decision: "deny" }] }, async (path) => {
    const error = await configError(loadPermissionsFile(path, "permissions", CONFIG));
    assert.equal(error.key, "rules[0].tools");
    assert.match(error.message, /key "rules\[0\]\.tools" must not be empty$/);
  });
});

Deno.test("loadPermissionsFile refuses a rule when it has an unknown key", async () => {
  await withPermissionsFile(
    { rules: [{ tools: ["fs.*"], decision: "deny", tool: "x" }] },
    async (path) => {
      const error = await configError(loadPermissionsFile(path, "permissions", CONFIG));
      assert.equal(error.key, "rules[0].tool");
      assert.match(error.message, /key "rules\[0\]\.tool" is not a known key$/);
    },
  );
});

Deno.test("loadPermissionsFile says rules is required when the file is an empty object", async () => {
  await withPermissionsFile({}, async (path) => {
    const error = await configError(loadPermissionsFile(path, "permissions", CONFIG));
    assert.equal(error.key, "rules");
    assert.match(error.message, /key "rules" is required$/);
  });
});

Deno.test("loadPermissionsFile accepts an empty rules list when the file allows nothing extra", async () => {
  await withPermissionsFile({ $schema: "x", rules: [] }, async (path) => {
    assert.deepEqual(await loadPermissionsFile(path, "permissions", CONFIG), {
      rules: [],
      mode: "default",
      smart_max_risk: 0,
    });
  });
});

Deno.test("loadPermissionsFile reports permissions_not_found when the path is a directory", async () => {
  await withPermissionsFile({ rules: [] }, async (_path, dir) => {
    const error = await configError(loadPermissionsFile(dir, "permissions", CONFIG));
    assert.equal(error.code, "permissions_not_found");
    assert.equal(error.key, "permissions");
    assert.match(error.message, /: path is a directory, not a file$/);
  });
});

Deno.test("loadPermissionsFile expands ~/ with the given home when the path starts with it", async () => {
  await withPermissionsFile({ rules: [] }, async (_path, dir) => {
    const loaded = await loadPermissionsFile("~/permissions.json", "permissions", CONFIG, {
      home: () => dir,
    });
    assert.deepEqual(loaded, { rules: [], mode: "default", smart_max_risk: 0 });
  });
});

Deno.test("loadPermissionsFile reads smart mode and its risk bound, and refuses a risk above 4", async () => {
  await withPermissionsFile({ mode: "smart", smart_max_risk: 1, rules: [] }, async (path) => {
    const loaded = await loadPermissionsFile(path, "permissions", CONFIG);
    assert.equal(loaded.mode, "smart");
    assert.equal(loaded.smart_max_risk, 1);
  });
  await withPermissionsFile({ mode: "smart", smart_max_risk: 5, rules: [] }, async (path) => {
    const error = await configError(loadPermissionsFile(path, "permissions", CONFIG));
    assert.equal(error.key, "smart_max_risk");
  });
  await withPermissionsFile({ mode: "clever", rules: [] }, async (path) => {
    const error = await configError(loadPermissionsFile(path, "permissions", CONFIG));
    assert.equal(error.key, "mode");
  });
});

Deno.test("loadPermissionsFile says did you mean when a rule's decision key is misspelled", async () => {
  await withPermissionsFile(
    { rules: [{ tools: ["fs.read_file"], decison: "allow" }] },
    async (path) => {
      const error = await configError(loadPermissionsFile(path, "permissions", CONFIG));
      assert.match(
        error.message,
        /key "rules\[0\]\.decision" is required: "rules\[0\]\.decison" is not a known key, did you mean "decision"$/,
      );
    },
  );
  // Near miss: a key nothing like it gets no guess.
  await withPermissionsFile(
    { rules: [{ tools: ["fs.read_file"], verdict: "allow" }] },
    async (path) => {
      const error = await configError(loadPermissionsFile(path, "permissions", CONFIG));
      assert.doesNotMatch(error.message, /did you mean/);
      assert.match(error.message, /"rules\[0\]\.decision" is required/);
    },
  );
});
