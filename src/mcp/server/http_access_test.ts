import assert from "node:assert/strict";
import { BearerToken, mcpUrl, parseLoopbackAddress, rebindingRefusal } from "./http_access.ts";

Deno.test("parseLoopbackAddress refuses every address that is not loopback, naming the fix", () => {
  for (const text of ["0.0.0.0:8931", "[::]:8931", "10.0.0.2:80", "example.com:8931", ":8931"]) {
    assert.throws(() => parseLoopbackAddress(text), (error: Error) => {
      assert.ok(error instanceof RangeError);
      assert.match(error.message, /not a loopback address.*--http 127\.0\.0\.1:8/);
      return true;
    }, text);
  }
  for (const text of ["127.0.0.1", "127.0.0.1:65536", "[::1]", "::1:8931", "localhost:port"]) {
    assert.throws(() => parseLoopbackAddress(text), /takes HOST:PORT/, text);
  }
  // Near misses: the three loopback spellings, any case, port 0 for a free one.
  assert.deepEqual(parseLoopbackAddress("127.0.0.1:8931"), { hostname: "127.0.0.1", port: 8931 });
  assert.deepEqual(parseLoopbackAddress("[::1]:0"), { hostname: "::1", port: 0 });
  assert.deepEqual(parseLoopbackAddress("LocalHost:80"), { hostname: "localhost", port: 80 });
  assert.equal(mcpUrl({ hostname: "127.0.0.1", port: 5 }), "http://127.0.0.1:5/mcp");
});

Deno.test("BearerToken matches only the exact token and refuses a short one without showing it", () => {
  const secret = "s3cret-token-0123456789";
  const token = new BearerToken(secret);
  for (
    const header of [
      null,
      "",
      "Bearer",
      `Bearer ${secret}x`,
      `Bearer ${secret.slice(0, -1)}`,
      `Basic ${secret}`,
      secret,
      `Bearer ${secret} extra`,
    ]
  ) {
    assert.equal(token.matches(header), false, String(header));
  }
  // Near misses: the scheme in any case, spaces around the token.
  assert.equal(token.matches(`Bearer ${secret}`), true);
  assert.equal(token.matches(`bearer  ${secret} `), true);
  assert.throws(() => new BearerToken("short-token"), (error: Error) => {
    assert.ok(error instanceof RangeError);
    assert.equal(error.message.includes("short-token"), false);
    return true;
  });
});

Deno.test("rebindingRefusal refuses a foreign Host or Origin and lets loopback ones through", () => {
  const refused = [
    { host: "attacker.example:8931" },
    { host: "127.0.0.1.attacker.example" },
    {},
    { host: "127.0.0.1:8931", origin: "https://attacker.example" },
    { host: "127.0.0.1:8931", origin: "null" },
    { host: "127.0.0.1:8931", origin: "file://" },
    { host: "127.0.0.1:8931", origin: "http://localhost.attacker.example:8931" },
  ];
  for (const headers of refused) {
    assert.notEqual(rebindingRefusal(new Headers(headers)), null, JSON.stringify(headers));
  }
  const allowed = [
    { host: "127.0.0.1:8931" },
    { host: "localhost" },
    { host: "[::1]:8931", origin: "http://[::1]:8931" },
    { host: "127.0.0.1:8931", origin: "http://localhost:6274" },
  ];
  for (const headers of allowed) {
    assert.equal(rebindingRefusal(new Headers(headers)), null, JSON.stringify(headers));
  }
});
