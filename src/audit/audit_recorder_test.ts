import assert from "node:assert/strict";
import { AuditRecorder } from "./audit_recorder.ts";
import { Redactor } from "./redactor.ts";
import { RunFolder } from "./run_folder.ts";
import { readJsonl, withTempDir } from "./_test_helpers.ts";

const SECRET = "super-secret-value-42";

async function makeRecorder(dir: string) {
  const folder = await RunFolder.create(dir, { id: "run-1" });
  const redactor = Redactor.fromEnvironment(["MY_TOKEN"], () => SECRET);
  const recorder = new AuditRecorder({
    folder,
    redactor,
    now: () => new Date("2026-11-21T05:34:12.5Z"),
  });
  return { folder, recorder };
}

Deno.test("AuditRecorder.event writes ts, type and run_id first when recording an event", async () => {
  await withTempDir(async (dir) => {
    const { folder, recorder } = await makeRecorder(dir);
    await recorder.event("tool.started", { tool: "fs.read_file", note: `uses ${SECRET}` });
    await recorder.close();
    const text = await Deno.readTextFile(folder.paths.events);
    assert.ok(text.startsWith('{"ts":"2026-11-21T05:34:12.500Z","type":"tool.started","run_id":'));
    assert.deepEqual(await readJsonl(folder.paths.events), [{
      ts: "2026-11-21T05:34:12.500Z",
      type: "tool.started",
      run_id: "run-1",
      tool: "fs.read_file",
      note: "uses [REDACTED:secret_env]",
    }]);
    assert.ok(!text.includes(SECRET));
  });
});

Deno.test("AuditRecorder writes tool and error records to their logs when redacted", async () => {
  await withTempDir(async (dir) => {
    const { folder, recorder } = await makeRecorder(dir);
    await Promise.all([
      recorder.toolRecord({ tool_call_id: "c1", output: SECRET, data: { api_key: "k" } }),
      recorder.error({ error_type: "internal_error", message: `boom ${SECRET}` }),
    ]);
    await recorder.close();
    assert.deepEqual(await readJsonl(folder.paths.toolsLog), [{
      run_id: "run-1",
      tool_call_id: "c1",
      output: "[REDACTED:secret_env]",
      data: { api_key: "[REDACTED:key_name]" },
    }]);
    assert.deepEqual(await readJsonl(folder.paths.errorsLog), [{
      ts: "2026-11-21T05:34:12.500Z",
      run_id: "run-1",
      error_type: "internal_error",
      message: "boom [REDACTED:secret_env]",
    }]);
    assert.deepEqual(await readJsonl(folder.paths.events), []);
  });
});

Deno.test("AuditRecorder.writePolicy pretty prints the snapshot when called", async () => {
  await withTempDir(async (dir) => {
    const { folder, recorder } = await makeRecorder(dir);
    await recorder.writePolicy({ rules: [{ id: "config:0", reason: SECRET }] });
    await recorder.writePolicy({ rules: [{ id: "config:1", decision: "deny" }] });
    await recorder.close();
    assert.equal(
      await Deno.readTextFile(folder.paths.policy),
      '{\n  "rules": [\n    {\n      "id": "config:1",\n      "decision": "deny"\n    }\n  ]\n}\n',
    );
  });
});

Deno.test("AuditRecorder.close waits for pending records when called without awaiting them", async () => {
  await withTempDir(async (dir) => {
    const { folder, recorder } = await makeRecorder(dir);
    for (let index = 0; index < 200; index++) {
      void recorder.event("tool.completed", { index });
      void recorder.toolRecord({ index });
    }
    void recorder.writePolicy({ final: true });
    await recorder.close();
    assert.equal((await readJsonl(folder.paths.events)).length, 200);
    assert.equal((await readJsonl(folder.paths.toolsLog)).length, 200);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(folder.paths.policy)), { final: true });
    await assert.rejects(recorder.event("late", {}), TypeError);
    await assert.rejects(recorder.writePolicy({}), TypeError);
  });
});

Deno.test("AuditRecorder refuses a field when it would override a recorder key", async () => {
  await withTempDir(async (dir) => {
    const { folder, recorder } = await makeRecorder(dir);
    await assert.rejects(recorder.event("x", { run_id: "forged" }), TypeError);
    await assert.rejects(recorder.error({ ts: "1970" }), TypeError);
    await recorder.close();
    assert.deepEqual(await readJsonl(folder.paths.events), []);
    assert.deepEqual(await readJsonl(folder.paths.errorsLog), []);
  });
});
