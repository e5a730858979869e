import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { Redactor } from "../../audit/redactor.ts";
import { FileMemoryProvider } from "../../memory/file_memory_provider.ts";
import { callTool } from "../../testing/call_tool.ts";
import { createTempSandbox } from "../../testing/temp_sandbox.ts";
import { createTestContext } from "../../testing/tool_context.ts";
import { candidateId } from "../../memory/memory_candidate.ts";
import { createMemoryTools, type MemoryWriteMode } from "./mod.ts";
import type { RecallMemoryData } from "./recall_memory.ts";
import type { WriteMemoryData } from "./write_memory.ts";

const SECRET = "sk-ant-" + "a".repeat(30);

async function openTools(mode: MemoryWriteMode) {
  const sandbox = await createTempSandbox();
  const context = await createTestContext({ workspace: sandbox.workspace });
  const provider = new FileMemoryProvider({ folder: nodePath.join(sandbox.outside, "memory") });
  const candidatesFile = nodePath.join(
    sandbox.outside,
    "run",
    "archive",
    "memory_candidates.jsonl",
  );
  const redactor = new Redactor({ secrets: [] });
  const tools = createMemoryTools({
    provider,
    mode,
    candidatesFile,
    scopes: ["project", "user"],
    redact: (text) => redactor.redactText(text),
  });
  const tool = (name: string) => {
    const found = tools.find((candidate) => candidate.name === name);
    assert.ok(found, name);
    return found;
  };
  return {
    tools,
    provider,
    candidatesFile,
    sandbox,
    recall: (args: Record<string, unknown>) =>
      callTool(tool("memory.recall_memory"), args, context),
    write: (args: Record<string, unknown>) => callTool(tool("memory.write_memory"), args, context),
    [Symbol.asyncDispose]: () => sandbox.cleanup(),
  };
}

Deno.test("createMemoryTools offers only recall when the write mode is disabled", async () => {
  await using fixture = await openTools("disabled");
  assert.deepEqual(fixture.tools.map((tool) => tool.name), ["memory.recall_memory"]);
  const recall = fixture.tools[0];
  assert.equal(recall?.permission, "readonly");
  assert.deepEqual(recall?.tags, ["memory", "read"]);
});

Deno.test("memory.write_memory appends a redacted candidate when the mode is candidate", async () => {
  await using fixture = await openTools("candidate");
  const write = fixture.tools.find((tool) => tool.name === "memory.write_memory");
  assert.equal(write?.permission, "write");
  assert.deepEqual(write?.tags, ["memory", "write"]);
  const outcome = await fixture.write({ content: `deploy key is ${SECRET}`, tags: ["deploy"] });
  assert.equal(outcome.ok, true, outcome.output);
  const lines = (await Deno.readTextFile(fixture.candidatesFile)).trimEnd().split("\n");
  assert.equal(lines.length, 1);
  const candidate = JSON.parse(lines[0] ?? "");
  assert.equal(candidate.content, "deploy key is [REDACTED:anthropic_key]");
  assert.equal(candidate.scope, "project");
  assert.deepEqual(candidate.tags, ["deploy"]);
  assert.ok(!Number.isNaN(Date.parse(candidate.ts)));
  assert.ok(!(await Deno.readTextFile(fixture.candidatesFile)).includes(SECRET));
  // Candidate mode never touches the provider.
  assert.deepEqual(await fixture.provider.recall("deploy", "project", 5), []);
});

Deno.test("memory.write_memory only proposes a candidate when the mode is external", async () => {
  await using fixture = await openTools("external");
  const write = fixture.tools.find((tool) => tool.name === "memory.write_memory");
  assert.equal(write?.annotations?.open_world, false);
  const outcome = await fixture.write({ content: `token ${SECRET} opens staging`, scope: "user" });
  assert.equal(outcome.ok, true, outcome.output);
  // The agent never writes the store: the Memory Writer (kagent-run memory promote) does.
  assert.deepEqual(await fixture.provider.recall("staging", "user", 5), []);
  const [line] = (await Deno.readTextFile(fixture.candidatesFile)).trimEnd().split("\n");
  const candidate = JSON.parse(line ?? "");
  assert.equal(candidate.content, "token [REDACTED:anthropic_key] opens staging");
  assert.equal(candidate.id, candidateId(candidate));
  assert.equal((outcome.data as WriteMemoryData).id, candidate.id);
  assert.match(
    outcome.output,
    new RegExp(`as ${candidate.id}; it is kept once a person accepts it`),
  );
});

