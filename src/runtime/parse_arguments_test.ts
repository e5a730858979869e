import assert from "node:assert/strict";
import { z } from "zod";
import { type RegisteredTool, ToolRegistry } from "../tools/registry.ts";
import { defineTool } from "../tools/tool_definition.ts";
import { MAX_ARGUMENT_DEPTH } from "../config/defaults.ts";
import { nestingDepth, parseArguments } from "./parse_arguments.ts";

const registry = new ToolRegistry();
registry.register(defineTool({
  name: "demo.read",
  description: "test",
  parameters: z.strictObject({
    path: z.string(),
    max_lines: z.number().int().min(1).max(1000).optional(),
    mode: z.enum(["a", "b"]).optional(),
    nested: z.array(z.array(z.array(z.array(z.array(z.number()))))).optional(),
  }),
  permission: "readonly",
  tags: [],
  handler: () => "",
}));
const tool = registry.get("demo.read")!;
/** A tool whose schema takes any value (the schema subset has none: only this test needs one). */
const anyTool = {
  definition: { name: "demo.any" },
  validate: Object.assign(() => true, { errors: null }),
} as unknown as RegisteredTool;

/** `{"value": [[…[1e309]…]]}` with `levels` levels of nesting in all. */
function nested(levels: number, leaf = "1"): string {
  const arrays = levels - 1;
  return `{"value":${"[".repeat(arrays)}${leaf}${"]".repeat(arrays)}}`;
}
const limits = { maxBytes: 1024, maxDepth: 4 };

function errorOf(text: string): string {
  const parsed = parseArguments(tool, text, limits);
  assert.ok("failure" in parsed, `expected a failure for ${text}`);
  assert.equal(parsed.failure.error?.type, "invalid_arguments");
  return parsed.failure.error?.message ?? "";
}

Deno.test("parseArguments accepts valid arguments and an empty text as {}", () => {
  assert.deepEqual(parseArguments(tool, '{"path":"a","max_lines":3}', limits), {
    arguments: { path: "a", max_lines: 3 },
  });
  assert.match(errorOf(""), /"path" is required/);
});

Deno.test("parseArguments refuses oversized and over-deep arguments before parsing", () => {
  assert.match(errorOf(JSON.stringify({ path: "x".repeat(2000) })), /more than the limit of 1024/);
  assert.match(errorOf('{"path":"a","nested":[[[[[1]]]]]}'), /nested 6 levels deep/);
  // Brackets inside strings do not count.
  const inString = parseArguments(tool, JSON.stringify({ path: "[[[[[[[[{{{{" }), limits);
  assert.ok("arguments" in inString);
});

Deno.test("parseArguments refuses what is not a JSON object", () => {
  assert.match(errorOf("{not json"), /not valid JSON/);
  assert.match(errorOf("[1]"), /must be a JSON object/);
  assert.match(errorOf("null"), /must be a JSON object/);
  assert.match(errorOf('"x"'), /must be a JSON object/);
});

Deno.test("parseArguments never coerces types", () => {
  assert.match(errorOf('{"path":["a","/etc/passwd"]}'), /"path" must be string/);
  assert.match(errorOf('{"path":{"toString":"/etc/passwd"}}'), /"path" must be string/);
  assert.match(errorOf('{"path":"a","max_lines":"3"}'), /"max_lines" must be integer/);
  assert.match(errorOf('{"path":"a","max_lines":-1}'), /"max_lines" must be >= 1/);
  assert.match(errorOf('{"path":"a","max_lines":1e309}'), /"max_lines" must be a finite number/);
  assert.match(errorOf('{"path":"a","mode":"c"}'), /"mode" must be one of "a", "b"/);
});

Deno.test("parseArguments refuses unknown and prototype keys and leaves Object.prototype alone", () => {
  assert.match(errorOf('{"path":"a","approved":true}'), /"approved" is not a known argument/);
  assert.match(
    errorOf('{"path":"a","__proto__":{"approved":true}}'),
    /"__proto__" is not a known argument/,
  );
  assert.match(
    errorOf('{"path":"a","constructor":{"prototype":{"x":1}}}'),
    /"constructor" is not a known argument/,
  );
  assert.equal(({} as Record<string, unknown>).approved, undefined);
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

Deno.test("nestingDepth counts brackets outside strings, with escapes", () => {
  assert.equal(nestingDepth("{}"), 1);
  assert.equal(nestingDepth('{"a":[{"b":1}]}'), 3);
  assert.equal(nestingDepth('{"a":"\\"[[["}'), 1);
});

Deno.test("parseArguments refuses input deeper than a limit raised past the maximum, without a stack overflow", () => {
  // A caller (or a config that slipped past its schema) asking for far more than the maximum gets
  // the maximum: the deep input is invalid_arguments, never a RangeError.
  const limits = { maxBytes: 16 * 1024 * 1024, maxDepth: 1_000_000 };
  for (const levels of [MAX_ARGUMENT_DEPTH + 1, 100_000]) {
    const parsed = parseArguments(anyTool, nested(levels), limits);
    assert.ok("failure" in parsed, `depth ${levels} was accepted`);
    assert.equal(parsed.failure.error?.type, "invalid_arguments");
    assert.match(
      parsed.failure.error?.message ?? "",
      new RegExp(`nested ${levels} levels deep, more than the limit of ${MAX_ARGUMENT_DEPTH}`),
    );
  }
});

Deno.test("parseArguments walks input at the maximum depth without recursion (near miss: it passes)", () => {
  const limits = { maxBytes: 1_048_576, maxDepth: MAX_ARGUMENT_DEPTH };
  const parsed = parseArguments(anyTool, nested(MAX_ARGUMENT_DEPTH), limits);
  assert.ok("arguments" in parsed, JSON.stringify(parsed));
  // The walk for non-finite numbers reaches the deepest leaf and names it.
  const infinite = parseArguments(anyTool, nested(MAX_ARGUMENT_DEPTH, "1e309"), limits);
  assert.ok("failure" in infinite);
  assert.match(
    infinite.failure.error?.message ?? "",
    /argument "value(\.0)+" must be a finite number/,
  );
});
