import assert from "node:assert/strict";
import {
  GIT_SAFE_CONFIG,
  gitSafeEnvironment,
  unsafeGitConfigKeys,
  withSafeDiffOptions,
} from "./git_safe_mode.ts";

Deno.test("withSafeDiffOptions adds --no-ext-diff --no-textconv after diff-family subcommands only", () => {
  assert.deepEqual(withSafeDiffOptions(["git", "diff", "--stat"]), [
    "git",
    "diff",
    "--no-ext-diff",
    "--no-textconv",
    "--stat",
  ]);
  assert.deepEqual(withSafeDiffOptions(["git", "--no-pager", "log", "-p"]), [
    "git",
    "--no-pager",
    "log",
    "--no-ext-diff",
    "--no-textconv",
    "-p",
  ]);
  assert.deepEqual(withSafeDiffOptions(["git", "status"]), ["git", "status"]);
  assert.deepEqual(withSafeDiffOptions(["git", "commit", "-m", "diff"]), [
    "git",
    "commit",
    "-m",
    "diff",
  ]);
});

Deno.test("unsafeGitConfigKeys finds every key that names a program, and only those", () => {
  const listing = [
    "core.bare\nfalse",
    "core.fsmonitor\n.git/fsmon.sh",
    "filter.lfs.clean\ngit-lfs clean -- %f",
    "remote.origin.url\nhttps://example.com/r.git",
    "remote.origin.uploadpack\ntouch /tmp/x",
    "alias.st\nstatus",
    "alias.pwn\n!touch /tmp/x",
    "diff.pdf.textconv\npdftotext",
    "user.name\nA",
    "include.path\n../other.cfg",
  ].join("\0") + "\0";
  assert.deepEqual(unsafeGitConfigKeys(listing), [
    "alias.pwn",
    "core.fsmonitor",
    "diff.pdf.textconv",
    "filter.lfs.clean",
    "include.path",
    "remote.origin.uploadpack",
  ]);
  assert.deepEqual(unsafeGitConfigKeys("core.bare\nfalse\0user.email\na@b\0"), []);
});

Deno.test("gitSafeEnvironment forces every safe key and drops global and system config", () => {
  const env = gitSafeEnvironment();
  assert.equal(env.GIT_CONFIG_COUNT, String(GIT_SAFE_CONFIG.length));
  assert.equal(env.GIT_CONFIG_GLOBAL, "/dev/null");
  assert.equal(env.GIT_CONFIG_NOSYSTEM, "1");
  assert.equal(env.GIT_EDITOR, "false");
  GIT_SAFE_CONFIG.forEach(([key, value], index) => {
    assert.equal(env[`GIT_CONFIG_KEY_${index}`], key);
    assert.equal(env[`GIT_CONFIG_VALUE_${index}`], value);
  });
});