Deno.test("memory tools refuse a scope when it is path-like or not configured", async () => {
  await using fixture = await openTools("external");
  for (const scope of ["../x", "/etc", "a/b", "", "run"]) {
    const written = await fixture.write({ content: "x", scope });
    assert.equal(written.error?.type, "invalid_arguments", `write ${scope}`);
    const recalled = await fixture.recall({ query: "x", scope });
    assert.equal(recalled.error?.type, "invalid_arguments", `recall ${scope}`);
  }
  const names = [...Deno.readDirSync(nodePath.join(fixture.sandbox.outside))].map((e) => e.name);
  assert.deepEqual(names, [], "nothing written anywhere");
  // Near miss.
  assert.equal((await fixture.write({ content: "x", scope: "user" })).ok, true);
});

Deno.test("memory.write_memory refuses content when it is larger than 16 KiB", async () => {
  await using fixture = await openTools("candidate");
  const outcome = await fixture.write({ content: "€".repeat(6000) });
  assert.equal(outcome.error?.type, "invalid_arguments");
  assert.match(outcome.error?.message ?? "", /^Cannot write memory: the content is 18000 bytes/);
  await assert.rejects(Deno.stat(fixture.candidatesFile), Deno.errors.NotFound);
});

Deno.test("memory.recall_memory ranks the most relevant memory first when several match", async () => {
  await using fixture = await openTools("external");
  await fixture.provider.write("the staging database is postgres 16", "project", []);
  await fixture.provider.write("run the linter before pushing", "project", []);
  await fixture.provider.write("the staging host is staging.internal", "project", []);
  const outcome = await fixture.recall({ query: "which linter to run", limit: 2 });
  assert.equal(outcome.ok, true, outcome.output);
  const data = outcome.data as RecallMemoryData;
  assert.equal(data.records[0]?.content, "run the linter before pushing");
  assert.ok(data.records.length <= 2);
  assert.match(outcome.output, /^1\. \[.*\] run the linter before pushing/);
});

Deno.test("memory.recall_memory answers nothing when no provider is configured", async () => {
  const tools = createMemoryTools({
    provider: null,
    mode: "candidate",
    candidatesFile: "/nonexistent/archive/memory_candidates.jsonl",
    scopes: ["project"],
    redact: (text) => text,
  });
  const sandbox = await createTempSandbox();
  try {
    const context = await createTestContext({ workspace: sandbox.workspace });
    const outcome = await callTool(tools[0]!, { query: "anything" }, context);
    assert.equal(outcome.ok, true);
    assert.deepEqual((outcome.data as RecallMemoryData).records, []);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("memory.recall_memory refuses a limit when it is out of range", async () => {
  await using fixture = await openTools("disabled");
  assert.equal((await fixture.recall({ query: "x", limit: 0 })).error?.type, "invalid_arguments");
  assert.equal((await fixture.recall({ query: "x", limit: 51 })).error?.type, "invalid_arguments");
  assert.equal((await fixture.recall({ query: "x", extra: 1 })).error?.type, "invalid_arguments");
});

Deno.test("memory tools recall nothing and write nowhere when there is no run or memory folder", async () => {
  await using sandbox = await createTempSandbox();
  const context = await createTestContext({ workspace: sandbox.workspace });
  const provider = new FileMemoryProvider({ folder: null });
  const external = createMemoryTools({
    provider,
    mode: "external",
    candidatesFile: null,
    scopes: ["project"],
    redact: (text) => text,
  });
  const candidate = createMemoryTools({
    provider,
    mode: "candidate",
    candidatesFile: null,
    scopes: ["project"],
    redact: (text) => text,
  });
  const [recall, externalWrite] = external;
  const candidateWrite = candidate[1];
  assert.ok(recall && externalWrite && candidateWrite);
  const recalled = await callTool(recall, { query: "anything" }, context);
  assert.equal(recalled.ok, true, recalled.output);
  assert.deepEqual((recalled.data as RecallMemoryData).records, []);
  const written = await callTool(externalWrite, { content: "a fact" }, context);
  assert.equal(written.error?.type, "tool_not_available");
  assert.match(written.output, /no run folder/);
  const proposed = await callTool(candidateWrite, { content: "a fact" }, context);
  assert.equal(proposed.error?.type, "tool_not_available");
  assert.match(proposed.output, /no run folder/);
  // Nothing was written anywhere: no folder was made up for the missing ones.
  await assert.rejects(Deno.stat("/nonexistent-memory"), Deno.errors.NotFound);
  await assert.rejects(Deno.stat("/nonexistent-run"), Deno.errors.NotFound);
});
