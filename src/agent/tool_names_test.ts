import assert from "node:assert/strict";
import { mangleToolName, PROVIDER_NAME_PATTERN, ToolNameMap } from "./tool_names.ts";

Deno.test("ToolNameMap round trips dotted names through double underscores", () => {
  const names = new ToolNameMap(["fs.read_file", "fs.list_files", "shell.exec", "plain"]);
  assert.equal(names.toProvider("fs.read_file"), "fs__read_file");
  assert.equal(names.toProvider("plain"), "plain");
  for (const canonical of ["fs.read_file", "fs.list_files", "shell.exec", "plain"]) {
    const provider = names.toProvider(canonical);
    assert.match(provider, PROVIDER_NAME_PATTERN);
    assert.equal(names.toCanonical(provider), canonical);
  }
  assert.equal(names.size, 4);
});

Deno.test("ToolNameMap shortens long names to 55 characters plus a hash", () => {
  const long = `mcp.${"server".repeat(6)}.${"very_long_tool_name".repeat(3)}`;
  const other = `mcp.${"server".repeat(6)}.${"very_long_tool_name".repeat(3)}2`;
  const names = new ToolNameMap([long, other]);
  const provider = names.toProvider(long);
  assert.equal(provider.length, 64);
  assert.match(provider, /^[a-zA-Z0-9_-]{55}_[0-9a-f]{8}$/);
  assert.equal(provider.slice(0, 55), long.replaceAll(".", "__").slice(0, 55));
  assert.notEqual(provider, names.toProvider(other));
  assert.equal(names.toCanonical(provider), long);
  assert.equal(names.toCanonical(names.toProvider(other)), other);
  assert.equal(new ToolNameMap([other, long]).toProvider(long), provider);
});

Deno.test("ToolNameMap gives both colliding names the hashed form whatever the order", () => {
  assert.equal(mangleToolName("a.b__c"), mangleToolName("a__b.c"));
  const names = new ToolNameMap(["a.b__c", "a__b.c", "x.y"]);
  const first = names.toProvider("a.b__c");
  const second = names.toProvider("a__b.c");
  assert.notEqual(first, second);
  assert.match(first, /^a__b__c_[0-9a-f]{8}$/);
  assert.match(second, /^a__b__c_[0-9a-f]{8}$/);
  assert.equal(names.toCanonical(first), "a.b__c");
  assert.equal(names.toCanonical(second), "a__b.c");
  assert.equal(names.toProvider("x.y"), "x__y");
  const reversed = new ToolNameMap(["x.y", "a__b.c", "a.b__c"]);
  assert.equal(reversed.toProvider("a.b__c"), first);
  assert.equal(reversed.toProvider("a__b.c"), second);
});

Deno.test("ToolNameMap throws a TypeError naming both tools when a hashed name is taken", () => {
  const hashed = new ToolNameMap(["a.b__c", "a__b.c"]).toProvider("a.b__c");
  // A tool whose plain name equals another's hashed form.
  assert.throws(
    () => new ToolNameMap(["a.b__c", "a__b.c", hashed]),
    (error: unknown) =>
      error instanceof TypeError && error.message.includes('"a.b__c"') &&
      error.message.includes(`"${hashed}"`) && error.message.startsWith("Cannot map tool names"),
  );
});

Deno.test("ToolNameMap answers null for unknown provider names", () => {
  const names = new ToolNameMap(["fs.read_file"]);
  assert.equal(names.toCanonical("fs__write_file"), null);
  assert.equal(names.toCanonical("fs.read_file"), null);
  assert.equal(names.toCanonical(""), null);
  assert.equal(names.toProvider("not.in_set"), "not__in_set");
});

Deno.test("mangleToolName hashes names with characters providers reject", () => {
  const mangled = mangleToolName("mcp.git/hub:search");
  assert.match(mangled, PROVIDER_NAME_PATTERN);
  assert.match(mangled, /^mcp__git_hub_search_[0-9a-f]{8}$/);
});
