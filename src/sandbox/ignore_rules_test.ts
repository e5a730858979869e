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

Deno.test("IgnoreRules reads the root repository's .git/info/exclude before its rule files; a deeper folder's is not read", () => {
  const rules = new IgnoreRules(
    "/w",
    fake({
      "/w/.git/info/exclude": "scratch/\n*.tmp\n",
      "/w/.gitignore": "!keep.tmp\n",
      "/w/pkg/.git/info/exclude": "*.ts\n",
    }),
  );
  assert.equal(rules.ignores("/w/scratch", true), true);
  assert.equal(rules.ignores("/w/a.tmp", false), true);
  // The repository's .gitignore comes after the local excludes: its rule wins (near miss).
  assert.equal(rules.ignores("/w/keep.tmp", false), false);
  // Only the root's repository: a nested folder's .git/info/exclude is not a rule file.
  assert.equal(rules.ignores("/w/pkg/main.ts", false), false);
});

Deno.test("readIgnoreFile does not read through a symlinked folder: a .git that links elsewhere gives no excludes", async () => {
  const folder = await Deno.makeTempDir();
  try {
    const elsewhere = nodePath.join(folder, "elsewhere");
    await Deno.mkdir(nodePath.join(elsewhere, "info"), { recursive: true });
    await Deno.writeTextFile(nodePath.join(elsewhere, "info", "exclude"), "secret-*\n");
    const workspace = nodePath.join(folder, "workspace");
    await Deno.mkdir(workspace);
    await Deno.symlink(elsewhere, nodePath.join(workspace, ".git"));
    assert.equal(readIgnoreFile(nodePath.join(workspace, ".git", "info", "exclude")), null);
    // Near miss: a real .git folder's excludes are read.
    await Deno.remove(nodePath.join(workspace, ".git"));
    await Deno.mkdir(nodePath.join(workspace, ".git", "info"), { recursive: true });
    await Deno.writeTextFile(nodePath.join(workspace, ".git", "info", "exclude"), "scratch/\n");
    assert.equal(readIgnoreFile(nodePath.join(workspace, ".git", "info", "exclude")), "scratch/\n");
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
