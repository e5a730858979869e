import assert from "node:assert/strict";
import { join } from "node:path";
import { AuditWriteError } from "./audit_write_error.ts";
import { RunFolder } from "./run_folder.ts";
import { withTempDir } from "./_test_helpers.ts";

Deno.test("RunFolder.create lays out every folder and empty log when the run starts", async () => {
  await withTempDir(async (dir) => {
    const runsDir = join(dir, "nested", "runs");
    const folder = await RunFolder.create(runsDir, {
      now: new Date("2026-11-21T05:34:12Z"),
    });
    assert.match(folder.id, /^20261121T053412Z-[0-9a-f]{6}$/);
    assert.equal(folder.dir, join(runsDir, folder.id));
    assert.deepEqual(folder.paths, {
      events: join(folder.dir, "events.jsonl"),
      toolsLog: join(folder.dir, "logs", "tools.jsonl"),
      errorsLog: join(folder.dir, "logs", "errors.jsonl"),
      workspace: join(folder.dir, "workspace"),
      deliverables: join(folder.dir, "deliverables"),
      archive: join(folder.dir, "archive"),
      artifacts: join(folder.dir, "artifacts"),
      policy: join(folder.dir, "policy.json"),
      systemPrompt: join(folder.dir, "system_prompt.md"),
    });
    for (const path of [folder.paths.events, folder.paths.toolsLog, folder.paths.errorsLog]) {
      const info = await Deno.stat(path);
      assert.ok(info.isFile);
      assert.equal(info.size, 0);
    }
    for (const name of ["workspace", "deliverables", "archive", "artifacts", "logs"]) {
      assert.ok((await Deno.stat(join(folder.dir, name))).isDirectory, name);
    }
    const entries = [];
    for await (const entry of Deno.readDir(folder.dir)) entries.push(entry.name);
    assert.deepEqual(entries.sort(), [
      "archive",
      "artifacts",
      "deliverables",
      "events.jsonl",
      "logs",
      "workspace",
    ]);
  });
});

Deno.test("RunFolder.create refuses an id when a run with it exists", async () => {
  await withTempDir(async (dir) => {
    const first = await RunFolder.create(dir, { id: "run-1" });
    await Deno.writeTextFile(first.paths.events, '{"type":"kept"}\n');
    await assert.rejects(
      RunFolder.create(dir, { id: "run-1" }),
      (error: unknown) =>
        error instanceof Deno.errors.AlreadyExists &&
        error.message.includes('a run with id "run-1" already exists'),
    );
    assert.equal(await Deno.readTextFile(first.paths.events), '{"type":"kept"}\n');
  });
});

Deno.test("RunFolder.create refuses an id when it would leave the runs folder", async () => {
  await withTempDir(async (dir) => {
    for (const id of ["../escape", "a/b", ".hidden", "..", ""]) {
      await assert.rejects(RunFolder.create(join(dir, "runs"), { id }), TypeError, id);
    }
    await assert.rejects(Deno.stat(join(dir, "escape")), Deno.errors.NotFound);
  });
});

Deno.test("RunFolder.create gives distinct folders when runs start in the same second", async () => {
  await withTempDir(async (dir) => {
    const now = new Date("2026-11-21T05:34:12Z");
    const folders = await Promise.all(
      Array.from({ length: 20 }, () => RunFolder.create(dir, { now })),
    );
    assert.equal(new Set(folders.map((folder) => folder.dir)).size, 20);
  });
});

Deno.test("RunFolder.create draws another id when the generated one exists", async () => {
  await withTempDir(async (dir) => {
    const now = new Date("2026-11-21T05:34:12Z");
    const first = await RunFolder.create(dir, { now, random: () => 0 });
    const draws = [0, 0, 0.5];
    const second = await RunFolder.create(dir, { now, random: () => draws.shift() ?? 0.75 });
    assert.equal(first.id, "20261121T053412Z-000000");
    assert.equal(second.id, "20261121T053412Z-800000");
  });
});

Deno.test("RunFolder.create refuses a runs folder that is a file and creates nothing", async () => {
  await withTempDir(async (dir) => {
    const runsDir = join(dir, "runs");
    await Deno.writeTextFile(runsDir, "not a folder\n");
    const error = await RunFolder.create(runsDir).then(() => null, (error) => error);
    assert.ok(error instanceof AuditWriteError, String(error));
    assert.equal(error.failure, "not_a_folder");
    assert.match(error.message, /^Cannot write ".*runs": .*"runs_dir"/);
    assert.equal(await Deno.readTextFile(runsDir), "not a folder\n");
    // A folder below the file is refused the same way.
    await assert.rejects(RunFolder.create(join(runsDir, "sub")), AuditWriteError);
  });
});
