import assert from "node:assert/strict";
import { createTempSandbox, writeTree } from "../testing/temp_sandbox.ts";
import { PathGuard } from "./path_guard.ts";
import { TimeBudget } from "./time_budget.ts";
import { emptyWalkStats, walk, type WalkEntry } from "./walk.ts";

async function walkAll(
  workspace: string,
  budget?: TimeBudget,
): Promise<WalkEntry[]> {
  const guard = await PathGuard.create({ workspace, home: null });
  const start = await guard.check(".", "list");
  if (!start.ok) throw new Error(start.error.message);
  const entries: WalkEntry[] = [];
  const options = { guard, recursive: true, stats: emptyWalkStats() };
  for await (
    const entry of walk(start.path, budget === undefined ? options : { ...options, budget })
  ) {
    entries.push(entry);
  }
  return entries;
}

Deno.test("walk stops when its time budget runs out and the budget says so", async () => {
  await using sandbox = await createTempSandbox();
  await writeTree(sandbox.workspace, { "a/1.txt": "", "a/2.txt": "", "b/3.txt": "", "c.txt": "" });
  // A clock that moves one millisecond every time it is read: the budget runs out after 5 reads.
  let now = 0;
  const budget = TimeBudget.start(5, () => now++);
  const entries = await walkAll(sandbox.workspace, budget);
  assert.equal(budget.ranOut, true);
  assert.ok(entries.length < 6, entries.map((entry) => entry.display).join(", "));
  // Near miss: a budget that does not run out walks everything and is not marked.
  const roomy = TimeBudget.start(1_000_000, () => 0);
  const all = await walkAll(sandbox.workspace, roomy);
  assert.deepEqual(all.map((entry) => entry.display), [
    "a",
    "a/1.txt",
    "a/2.txt",
    "b",
    "b/3.txt",
    "c.txt",
  ]);
  assert.equal(roomy.ranOut, false);
  assert.equal((await walkAll(sandbox.workspace)).length, 6);
});

Deno.test("walk lists the same entries with the streaming reader of large folders as with the one of small folders", async () => {
  await using sandbox = await createTempSandbox();
  const tree: Record<string, string> = { ".git/HEAD": "", "b/1.txt": "", "b/c/2.txt": "" };
  for (let index = 0; index < 300; index += 1) tree[`flat/${String(index).padStart(3, "0")}`] = "";
  await writeTree(sandbox.workspace, tree);
  const guard = await PathGuard.create({ workspace: sandbox.workspace, home: null });
  const listed = async (largeFolderBytes?: number) => {
    const start = await guard.check(".", "list");
    if (!start.ok) throw new Error(start.error.message);
    const stats = emptyWalkStats();
    const options = { guard, recursive: true, stats };
    const names: string[] = [];
    for await (
      const entry of walk(
        start.path,
        largeFolderBytes === undefined ? options : { ...options, largeFolderBytes },
      )
    ) names.push(`${entry.type} ${entry.display}`);
    return { names, stats };
  };
  const small = await listed();
  const streamed = await listed(0);
  assert.deepEqual(streamed, small);
  assert.equal(small.names.length, 4 + 302); // .git (listed, not entered), b, b/c, flat; 302 files
  assert.equal(small.stats.excluded, 1); // .git
});

Deno.test("walk with statFiles false yields listed files without an lstat, and still lstats folders and links", async () => {
  await using sandbox = await createTempSandbox();
  await writeTree(sandbox.workspace, { "a/1.txt": "one", "b.txt": "two" });
  await Deno.symlink("b.txt", `${sandbox.workspace}/link`);
  const guard = await PathGuard.create({ workspace: sandbox.workspace, home: null });
  const start = await guard.check(".", "list");
  if (!start.ok) throw new Error(start.error.message);
  const entries: WalkEntry[] = [];
  for await (
    const entry of walk(start.path, { guard, recursive: true, statFiles: false })
  ) entries.push(entry);
  const byName = Object.fromEntries(entries.map((entry) => [entry.display, entry]));
  assert.deepEqual(Object.keys(byName), ["a", "a/1.txt", "b.txt", "link"]);
  assert.equal(byName["b.txt"]?.type, "file");
  assert.equal(byName["b.txt"]?.identity, null); // not lstat'ed: whoever reads it proves it
  assert.equal(byName["b.txt"]?.size, 0);
  assert.ok(byName["a"]?.identity !== null); // a folder is entered with its identity
  assert.equal(byName["link"]?.type, "symlink");
  // Near miss: the default walk lstats files (size and identity).
  const statted: WalkEntry[] = [];
  for await (const entry of walk(start.path, { guard, recursive: true })) statted.push(entry);
  const file = statted.find((entry) => entry.display === "b.txt");
  assert.equal(file?.size, 3);
  assert.ok(file?.identity !== null);
});
