import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { parseIndex, readIndexPaths } from "./git_index.ts";

const HAS_GIT = (() => {
  try {
    return new Deno.Command("git", { args: ["--version"], stdout: "null" }).outputSync().success;
  } catch {
    return false;
  }
})();

async function git(cwd: string, ...args: string[]): Promise<void> {
  const output = await new Deno.Command("git", { args, cwd, stdout: "null", stderr: "null" })
    .output();
  assert.ok(output.success, `git ${args.join(" ")}`);
}

const NAMES = ["README.md", "a/.env.example", "a/b/a_rather_long_name_for_padding.pem", "z.key"];

for (const version of [2, 3, 4]) {
  Deno.test({
    name: `readIndexPaths lists every tracked path of an index of version ${version}`,
    ignore: !HAS_GIT,
    fn: async () => {
      const folder = await Deno.makeTempDir();
      try {
        await git(folder, "init", "-q");
        for (const name of NAMES) {
          await Deno.mkdir(nodePath.dirname(nodePath.join(folder, name)), { recursive: true });
          await Deno.writeTextFile(nodePath.join(folder, name), "x\n");
        }
        await Deno.writeTextFile(nodePath.join(folder, "untracked.key"), "x\n");
        await git(folder, "add", ...NAMES);
        await git(folder, "update-index", "--index-version", String(version));
        // Version 3 holds extended flags only when an entry needs them.
        if (version === 3) await git(folder, "update-index", "--skip-worktree", "z.key");
        const paths = readIndexPaths(nodePath.join(folder, ".git", "index"));
        assert.deepEqual([...(paths ?? [])].sort(), NAMES);
      } finally {
        await Deno.remove(folder, { recursive: true });
      }
    },
  });
}

Deno.test("parseIndex refuses what is not an index it can read (caller masks everything)", () => {
  assert.equal(parseIndex(new TextEncoder().encode("not an index at all, no")), null);
  const header = new Uint8Array(12 + 20);
  header.set(new TextEncoder().encode("DIRC"));
  new DataView(header.buffer).setUint32(4, 5); // an unknown version
  assert.equal(parseIndex(header), null);
  // A count that runs past the end of the file.
  new DataView(header.buffer).setUint32(4, 2);
  new DataView(header.buffer).setUint32(8, 3);
  assert.equal(parseIndex(header), null);
  // Near miss: an empty index of version 2 is read as no paths.
  new DataView(header.buffer).setUint32(8, 0);
  assert.deepEqual(parseIndex(header), new Set());
  assert.equal(readIndexPaths("/nonexistent/index"), null);
});
