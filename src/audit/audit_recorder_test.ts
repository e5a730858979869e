import assert from "node:assert/strict";
import { chainAnchor } from "./audit_chain.ts";
import { AuditRecorder } from "./audit_recorder.ts";
import { AuditWriteError } from "./audit_write_error.ts";
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
    await recorder.event("tool.started", { tool_call_id: `uses ${SECRET}`, tool: "fs.read_file" });
    await recorder.close();
    const text = await Deno.readTextFile(folder.paths.events);
    assert.ok(text.startsWith('{"ts":"2026-11-21T05:34:12.500Z","type":"tool.started","run_id":'));
    assert.deepEqual(await readJsonl(folder.paths.events), [{
      ts: "2026-11-21T05:34:12.500Z",
      type: "tool.started",
      run_id: "run-1",
      tool_call_id: "uses [REDACTED:secret_env]",
      tool: "fs.read_file",
      seq: 1,
      prev: chainAnchor("run-1", null, "events.jsonl"),
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
      seq: 1,
      prev: chainAnchor("run-1", null, "logs/tools.jsonl"),
    }]);
    assert.deepEqual(await readJsonl(folder.paths.errorsLog), [{
      ts: "2026-11-21T05:34:12.500Z",
      run_id: "run-1",
      error_type: "internal_error",
      message: "boom [REDACTED:secret_env]",
      seq: 1,
      prev: chainAnchor("run-1", null, "logs/errors.jsonl"),
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
      void recorder.event("command.swept", { tool_call_id: `call-${index}`, killed: 0 });
      void recorder.toolRecord({ index });
    }
    void recorder.writePolicy({ final: true });
    await recorder.close();
    assert.equal((await readJsonl(folder.paths.events)).length, 200);
    assert.equal((await readJsonl(folder.paths.toolsLog)).length, 200);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(folder.paths.policy)), { final: true });
    await assert.rejects(
      recorder.event("command.swept", { tool_call_id: "late", killed: 0 }),
      TypeError,
    );
    await assert.rejects(recorder.writePolicy({}), TypeError);
  });
});

Deno.test("AuditRecorder refuses a field when it would override a recorder key", async () => {
  await withTempDir(async (dir) => {
    const { folder, recorder } = await makeRecorder(dir);
    await assert.rejects(
      // @ts-expect-error: `run_id` is no field of any event (the recorder writes it).
      recorder.event("command.swept", { tool_call_id: "c1", killed: 0, run_id: "forged" }),
      TypeError,
    );
    await assert.rejects(recorder.error({ ts: "1970" }), TypeError);
    await recorder.close();
    assert.deepEqual(await readJsonl(folder.paths.events), []);
    assert.deepEqual(await readJsonl(folder.paths.errorsLog), []);
  });
});

/** Opens the real logs, except `events.jsonl`, which refuses every byte as a full disk does. */
async function openWithFullEvents(path: string) {
  const file = await Deno.open(path, { append: true, create: true });
  if (!path.endsWith("events.jsonl")) return file;
  return {
    write: () =>
      Promise.reject(Object.assign(new Error("No space left on device"), { code: "ENOSPC" })),
    truncate: (length: number) => file.truncate(length),
    stat: () => file.stat(),
    close: () => file.close(),
  };
}

Deno.test("AuditRecorder rejects with an AuditWriteError when the disk refuses a record", async () => {
  await withTempDir(async (dir) => {
    const folder = await RunFolder.create(dir, { id: "run-1" });
    const recorder = new AuditRecorder({
      folder,
      redactor: new Redactor({ secrets: [] }),
      openLog: openWithFullEvents,
    });
    await assert.rejects(
      recorder.event("tool.started", { tool_call_id: "c1", tool: "fs.read_file" }),
      AuditWriteError,
    );
    assert.equal(recorder.writeFailure?.failure, "no_space");
    await recorder.close();
  });
});

