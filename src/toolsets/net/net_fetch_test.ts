// net.fetch's arguments, through the registry's compiled schema and parseArguments as the runtime
// uses them: a header value with CR, LF or NUL (a second header or request smuggled in) is
// invalid_arguments before anything is sent; a value with a tab or any other text still passes.
import assert from "node:assert/strict";
import { parseArguments } from "../../runtime/parse_arguments.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import { NET_FETCH_TOOL, netFetchDefinition } from "./net_fetch.ts";

const registry = new ToolRegistry();
registry.register(netFetchDefinition(["api.example.com"]));
const tool = registry.get(NET_FETCH_TOOL)!;
const limits = { maxBytes: 65_536, maxDepth: 16 };

function withHeader(value: string) {
  return parseArguments(
    tool,
    JSON.stringify({ url: "https://api.example.com/", headers: [{ name: "X-Note", value }] }),
    limits,
  );
}

Deno.test("net.fetch refuses a header value holding CR, LF or NUL as invalid_arguments, and takes a tab or plain text", () => {
  for (
    const value of ["a\r\nX-Injected: 1", "a\nb", "a\rb", "a\u0000b", "\r\n\r\nGET / HTTP/1.1"]
  ) {
    const parsed = withHeader(value);
    assert.ok("failure" in parsed, JSON.stringify(value));
    assert.equal(parsed.failure.error?.type, "invalid_arguments");
    assert.match(parsed.failure.error?.message ?? "", /headers/);
  }
  // Near misses: a tab, non-ASCII text and a long token are header text.
  for (const value of ["a\tb", "Grüße", `Bearer ${"x".repeat(4000)}`]) {
    const parsed = withHeader(value);
    assert.ok("arguments" in parsed, JSON.stringify(parsed));
  }
});
