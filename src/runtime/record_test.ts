import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { ArtifactStore, AuditRecorder, Redactor, RunFolder } from "../audit/mod.ts";
import { failure } from "../result/tool_result.ts";
import type { ToolResult } from "../result/tool_result.ts";
import { type CallRecord, record } from "./record.ts";

/** Records `entries` into a fresh run folder and returns its three logs, parsed. */
async function recordAll(entries: CallRecord[]) {
  const runsDir = await Deno.makeTempDir({ prefix: "kagent_record_test_" });
  try {
    const folder = await RunFolder.create(runsDir);
    const recorder = new AuditRecorder({ folder, redactor: new Redactor({ secrets: [] }) });
    for (const entry of entries) await record(recorder, entry);
    await recorder.close();
    const read = async (path: string) =>
      (await Deno.readTextFile(path)).split("\n").filter((line) => line !== "").map((line) =>
        JSON.parse(line) as Record<string, unknown>
      );
    return {
      events: await read(folder.paths.events),
      tools: await read(folder.paths.toolsLog),
      errors: await read(folder.paths.errorsLog),
    };
  } finally {
    await Deno.remove(runsDir, { recursive: true });
  }
}

function unknownTool(id: string, name: string): ToolResult {
  const outcome = failure(
    "tool_not_available",
    `Cannot call tool "${name}": no tool has this name`,
  );
  return {
    tool_call_id: id,
    tool: name,
    ok: false,
    summary: outcome.summary,
    output: outcome.output,
    data: null,
    artifacts: [],
    error: outcome.error,
    duration_ms: 1,
  };
}

const entry = (result: ToolResult): CallRecord => ({
  result,
  risk_level: null,
  started: new Date("2026-01-01T00:00:00.000Z"),
  ended: new Date("2026-01-01T00:00:00.001Z"),
  params: {},
  arguments_text: "{}",
  decision: null,
});

Deno.test("record writes the raw provider name and id into the event, tools.jsonl and errors.jsonl", async () => {
  const logs = await recordAll([
    { ...entry(unknownTool("call-1", "nope__tool")), provider: { name: "nope__tool", id: null } },
    entry(unknownTool("plan-1", "fs.teleport")),
  ]);
  assert.deepEqual(logs.events.map((event) => [event.type, event.tool, event.provider]), [
    ["tool.denied", "nope__tool", { name: "nope__tool", id: null }],
    ["tool.denied", "fs.teleport", undefined],
  ]);
  assert.deepEqual(logs.tools.map((line) => [line.tool_call_id, line.provider]), [
    ["call-1", { name: "nope__tool", id: null }],
    ["plan-1", undefined],
  ]);
  assert.deepEqual(logs.errors.map((line) => [line.tool_call_id, line.provider]), [
    ["call-1", { name: "nope__tool", id: null }],
    ["plan-1", undefined],
  ]);
  // Without a provider origin the key is absent, not null.
  assert.equal("provider" in (logs.tools[1] ?? {}), false);
});

/** Records `entries` with an artifact store; returns tools.jsonl and the artifacts' texts by ref. */
async function recordKept(
  entries: CallRecord[],
  inlineBytes: number,
  secrets: string[] = [],
  maxBytes = 1 << 20,
) {
  const runsDir = await Deno.makeTempDir({ prefix: "kagent_record_test_" });
  try {
    const folder = await RunFolder.create(runsDir);
    const redactor = new Redactor({ secrets });
    const recorder = new AuditRecorder({ folder, redactor });
    const artifacts = new ArtifactStore({
      artifactsDir: folder.paths.artifacts,
      runDir: folder.dir,
      maxBytes,
    });
    for (const entry of entries) {
      await record(recorder, entry, { artifacts, redactor, inlineBytes });
    }
    await recorder.close();
    const tools = (await Deno.readTextFile(folder.paths.toolsLog)).split("\n")
      .filter((line) => line !== "").map((line) => JSON.parse(line));
    const files = new Map<string, string>();
    const names = await Array.fromAsync(Deno.readDir(folder.paths.artifacts)).catch(() => []);
    for (const { name } of names) {
      files.set(`artifacts/${name}`, await Deno.readTextFile(`${folder.paths.artifacts}/${name}`));
    }
    return { tools, files };
  } finally {
    await Deno.remove(runsDir, { recursive: true });
  }
}

