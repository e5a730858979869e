import assert from "node:assert/strict";
import { hostPermission } from "./host_permission.ts";

Deno.test("hostPermission fills in the scheme's default port and keeps explicit ones", () => {
  assert.equal(hostPermission("https://api.openai.com/v1"), "api.openai.com:443");
  assert.equal(hostPermission("http://localhost/v1"), "localhost:80");
  assert.equal(hostPermission("http://127.0.0.1:11434/v1/"), "127.0.0.1:11434");
  assert.equal(hostPermission("http://[::1]:8000/v1"), "[::1]:8000");
  // Credentials and paths never reach the permission.
  assert.equal(
    hostPermission("https://user:secret@gateway.example:8443/x"),
    "gateway.example:8443",
  );
});

Deno.test("hostPermission refuses what is not an http(s) URL", () => {
  assert.throws(() => hostPermission("api.openai.com"), /is not a URL/);
  assert.throws(() => hostPermission("file:///etc/passwd"), /must be http: or https:/);
  assert.throws(() => hostPermission("ws://127.0.0.1:9"), /must be http: or https:/);
});
