import assert from "node:assert/strict";
import picomatch from "picomatch";
import * as nodePath from "node:path";
import { DEFAULT_SENSITIVE_PATTERNS, sensitiveMatcher } from "./sensitive_patterns.ts";

Deno.test("sensitiveMatcher's literal precheck never changes what a pattern matches", () => {
  const patterns = [
    ...DEFAULT_SENSITIVE_PATTERNS,
    "id_*",
    "*secret*.json",
    "a?c.txt",
    "{x,y}.key", // brace: no precheck
    "/w/private/**/*.txt",
    "/w/keys/",
    "./secrets/*.txt", // picomatch drops a leading ./
    "/w//private/*.txt",
    "/w/./keys/**",
    "a|b.key",
  ];
  const paths = [
    "/w/.env",
    "/w/sub/.env.local",
    "/w/.envrc",
    "/w/server.pem",
    "/w/server.pem.txt",
    "/root/.ssh/id_rsa",
    "/root/.sshx/id_rsa",
    "/w/id_ed25519",
    "/w/my-secret-file.json",
    "/w/secret.json",
    "/w/abc.txt",
    "/w/ac.txt",
    "/w/x.key",
    "/w/z.key",
    "/w/private/a/b/notes.txt",
    "/w/private/notes.md",
    "/w/keys/k1",
    "/w/keys",
    "/w/keysafe/k1",
    "secrets/a.txt",
    "/w/secrets/a.txt",
    "/w/private/a.txt",
    "/w/keys/k2",
    "/w/a|b.key",
  ];
  for (const pattern of patterns) {
    const matcher = sensitiveMatcher(pattern, "/root");
    // The reference: picomatch alone, as before the precheck.
    const absolute = pattern.startsWith("~/") ? "/root" + pattern.slice(1) : pattern;
    const reference = pattern.includes("/")
      ? picomatch([absolute, `${absolute.replace(/\/+$/, "")}/**`], { dot: true })
      : (path: string) => picomatch(pattern, { dot: true })(nodePath.basename(path));
    for (const path of paths) {
      assert.equal(matcher.test(path), reference(path), `${pattern} on ${path}`);
    }
  }
  // Near miss and hit, so the comparison above is not vacuous.
  assert.equal(sensitiveMatcher("*.pem", null).test("/w/server.pem"), true);
  assert.equal(sensitiveMatcher("*.pem", null).test("/w/server.pem.txt"), false);
});
