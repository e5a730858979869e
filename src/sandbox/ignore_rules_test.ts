import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { IgnoreRules, readIgnoreFile } from "./ignore_rules.ts";

const fake = (files: Record<string, string>) => (path: string) => files[path] ?? null;

Deno.test("IgnoreRules: folder-only patterns, nested files, negation and the .ignore file", () => {
  const rules = new IgnoreRules(
    "/w",
    fake({
      "/w/.gitignore": "node_modules/\n*.log\nbuild\n",
      "/w/.ignore": "!keep.log\n",
      "/w/pkg/.gitignore": "!debug.log\n/local.txt\n",
    }),
  );
  assert.equal(rules.ignores("/w/node_modules", true), true);
  assert.equal(rules.ignores("/w/pkg/node_modules", true), true);
  // "node_modules/" names folders only: a file of that name is kept (near miss).
  assert.equal(rules.ignores("/w/node_modules", false), false);
  assert.equal(rules.ignores("/w/a.log", false), true);
  assert.equal(rules.ignores("/w/keep.log", false), false, ".ignore re-includes");
  assert.equal(rules.ignores("/w/pkg/debug.log", false), false, "a deeper file re-includes");
  assert.equal(rules.ignores("/w/pkg/other.log", false), true);
  // Anchored to its own folder.
  assert.equal(rules.ignores("/w/pkg/local.txt", false), true);
  assert.equal(rules.ignores("/w/pkg/sub/local.txt", false), false);
  assert.equal(rules.ignores("/w/src/main.ts", false), false);
  // Outside the root: never ignored.
  assert.equal(rules.ignores("/elsewhere/a.log", false), false);
});

Deno.test("readIgnoreFile reads a regular file with one link only: a symlinked or hard-linked .gitignore is not read", async () => {
  const folder = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(nodePath.join(folder, "target"), "*.ts\n");
    await Deno.symlink(nodePath.join(folder, "target"), nodePath.join(folder, ".gitignore"));
    assert.equal(readIgnoreFile(nodePath.join(folder, ".gitignore")), null);
    assert.equal(readIgnoreFile(nodePath.join(folder, "target")), "*.ts\n");
    // A hard link to a file elsewhere is not read either (near miss: the file alone is).
    await Deno.mkdir(nodePath.join(folder, "sub"));
    await Deno.link(nodePath.join(folder, "target"), nodePath.join(folder, "sub", ".gitignore"));
    assert.equal(readIgnoreFile(nodePath.join(folder, "sub", ".gitignore")), null);
    assert.equal(readIgnoreFile(nodePath.join(folder, "missing")), null);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
