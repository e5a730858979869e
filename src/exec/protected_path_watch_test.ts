import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { ProtectedPathWatch, type ProtectedPathWatchOptions } from "./protected_path_watch.ts";
import { scanTree } from "./protected_tree.ts";

async function git(cwd: string, ...args: string[]): Promise<void> {
  const output = await new Deno.Command("git", { args, cwd, stdout: "null", stderr: "null" })
    .output();
  assert.ok(output.success, `git ${args.join(" ")}`);
}

const HAS_GIT = (() => {
  try {
    return new Deno.Command("git", { args: ["--version"], stdout: "null" }).outputSync().success;
  } catch {
    return false;
  }
})();

async function openWatch(
  root: string,
  options: Partial<ProtectedPathWatchOptions> = {},
): Promise<ProtectedPathWatch> {
  await Deno.mkdir(nodePath.join(root, "ws"), { recursive: true });
  const watch = ProtectedPathWatch.open({
    writeRoots: [nodePath.join(root, "ws")],
    readRoots: [],
    exclusions: [],
    sensitiveMatch: (path) =>
      /(^|\/)\.env$/.test(path) || path.endsWith(".key") ? "sensitive" : null,
    exempt: [],
    sentinelFolder: nodePath.join(root, "watch"),
    allowNestedRepositories: false,
    ...options,
  });
  if (!(watch instanceof ProtectedPathWatch)) throw new Error(watch.reason);
  return watch;
}

