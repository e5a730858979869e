import assert from "node:assert/strict";
import picomatch from "picomatch";
import * as nodePath from "node:path";
import { PathGuard } from "./path_guard.ts";
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

Deno.test("PathGuard.sensitiveMatch takes each path's name once and matches as every pattern alone", async () => {
  const home = "/home/user";
  const patterns = [...DEFAULT_SENSITIVE_PATTERNS, "id_*"];
  const workspace = await Deno.realPath(await Deno.makeTempDir());
  const guard = await PathGuard.create({ workspace, home, sensitivePatterns: patterns });
  const matchers = patterns.map((pattern) => sensitiveMatcher(pattern, home));
  const cases: [string, string | null][] = [
    // Attacks: sensitive names and folders, a trailing slash, deep paths.
    ["/w/.env", ".env"],
    ["/w/app/.env.production", ".env.*"],
    ["/w/certs/server.pem", "*.pem"],
    ["/w/keys/id_ed25519", "id_*"],
    ["/w/app/.env/", ".env"],
    [`${home}/.ssh/config`, "~/.ssh"],
    [`${home}/.aws`, "~/.aws"],
    // Near misses: similar names that are not sensitive.
    ["/w/server.pem.txt", null],
    ["/w/env", null],
    ["/w/.environment", null],
    ["/w/docs/ssh/config", null],
    ["/w/my_id_rsa", null],
  ];
  for (const [written, expected] of cases) {
    const path = written.startsWith("/w/") ? `${workspace}${written.slice(2)}` : written;
    const alone = matchers.find((matcher) => matcher.test(path))?.pattern ?? null;
    assert.equal(guard.sensitiveMatch(path), expected, path);
    assert.equal(alone, expected, path);
  }
  await Deno.remove(workspace);
});
