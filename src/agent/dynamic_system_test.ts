import assert from "node:assert/strict";
import type { ToolResult } from "../result/mod.ts";
import { DynamicSystemBlocks, type DynamicSystemOptions } from "./dynamic_system.ts";

function readResult(path: string, output: string, id = "call-1"): ToolResult {
  return {
    tool_call_id: id,
    tool: "fs.read_file",
    ok: true,
    summary: `Read file "${path}"`,
    output,
    data: { path },
    artifacts: [],
    error: null,
    duration_ms: 1,
  };
}

function fixture(options: Partial<DynamicSystemOptions> = {}) {
  const events: { type: string; fields: Record<string, unknown> }[] = [];
  const errors: Record<string, unknown>[] = [];
  const blocks = new DynamicSystemBlocks({
    redact: (text) => text.replaceAll("hunter2", "[REDACTED]"),
    recorder: {
      event: (type, fields) => {
        events.push({ type, fields: fields as Record<string, unknown> });
        return Promise.resolve(events.length);
      },
      error: (record) => {
        errors.push(record);
        return Promise.resolve(errors.length);
      },
    },
    storeText: () => Promise.resolve("artifacts/block.txt"),
    ...options,
  });
  return { blocks, events, errors };
}

Deno.test("DynamicSystemBlocks registers no instruction file when the names are []", async () => {
  const { blocks, events } = fixture({ instructionFiles: [] });
  await blocks.afterTurn([readResult("AGENTS.md", "    1\tRun the tests")]);
  assert.equal(blocks.systemFor("base"), "base");
  assert.deepEqual(events, []);
  // The near miss: the default names register it.
  const defaults = fixture();
  await defaults.blocks.afterTurn([readResult("sub/AGENTS.md", "    1\tRun the tests")]);
  assert.match(defaults.blocks.systemFor("base"), /<instruction_file path="sub\/AGENTS\.md">/);
});

Deno.test("DynamicSystemBlocks leaves a block out when the run folder refuses to store it", async () => {
  const { blocks, events, errors } = fixture({
    storeText: () => Promise.reject(new Error("disk full")),
  });
  await blocks.afterTurn([readResult("AGENTS.md", "    1\tRun the tests")]);
  assert.equal(blocks.systemFor("base"), "base", "not sent when it cannot be recorded");
  assert.match(String(errors[0]?.message), /Cannot add the instruction_file block .*: disk full/);
  assert.deepEqual(events[0]?.fields, {
    tool_call_id: "call-1",
    path: "AGENTS.md",
    bytes: 0,
    sha256: null,
    artifact: null,
    cut: false,
  });
});

Deno.test("DynamicSystemBlocks adds each memory once and redacts the block", async () => {
  const { blocks, events } = fixture();
  const record = {
    id: "m1",
    scope: "project",
    content: "password hunter2 opens staging",
    tags: [],
    created_at: "2026-11-20T10:00:00.000Z",
  };
  await blocks.addMemories([record], "run_start", null);
  await blocks.afterTurn([{
    ...readResult("x", ""),
    tool: "memory.recall_memory",
    data: { scope: "project", records: [record], provider: "file" },
  }]);
  assert.equal(events.length, 1, "a recall of the same memory changes nothing");
  const system = blocks.systemFor("base");
  assert.match(system, /<memory_context count="1">/);
  assert.match(system, /password \[REDACTED\] opens staging/);
  assert.ok(!system.includes("hunter2"));
  // A failed call adds nothing, whatever its data.
  await blocks.afterTurn([{ ...readResult("AGENTS.md", "    1\tx"), ok: false }]);
  assert.equal(events.length, 1);
});