Deno.test("AuditRecorder still records the other logs when failures are reported and one log is full", async () => {
  await withTempDir(async (dir) => {
    const folder = await RunFolder.create(dir, { id: "run-1" });
    const recorder = new AuditRecorder({
      folder,
      redactor: new Redactor({ secrets: [] }),
      openLog: openWithFullEvents,
    });
    const reported: AuditWriteError[] = [];
    recorder.reportWriteFailuresTo((error) => reported.push(error));
    // The open call ends recorded wherever a record still fits: tools.jsonl and errors.jsonl.
    await recorder.event("command.swept", { tool_call_id: "c1", killed: 1 });
    await recorder.toolRecord({ tool_call_id: "c1", ok: false });
    await recorder.error({ tool_call_id: "c1", message: "Cannot finish" });
    await recorder.close();
    assert.equal(reported.length, 1);
    assert.match(reported[0]?.message ?? "", /events\.jsonl": the disk is full/);
    assert.equal(recorder.writeFailure, reported[0]);
    assert.equal(await Deno.readTextFile(folder.paths.events), "");
    assert.deepEqual(await readJsonl(folder.paths.toolsLog), [{
      run_id: "run-1",
      tool_call_id: "c1",
      ok: false,
      seq: 1,
      prev: chainAnchor("run-1", null, "logs/tools.jsonl"),
    }]);
    assert.equal((await readJsonl(folder.paths.errorsLog))[0]?.tool_call_id, "c1");
  });
});

Deno.test("AuditRecorder reports nothing when every record is written (near miss)", async () => {
  await withTempDir(async (dir) => {
    const { folder, recorder } = await makeRecorder(dir);
    const reported: AuditWriteError[] = [];
    recorder.reportWriteFailuresTo((error) => reported.push(error));
    await recorder.event("tool.started", { tool_call_id: "c1", tool: "fs.read_file" });
    await recorder.close();
    assert.deepEqual(reported, []);
    assert.equal(recorder.writeFailure, null);
    assert.equal((await readJsonl(folder.paths.events)).length, 1);
  });
});

Deno.test("AuditRecorder.observeEvents sees each written event redacted, in file order, and not a refused one", async () => {
  await withTempDir(async (dir) => {
    const { folder, recorder } = await makeRecorder(dir);
    const seen: Readonly<Record<string, unknown>>[] = [];
    recorder.observeEvents((record) => seen.push(record));
    recorder.observeEvents(() => {
      throw new Error("a failing observer must not fail the record");
    });
    await Promise.all([
      recorder.event("tool.started", { tool_call_id: "c1", tool: `fs.read_file ${SECRET}` }),
      recorder.event("command.swept", { tool_call_id: "c1", killed: 0 }),
      recorder.event("run.completed", {
        end_reason: "completed",
        calls: 1,
        denied: 0,
        failed: 0,
        skipped: 0,
        duration_ms: 3,
      }),
    ]);
    await recorder.close();
    const written = await readJsonl(folder.paths.events);
    assert.deepEqual(seen.map((record) => [record.type, record.seq]), [
      ["tool.started", 1],
      ["command.swept", 2],
      ["run.completed", 3],
    ]);
    assert.deepEqual(seen, written.map(({ prev: _prev, ...record }) => record));
    assert.ok(!JSON.stringify(seen).includes(SECRET));
  });
  await withTempDir(async (dir) => {
    const folder = await RunFolder.create(dir, { id: "run-1" });
    const recorder = new AuditRecorder({
      folder,
      redactor: new Redactor({ secrets: [] }),
      openLog: openWithFullEvents,
    });
    const seen: unknown[] = [];
    recorder.observeEvents((record) => seen.push(record));
    recorder.reportWriteFailuresTo(() => {});
    await recorder.event("tool.started", { tool_call_id: "c1", tool: "fs.read_file" });
    await recorder.close();
    assert.deepEqual(seen, [], "an event the disk refused is not observed");
  });
});