function succeeded(id: string, output: string, data: unknown = null): ToolResult {
  return {
    tool_call_id: id,
    tool: "fs.read_file",
    ok: true,
    summary: "Read",
    output,
    data,
    artifacts: [],
    error: null,
    duration_ms: 1,
  };
}

Deno.test("record keeps the output inline when it fits and as a sha256-named artifact when it does not", async () => {
  const small = "x".repeat(64);
  const large = "é".repeat(40); // 80 UTF-8 bytes: over an inline size of 64 bytes
  const { tools, files } = await recordKept([
    { ...entry(succeeded("small", small)), arguments_text: '{"path":"a"}' },
    {
      ...entry(succeeded("large", large)),
      arguments_text: JSON.stringify({ path: "y".repeat(80) }),
    },
  ], 64);
  const [first, second] = tools;
  assert.equal(first.result.output, small);
  assert.equal(first.result.output_artifact, null);
  assert.equal(first.arguments, '{"path":"a"}');
  assert.equal(first.arguments_artifact, null);
  assert.equal(second.result.output, null);
  const kept = second.result.output_artifact;
  assert.equal(files.get(kept.ref), large);
  assert.equal(kept.sha256, createHash("sha256").update(large).digest("hex"));
  assert.equal(kept.sha256, second.hashes.output_sha256);
  assert.equal(kept.bytes, 80);
  assert.equal(second.arguments, null);
  assert.equal(files.get(second.arguments_artifact.ref), JSON.stringify({ path: "y".repeat(80) }));
  assert.match(second.arguments_artifact.ref, /^artifacts\/[0-9a-f]{64}\.json$/);
});

Deno.test("record's output hash is the whole output's, reused from its artifact only when kept whole", async () => {
  const whole = "w".repeat(100);
  const cut = "c".repeat(300); // over the store's 200 bytes: the artifact keeps a head only
  const { tools } = await recordKept(
    [entry(succeeded("whole", whole)), entry(succeeded("cut", cut))],
    64,
    [],
    200,
  );
  const sha = (text: string) => createHash("sha256").update(text).digest("hex");
  const [first, second] = tools;
  assert.equal(first.hashes.output_sha256, sha(whole));
  assert.equal(first.result.output_artifact.sha256, sha(whole));
  // Near miss: the cut artifact's hash is of its 200 bytes; the record still names the output's.
  assert.equal(second.result.output_artifact.bytes, 200);
  assert.equal(second.result.output_artifact.sha256, sha(cut.slice(0, 200)));
  assert.equal(second.hashes.output_sha256, sha(cut));
});

Deno.test("record redacts the arguments when it keeps them as an artifact", async () => {
  const secret = "canary-secret-value-123";
  const text = JSON.stringify({ path: "notes.txt", content: `key ${secret} ${"z".repeat(100)}` });
  const { tools, files } = await recordKept(
    [{ ...entry(succeeded("w", "ok")), arguments_text: text }],
    64,
    [secret],
  );
  const kept = files.get(tools[0].arguments_artifact.ref) ?? "";
  assert.doesNotMatch(kept, /canary-secret-value-123/);
  assert.match(kept, /\[REDACTED:secret_env\]/);
  for (const content of files.values()) assert.doesNotMatch(content, /canary-secret/);
});

Deno.test("record writes who approved a call and a command's exit code when they are known", async () => {
  const command = {
    ...succeeded("cmd", "", { argv: ["ls", "missing"], exit_code: 2, signal: null }),
    tool: "exec.run_command",
  };
  const { tools } = await recordKept([
    {
      ...entry(command),
      approval: {
        by: "terminal",
        scope: ['command:/bin/ls ["missing"] in <run>/workspace'],
        approver: "terminal",
        choice: "allow_once",
      },
    },
    {
      ...entry(succeeded("read", "text")),
      approval: { by: "rule", rule: "default:readonly", scope: ["read:/w/a"] },
    },
    entry(unknownTool("nope", "fs.teleport")),
  ], 1024);
  assert.deepEqual(
    tools.map((line) => [line.tool_call_id, line.approval?.by ?? null, line.exit_code]),
    [
      ["cmd", "terminal", 2],
      ["read", "rule", undefined],
      ["nope", null, undefined],
    ],
  );
  assert.equal(tools[0].signal, null);
  assert.equal(tools[0].approval.choice, "allow_once");
  // Not a command: no exit_code key at all.
  assert.equal("exit_code" in tools[1], false);
});
