import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { FolderChain, isChainProblem } from "./_folder_chain.ts";

/** `root/a/b` with a file in `b`; `root` is the anchor. */
async function tree(): Promise<{ root: string; a: string; b: string } & AsyncDisposable> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent-chain-" }));
  const a = nodePath.join(root, "a");
  const b = nodePath.join(a, "b");
  await Deno.mkdir(b, { recursive: true });
  await Deno.writeTextFile(nodePath.join(b, "f.txt"), "inside\n");
  return {
    root,
    a,
    b,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

async function held(anchor: string, folder: string): Promise<FolderChain> {
  const chain = await FolderChain.hold(anchor, folder);
  assert.ok(!isChainProblem(chain), `the chain did not hold: ${JSON.stringify(chain)}`);
  return chain;
}

Deno.test("FolderChain.holds is false when a folder above is swapped away and back", async () => {
  await using fixture = await tree();
  const chain = await held(fixture.root, fixture.b);
  assert.equal(chain.holds(), true);
  // A swap and a swap back: "a" is the same folder (same inode) again, but its parent changed.
  await Deno.rename(fixture.a, `${fixture.a}.away`);
  await Deno.symlink("/tmp", fixture.a);
  await Deno.remove(fixture.a);
  await Deno.rename(`${fixture.a}.away`, fixture.a);
  assert.equal(chain.holds(), false);
});

Deno.test("FolderChain.holds is false when the target folder is replaced by a symlink", async () => {
  await using fixture = await tree();
  const chain = await held(fixture.root, fixture.b);
  await Deno.rename(fixture.b, `${fixture.b}.real`);
  await Deno.symlink(`${fixture.b}.real`, fixture.b);
  assert.equal(chain.holds(), false);
});

Deno.test("FolderChain.holds stays true when files change inside the target folder (near miss)", async () => {
  await using fixture = await tree();
  const chain = await held(fixture.root, fixture.b);
  await Deno.writeTextFile(nodePath.join(fixture.b, "new.txt"), "new\n");
  await Deno.remove(nodePath.join(fixture.b, "f.txt"));
  assert.equal(chain.holds(), true);
  assert.equal(chain.entry("x.txt"), nodePath.join(fixture.b, "x.txt"));
});

Deno.test("FolderChain.hold holds folders that changed this second once the second is over", async () => {
  await using fixture = await tree();
  // The tree was just made: "root" and "a" changed within the current second, so the hold waits.
  const chain = await held(fixture.root, fixture.b);
  assert.equal(chain.folder, fixture.b);
  assert.equal(chain.holds(), true);
});

Deno.test("FolderChain.hold refuses a folder above that keeps changing", async () => {
  await using fixture = await tree();
  let running = true;
  const churn = (async () => {
    for (let index = 0; running; index += 1) {
      const path = nodePath.join(fixture.a, `churn-${index % 2}`);
      await Deno.writeTextFile(path, "x");
      await Deno.remove(path);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  })();
  try {
    const chain = await FolderChain.hold(fixture.root, fixture.b);
    assert.ok(isChainProblem(chain) && chain.problem === "busy", JSON.stringify(chain));
  } finally {
    running = false;
    await churn;
  }
});

Deno.test("FolderChain.hold reports a symlink on the way as changed and a missing folder by index", async () => {
  await using fixture = await tree();
  await Deno.symlink(fixture.b, nodePath.join(fixture.root, "link"));
  const linked = await FolderChain.hold(fixture.root, nodePath.join(fixture.root, "link"));
  assert.ok(isChainProblem(linked) && linked.problem === "changed", JSON.stringify(linked));
  const missing = await FolderChain.hold(fixture.root, nodePath.join(fixture.b, "c", "d"));
  assert.ok(isChainProblem(missing) && missing.problem === "missing", JSON.stringify(missing));
  assert.equal(missing.folder, nodePath.join(fixture.b, "c"));
  assert.equal(missing.index, 3);
});

Deno.test("FolderChain.child refuses a sub-folder that is not the one listed", async () => {
  await using fixture = await tree();
  const chain = await held(fixture.root, fixture.a);
  const settled = await chain.settle();
  assert.ok(!isChainProblem(settled));
  const stat = await Deno.lstat(fixture.b);
  const child = settled.child("b", { dev: stat.dev, ino: stat.ino as number });
  assert.ok(!isChainProblem(child) && child.folder === fixture.b && child.holds());
  const other = settled.child("b", { dev: stat.dev, ino: (stat.ino as number) + 1 });
  assert.ok(isChainProblem(other) && other.problem === "changed");
});

Deno.test("FolderChain.hold throws when the folder is not within the anchor", async () => {
  await using fixture = await tree();
  await assert.rejects(FolderChain.hold(fixture.b, fixture.root), TypeError);
});