Deno.test("the watch reports a .git created in a new folder tree, found from events alone", async () => {
  const root = await Deno.makeTempDir();
  const watch = await openWatch(root);
  try {
    const ws = nodePath.join(root, "ws");
    await Deno.mkdir(nodePath.join(ws, "a", "b", "c", ".git"), { recursive: true });
    await Deno.writeTextFile(nodePath.join(ws, "a", "b", "c", ".git", "config"), "[core]\n");
    assert.deepEqual(await watch.examine(), [nodePath.join(ws, "a", "b", "c", ".git")]);
    assert.equal(watch.lastMode, "events");
    // The new folders are watched now: a .git file (a worktree link) created deeper is seen.
    await Deno.writeTextFile(nodePath.join(ws, "a", "b", ".git"), "gitdir: /elsewhere\n");
    assert.deepEqual(await watch.examine(), [nodePath.join(ws, "a", "b", ".git")]);
    assert.equal(watch.lastMode, "events");
    // Near miss: ordinary files and folders are no finding.
    await Deno.mkdir(nodePath.join(ws, "a", "git"), { recursive: true });
    await Deno.writeTextFile(nodePath.join(ws, "a", ".gitignore"), "x\n");
    assert.deepEqual(await watch.examine(), []);
  } finally {
    watch.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the watch sees a .git inside a folder replaced under the same name", async () => {
  const root = await Deno.makeTempDir();
  const ws = nodePath.join(root, "ws");
  await Deno.mkdir(nodePath.join(ws, "pkg"), { recursive: true });
  const watch = await openWatch(root);
  try {
    await Deno.remove(nodePath.join(ws, "pkg"), { recursive: true });
    await Deno.mkdir(nodePath.join(ws, "pkg", "inner", ".git"), { recursive: true });
    assert.deepEqual(await watch.examine(), [nodePath.join(ws, "pkg", "inner", ".git")]);
  } finally {
    watch.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the watch follows a watched folder renamed inside the tree", async () => {
  const root = await Deno.makeTempDir();
  const ws = nodePath.join(root, "ws");
  await Deno.mkdir(nodePath.join(ws, "old", "sub"), { recursive: true });
  const watch = await openWatch(root);
  try {
    await Deno.rename(nodePath.join(ws, "old"), nodePath.join(ws, "new"));
    assert.deepEqual(await watch.examine(), []);
    await Deno.mkdir(nodePath.join(ws, "new", "sub", ".git"));
    assert.deepEqual(await watch.examine(), [nodePath.join(ws, "new", "sub", ".git")]);
  } finally {
    watch.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the watch keeps repositories that existed at the start and exempt folders' ones", async () => {
  const root = await Deno.makeTempDir();
  const ws = nodePath.join(root, "ws");
  await Deno.mkdir(nodePath.join(ws, "vendor", "lib", ".git"), { recursive: true });
  await Deno.mkdir(nodePath.join(ws, "scratch"), { recursive: true });
  const watch = await openWatch(root, { exempt: [nodePath.join(ws, "scratch")] });
  try {
    await Deno.writeTextFile(nodePath.join(ws, "vendor", "lib", ".git", "HEAD"), "ref\n");
    await Deno.mkdir(nodePath.join(ws, "scratch", "clone", ".git"), { recursive: true });
    assert.deepEqual(await watch.examine(), []);
    assert.equal(watch.facts.repositories.get(nodePath.join(ws, "vendor", "lib", ".git")), true);
  } finally {
    watch.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("allowNestedRepositories keeps a new .git below the top, never at the top", async () => {
  const root = await Deno.makeTempDir();
  const ws = nodePath.join(root, "ws");
  const watch = await openWatch(root, { allowNestedRepositories: true });
  try {
    await Deno.mkdir(nodePath.join(ws, "clone", ".git"), { recursive: true });
    await Deno.mkdir(nodePath.join(ws, ".git"), { recursive: true });
    assert.deepEqual(await watch.examine(), [nodePath.join(ws, ".git")]);
  } finally {
    watch.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the watch falls back to a full scan when its sentinel does not come back", async () => {
  const root = await Deno.makeTempDir();
  const ws = nodePath.join(root, "ws");
  const watch = await openWatch(root);
  try {
    // The sentinel folder gone: no sentinel can be written, so the events cannot be trusted.
    await Deno.remove(nodePath.join(root, "watch"), { recursive: true });
    await Deno.mkdir(nodePath.join(ws, "x", ".git"), { recursive: true });
    assert.deepEqual(await watch.examine(), [nodePath.join(ws, "x", ".git")]);
    assert.equal(watch.lastMode, "full-scan");
  } finally {
    watch.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the watch masks a sensitive file created after the start", async () => {
  const root = await Deno.makeTempDir();
  const ws = nodePath.join(root, "ws");
  const watch = await openWatch(root);
  try {
    await Deno.mkdir(nodePath.join(ws, "deploy"));
    await Deno.writeTextFile(nodePath.join(ws, "deploy", ".env"), "TOKEN=x\n");
    await Deno.writeTextFile(nodePath.join(ws, "server.key"), "key\n");
    assert.deepEqual(await watch.examine(), []);
    assert.equal(watch.facts.masked.get(nodePath.join(ws, "deploy", ".env")), "file");
    assert.equal(watch.facts.masked.get(nodePath.join(ws, "server.key")), "file");
  } finally {
    watch.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name: "a scan leaves tracked sensitive files visible and masks untracked ones and hard links",
  ignore: !HAS_GIT,
  fn: async () => {
    const root = await Deno.makeTempDir();
    try {
      const ws = nodePath.join(root, "ws");
      await Deno.mkdir(nodePath.join(ws, "certs"), { recursive: true });
      await git(ws, "init", "-q");
      await Deno.writeTextFile(nodePath.join(ws, "certs", "test.key"), "tracked\n");
      await Deno.writeTextFile(nodePath.join(ws, ".env"), "TOKEN=secret\n");
      await git(ws, "add", "certs/test.key");
      await Deno.link(nodePath.join(ws, ".env"), nodePath.join(ws, "innocent.txt"));
      const scan = scanTree({
        writeRoots: [ws],
        readRoots: [],
        exclusions: [],
        sensitiveMatch: (path) =>
          /(^|\/)\.env$/.test(path) || path.endsWith(".key") ? "sensitive" : null,
      });
      assert.ok(scan.ok);
      assert.deepEqual([...scan.facts.tracked], [nodePath.join(ws, "certs", "test.key")]);
      assert.deepEqual([...scan.facts.masked.keys()].sort(), [
        nodePath.join(ws, ".env"),
        nodePath.join(ws, "innocent.txt"),
      ]);
      assert.equal(scan.facts.repositories.get(nodePath.join(ws, ".git")), true);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("the watch finds a .git made amid a burst of 30,000 changes (overflow or not)", async () => {
  const root = await Deno.makeTempDir();
  const ws = nodePath.join(root, "ws");
  await Deno.mkdir(nodePath.join(ws, "busy"), { recursive: true });
  await Deno.mkdir(nodePath.join(ws, "quiet"), { recursive: true });
  const watch = await openWatch(root);
  try {
    // More events than inotify's default queue (16,384) holds, if the reader falls behind.
    for (let index = 0; index < 15_000; index++) {
      Deno.writeFileSync(nodePath.join(ws, "busy", `f${index}`), new Uint8Array());
    }
    Deno.mkdirSync(nodePath.join(ws, "quiet", ".git"));
    for (let index = 0; index < 15_000; index++) {
      Deno.removeSync(nodePath.join(ws, "busy", `f${index}`));
    }
    assert.deepEqual(await watch.examine(), [nodePath.join(ws, "quiet", ".git")]);
    // Near miss: the next examination, with nothing new, finds nothing.
    assert.deepEqual(await watch.examine(), []);
  } finally {
    watch.close();
    await Deno.remove(root, { recursive: true });
  }
});
