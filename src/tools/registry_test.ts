import assert from "node:assert/strict";
import { z } from "zod";
import { ToolRegistrationError, ToolRegistry } from "./registry.ts";
import { defineTool, type ToolDefinition } from "./tool_definition.ts";
import { REFUSED_KEYWORDS } from "./schema_subset.ts";

function rawTool(name: string, input_schema: Record<string, unknown>): ToolDefinition {
  return {
    name,
    description: "test",
    input_schema,
    permission: "readonly",
    tags: [],
    annotations: {
      read_only: true,
      destructive: false,
      idempotent: true,
      open_world: false,
      risk_level: 0,
      category: "test",
      requires_confirmation: false,
    },
    handler: () => "ok",
  };
}

const echo = defineTool({
  name: "demo.echo",
  description: "Echoes",
  parameters: z.strictObject({ text: z.string(), count: z.number().int().min(1).optional() }),
  permission: "readonly",
  tags: ["demo"],
  handler: (args) => args.text,
});

Deno.test("registry refuses a duplicate name instead of overwriting it", () => {
  const registry = new ToolRegistry();
  registry.register(echo);
  assert.throws(() => registry.register(echo), (error: unknown) => {
    assert.ok(error instanceof ToolRegistrationError);
    assert.equal(error.code, "duplicate_name");
    assert.match(
      error.message,
      /Cannot register tool "demo\.echo": a tool with this name is already registered/,
    );
    return true;
  });
  assert.equal(registry.list().length, 1);
  assert.equal(registry.get("demo.echo")?.definition.description, "Echoes");
});

Deno.test("registry refuses names that are not canonical dotted names", () => {
  const registry = new ToolRegistry();
  for (
    const name of [
      "read_file",
      "FS.read",
      "fs.",
      ".x",
      "fs read",
      "fs/read",
      "a".repeat(130) + ".b",
    ]
  ) {
    assert.throws(
      () => registry.register(rawTool(name, { type: "object", properties: {} })),
      /invalid_name|names are dotted/,
    );
  }
  registry.register(rawTool("mcp.github.list_issues", { type: "object", properties: {} }));
  assert.ok(registry.get("mcp.github.list_issues"));
});

Deno.test("registry refuses each keyword outside the supported schema subset with a clear error", () => {
  const registry = new ToolRegistry();
  for (const keyword of REFUSED_KEYWORDS) {
    const schema = { type: "object", properties: { a: { type: "string", [keyword]: [] } } };
    assert.throws(
      () => registry.register(rawTool(`t.${keyword.replace(/\W/g, "").toLowerCase()}`, schema)),
      (error: unknown) =>
        error instanceof ToolRegistrationError && error.code === "unsupported_schema" &&
        error.message.includes(`"${keyword}" is not supported`),
      keyword,
    );
  }
  assert.throws(
    () => registry.register(rawTool("t.top", { type: "string" })),
    /top level must be "type": "object"/,
  );
  assert.throws(
    () =>
      registry.register(
        rawTool("t.null", { type: "object", properties: { a: { type: ["object", "array"] } } }),
      ),
    /"type" must be one of/,
  );
  // Near miss: a nullable type list is in the subset (schema_subset_test.ts has the rest).
  registry.register(
    rawTool("t.nullable", { type: "object", properties: { a: { type: ["string", "null"] } } }),
  );
  assert.throws(
    () => registry.register(rawTool("t.open", { type: "object", additionalProperties: true })),
    /"additionalProperties" must be false/,
  );
  assert.throws(
    () =>
      registry.register(
        rawTool("t.items", { type: "object", properties: { a: { type: "array" } } }),
      ),
    /arrays must declare "items"/,
  );
});

Deno.test("registry accepts nested objects, arrays, enums and closes every object", () => {
  const registry = new ToolRegistry();
  registry.register(rawTool("t.nested", {
    type: "object",
    properties: {
      edits: {
        type: "array",
        items: { type: "object", properties: { old: { type: "string" } }, required: ["old"] },
      },
      mode: { type: "string", enum: ["a", "b"], description: "mode" },
    },
    required: ["edits"],
  }));
  const tool = registry.get("t.nested");
  assert.ok(tool);
  assert.equal(tool.validate({ edits: [{ old: "x" }], mode: "a" }), true);
  assert.equal(
    tool.validate({ edits: [{ old: "x", extra: 1 }] }),
    false,
    "nested unknown keys are refused",
  );
  assert.equal(
    tool.validate({ edits: [], surprise: true }),
    false,
    "top-level unknown keys are refused",
  );
});

Deno.test("zod-defined tools validate without coercion", () => {
  const registry = new ToolRegistry();
  registry.register(echo);
  const tool = registry.get("demo.echo");
  assert.ok(tool);
  assert.equal(tool.validate({ text: "hi", count: 2 }), true);
  assert.equal(tool.validate({ text: 5 }), false);
  assert.equal(tool.validate({ text: "hi", count: "2" }), false);
  assert.equal(tool.validate({ text: "hi", count: 1.5 }), false);
  assert.equal(tool.validate({ text: ["hi"] }), false);
});

Deno.test("registry refuses a readonly tool marked destructive and a risk level out of range", () => {
  const registry = new ToolRegistry();
  const destructive = rawTool("t.bad", { type: "object" });
  destructive.annotations = { ...destructive.annotations, destructive: true };
  assert.throws(
    () => registry.register(destructive),
    /readonly tool must be read_only and not destructive/,
  );
  const risky = rawTool("t.risk", { type: "object" });
  risky.annotations = { ...risky.annotations, risk_level: 5 as 4 };
  assert.throws(() => registry.register(risky), /risk_level must be an integer from 0 to 4/);
});

Deno.test("registry compiles on first use to the same validator as at registration", () => {
  const now = new ToolRegistry();
  const later = new ToolRegistry();
  now.register(echo);
  later.register(echo, { compile: "on_first_use" });
  const eager = now.get("demo.echo");
  const lazy = later.get("demo.echo");
  assert.ok(eager && lazy);
  assert.deepEqual(lazy.definition.input_schema, eager.definition.input_schema);
  assert.equal(lazy.validate, lazy.validate, "one validator, compiled once");
  for (const value of [{ text: "hi", count: 2 }, { text: 5 }, { text: "hi", count: "2" }, {}]) {
    assert.equal(lazy.validate(value), eager.validate(value), JSON.stringify(value));
    assert.deepEqual(lazy.validate.errors ?? null, eager.validate.errors ?? null);
  }
});

Deno.test("registry refuses a schema outside the subset at its first read when it compiles on first use", () => {
  const registry = new ToolRegistry();
  registry.register(rawTool("t.open", { type: "object", additionalProperties: true }), {
    compile: "on_first_use",
  });
  const open = registry.get("t.open");
  assert.ok(open);
  assert.throws(() => open.definition.input_schema, /"additionalProperties" must be false/);
  assert.throws(() => open.validate({}), /"additionalProperties" must be false/);
  // Near miss: the same tool within the subset reads and validates.
  registry.register(rawTool("t.closed", { type: "object", additionalProperties: false }), {
    compile: "on_first_use",
  });
  assert.equal(registry.get("t.closed")?.validate({}), true);
});
