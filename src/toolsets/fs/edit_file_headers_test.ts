import assert from "node:assert/strict";
import { exists, openFixture } from "./_fixture.ts";
import { editFileTool } from "./edit_file.ts";

const HUNK = "@@ -1 +1 @@\n-same\n+changed\n";

Deno.test("fs.edit_file refuses a diff whose headers name another file and writes nothing", async (t) => {
  // Both files hold the same line, so every hunk below would apply to "src/a.ts": only the
  // header tells which file the diff was made for.
  await using fixture = await openFixture({ "src/a.ts": "same\n", "src/b.ts": "same\n" });
  const outside = fixture.inOutside("secret.txt");
  await Deno.writeTextFile(outside, "same\n");
  const cases: [string, string, string][] = [
    ["another file", `--- a/src/b.ts\n+++ b/src/b.ts\n${HUNK}`, "a/src/b.ts"],
    ["the same name in another folder", `--- a/b/a.ts\n+++ b/b/a.ts\n${HUNK}`, "a/b/a.ts"],
    ["a file outside", `--- ${outside}\n+++ ${outside}\n${HUNK}`, outside],
    [
      "a relative escape",
      `--- a/../outside/secret.txt\n+++ b/../outside/secret.txt\n${HUNK}`,
      "a/../outside/secret.txt",
    ],
    [
      "a git header",
      `diff --git a/src/b.ts b/src/b.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n${HUNK}`,
      "a/src/b.ts",
    ],
    ["an Index line", `Index: src/b.ts\n===\n--- src/a.ts\n+++ src/a.ts\n${HUNK}`, "src/b.ts"],
  ];
  for (const [name, diff, header] of cases) {
    await t.step(name, async () => {
      const outcome = await fixture.call(editFileTool, { path: "src/a.ts", unified_diff: diff });
      assert.equal(outcome.error?.type, "patch_apply_failed", outcome.output);
      assert.equal(outcome.error?.details.header, header);
      assert.match(outcome.error?.message ?? "", /names another file/);
      assert.equal(await Deno.readTextFile(fixture.inWorkspace("src/a.ts")), "same\n");
      assert.equal(await Deno.readTextFile(fixture.inWorkspace("src/b.ts")), "same\n");
      assert.equal(await Deno.readTextFile(outside), "same\n");
      assert.equal(await exists(fixture.inWorkspace("b/a.ts")), false);
    });
  }
});

Deno.test("fs.edit_file applies a diff whose headers name the edited file however spelled (near miss)", async (t) => {
  await using fixture = await openFixture({ "src/a.ts": "same\n" });
  const absolute = await Deno.realPath(fixture.inWorkspace("src/a.ts"));
  const spellings: [string, string][] = [
    ["git prefixes", `diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n${HUNK}`],
    ["no prefixes", `--- src/a.ts\n+++ src/a.ts\n${HUNK}`],
    ["./ and a timestamp", `--- ./src/a.ts\t2026-01-01 00:00:00\n+++ ./src/a.ts\n${HUNK}`],
    ["the absolute path", `--- ${absolute}\n+++ ${absolute}\n${HUNK}`],
    ["no headers", HUNK],
  ];
  for (const [name, diff] of spellings) {
    await t.step(name, async () => {
      await Deno.writeTextFile(fixture.inWorkspace("src/a.ts"), "same\n");
      const outcome = await fixture.call(editFileTool, { path: "src/a.ts", unified_diff: diff });
      assert.equal(outcome.ok, true, outcome.output);
      assert.equal(await Deno.readTextFile(fixture.inWorkspace("src/a.ts")), "changed\n");
    });
  }
});
