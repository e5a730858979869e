import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import {
  AgentConfigSchema,
  AnthropicModelConfigSchema,
  ConfigFileSchema,
  HookConfigSchema,
  LimitsConfigSchema,
  MemoryConfigSchema,
  OpenAiModelConfigSchema,
  SandboxConfigSchema,
  ToolsConfigSchema,
} from "./config_schema.ts";
import {
  DEFAULT_HOOK,
  DEFAULT_LIMITS,
  DEFAULT_MAX_PARALLEL_TOOLS,
  DEFAULT_MAX_TURNS,
  DEFAULT_MEMORY,
  DEFAULT_MODEL,
  DEFAULT_SANDBOX,
  DEFAULT_TOOLS,
} from "./defaults.ts";
import { loadConfig } from "./load_config.ts";

/** The description zod keeps for `key` of an object schema (`""` when none). */
function describe(schema: z.ZodObject, key: string): string {
  const field = schema.shape[key] as z.ZodType | undefined;
  assert.ok(field !== undefined, `the schema has no key "${key}"`);
  return field.description ?? "";
}

/** Asserts that each `key`'s description in `schema` ends its default as `defaults[key]` says. */
function assertDescribed(
  schema: z.ZodObject,
  defaults: Readonly<Record<string, unknown>>,
  keys: readonly string[],
): void {
  for (const key of keys) {
    const value = defaults[key];
    const written = typeof value === "string" ? `"${value}"` : JSON.stringify(value);
    const description = describe(schema, key);
    assert.ok(
      description.includes(`Default: ${written}`),
      `the description of "${key}" should say "Default: ${written}": ${description}`,
    );
  }
}

Deno.test("config schema descriptions state the defaults that defaults.ts holds", () => {
  assertDescribed(SandboxConfigSchema, DEFAULT_SANDBOX, [
    "command_isolation",
    "command_network",
    "hide_sensitive_in_listings",
  ]);
  assertDescribed(ToolsConfigSchema, DEFAULT_TOOLS, [
    "default_timeout_ms",
    "max_timeout_ms",
    "stdout_limit_bytes",
    "stderr_limit_bytes",
    "git_safe_mode",
    "max_processes",
  ]);
  assertDescribed(LimitsConfigSchema, DEFAULT_LIMITS, Object.keys(DEFAULT_LIMITS));
  assertDescribed(MemoryConfigSchema, DEFAULT_MEMORY, ["write_mode"]);
  assertDescribed(AgentConfigSchema, {
    max_turns: DEFAULT_MAX_TURNS,
    max_parallel_tools: DEFAULT_MAX_PARALLEL_TOOLS,
  }, ["max_turns", "max_parallel_tools"]);
  assertDescribed(HookConfigSchema, DEFAULT_HOOK, ["timeout_ms"]);
  assertDescribed(AnthropicModelConfigSchema, {
    max_tokens: DEFAULT_MODEL.anthropic_max_tokens,
    timeout_ms: DEFAULT_MODEL.timeout_ms,
    retries: DEFAULT_MODEL.retries,
    base_url: DEFAULT_MODEL.base_urls.anthropic,
  }, ["max_tokens", "timeout_ms", "retries", "base_url"]);
  assertDescribed(OpenAiModelConfigSchema, {
    timeout_ms: DEFAULT_MODEL.timeout_ms,
    retries: DEFAULT_MODEL.retries,
  }, ["timeout_ms", "retries"]);
});

Deno.test("loadConfig returns every section of the schema when the file sets none", async () => {
  const fixture = join(
    dirname(fileURLToPath(import.meta.url)),
    "..",
    "..",
    "tests",
    "testdata",
    "config",
    "minimal.jsonc",
  );
  const config = await loadConfig(fixture, {}, { home: () => "/home/tester" });
  const sections = Object.keys(ConfigFileSchema.shape).filter((key) => key !== "$schema");
  const added = ["configPath", "configDir", "permissionsPath"];
  assert.deepEqual(Object.keys(config).sort(), [...sections, ...added].sort());
  for (
    const [key, schema] of [
      ["sandbox", SandboxConfigSchema],
      ["tools", ToolsConfigSchema],
      ["memory", MemoryConfigSchema],
      ["agent", AgentConfigSchema],
      ["limits", LimitsConfigSchema],
    ] as const
  ) {
    assert.deepEqual(Object.keys(config[key]).sort(), Object.keys(schema.shape).sort(), key);
  }
});
