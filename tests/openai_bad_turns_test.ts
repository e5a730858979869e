// Whole runs against an OpenAI-compatible endpoint on loopback whose turns end badly: a turn cut
// off at max_tokens never runs its calls (or is retried once with model.retry_truncated), a
// refusal ends the run failed with its text, and ids the server repeats are made unique. Each
// beside its near miss that must still work.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";
import { verifyRun } from "../src/verify/mod.ts";

interface ChatRequest {
  messages: { role: string; content?: string | null; tool_call_id?: string }[];
  max_completion_tokens?: number;
}

function chat(message: Record<string, unknown>, finish = "stop") {
  return Response.json({
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 11, completion_tokens: 7 },
  });
}

/**
 * A run whose model answers from `answer(body, index)` on a loopback OpenAI-compatible server;
 * returns the CLI's result, the requests the server saw, and the run folder.
 */
async function chatRun(
  answer: (body: ChatRequest, index: number) => Response,
  model: Record<string, unknown> = {},
  args: string[] = [],
) {
  const seen: ChatRequest[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.json();
      seen.push(body);
      return answer(body, seen.length - 1);
    },
  );
  try {
    const project = await createProject({
      config: {
        model: {
          provider: "openai",
          model: "test-model",
          base_url: `http://127.0.0.1:${server.addr.port}/v1`,
          retries: 0,
          ...model,
        },
        task: "Write the report",
      },
    });
    const result = await runCli(["--config", project.configPath, ...args]);
    const runDir = await onlyRunDir(project);
    const log = (file: string) => readJsonl(nodePath.join(runDir, file));
    return { ...result, seen, project, runDir, log };
  } finally {
    await server.shutdown();
  }
}

/** The deliverables folder the system prompt names. */
function deliverablesOf(body: ChatRequest): string {
  const system = body.messages.find((message) => message.role === "system")?.content ?? "";
  return /hand over \(reports, patches\) under "([^"]+)"/.exec(system)?.[1] ?? "missing";
}

/** A complete fs.write_file call of the deliverable `report.md`, ended with `finish`. */
function writeReport(body: ChatRequest, finish: string, id = "call_write") {
  return chat({
    content: null,
    tool_calls: [{
      id,
      type: "function",
      function: {
        name: "fs__write_file",
        arguments: JSON.stringify({
          path: `${deliverablesOf(body)}/report.md`,
          content: "# Report\nThe project is",
        }),
      },
    }],
  }, finish);
}

Deno.test("kagent-run never runs the tool calls of a turn cut off at max_tokens: no deliverable, model_error truncated", async () => {
  const run = await chatRun((body, index) =>
    index === 0 ? writeReport(body, "length") : chat({ content: "Report written." })
  );
  await using _ = run.project;
  assert.notEqual(run.code, 0, run.stderr);
  await assert.rejects(Deno.lstat(nodePath.join(run.runDir, "deliverables/report.md")));
  assert.equal(run.seen.length, 1, "the run ends at the cut-off turn");
  const events = await run.log("events.jsonl");
  assert.equal(events.find((event) => event.type === "tool.started"), undefined);
  const end = events.find((event) => event.type === "run.completed");
  assert.equal(end?.end_reason, "model_error");
  assert.equal(end?.error_code, "truncated");
  assert.match(String(end?.error), /cut off at the output limit \(finish_reason "length"\)/);
  assert.match(String(end?.error), /call_write fs\.write_file\) was not executed/);
  const skipped = events.find((event) => event.type === "tool.skipped");
  assert.equal(skipped?.tool_call_id, "call_write");
  assert.equal(skipped?.executed, false);
  // The audit shows the cut-off call with its id, as not executed.
  const [record] = await run.log("logs/tools.jsonl");
  assert.equal(record?.tool_call_id, "call_write");
  assert.equal(record?.executed, false);
  assert.equal((record?.result as { error_type?: string }).error_type, "skipped");
  // What the model sent is kept, so the audit shows what would have been written.
  assert.match(String(record?.arguments), /The project is/);
  const errors = await run.log("logs/errors.jsonl");
  assert.deepEqual(errors.map((line) => [line.source, line.tool_call_id ?? line.code]), [
    ["tool", "call_write"],
    ["model", "truncated"],
  ]);
  assert.deepEqual(errors[1]?.stop, { reason: "truncated", finish_reason: "length" });
  assert.deepEqual(errors[1]?.not_executed, ["call_write"]);
  assert.match(run.stderr, /run model_error/);
});

Deno.test("kagent-run runs the same write when the turn ended with finish_reason tool_calls", async () => {
  const run = await chatRun((body, index) =>
    index === 0 ? writeReport(body, "tool_calls") : chat({ content: "Report written." })
  );
  await using _ = run.project;
  assert.equal(run.code, 0, run.stderr);
  assert.equal(
    await Deno.readTextFile(nodePath.join(run.runDir, "deliverables/report.md")),
    "# Report\nThe project is",
  );
});

Deno.test("model.retry_truncated asks a cut-off turn again once at twice max_tokens", async () => {
  const run = await chatRun(
    (body, index) =>
      index === 0
        ? writeReport(body, "length")
        : index === 1
        ? writeReport(body, "tool_calls")
        : chat({ content: "Report written." }),
    { max_tokens: 64, retry_truncated: true },
  );
  await using _ = run.project;
  assert.equal(run.code, 0, run.stderr);
  // The retry alone carries the higher limit; the next turn is back at the configured one.
  assert.deepEqual(run.seen.map((body) => body.max_completion_tokens), [64, 128, 64]);
  assert.equal(
    await Deno.readTextFile(nodePath.join(run.runDir, "deliverables/report.md")),
    "# Report\nThe project is",
  );
  const events = await run.log("events.jsonl");
  const retry = events.find((event) => event.type === "model.retried");
  assert.deepEqual([retry?.turn, retry?.reason, retry?.max_tokens], [1, "truncated", 128]);
  // The cut-off call stays recorded as not executed; the retried one (same raw id) ran.
  const records = await run.log("logs/tools.jsonl");
  assert.deepEqual(records.map((record) => [record.tool_call_id, record.executed ?? true]), [
    ["call_write", false],
    ["call_write-2", true],
  ]);
});

Deno.test("model.retry_truncated ends the run truncated when the retry is cut off too", async () => {
  const run = await chatRun((body) => writeReport(body, "length"), {
    max_tokens: 64,
    retry_truncated: true,
  });
  await using _ = run.project;
  assert.notEqual(run.code, 0);
  assert.deepEqual(run.seen.map((body) => body.max_completion_tokens), [64, 128]);
  await assert.rejects(Deno.lstat(nodePath.join(run.runDir, "deliverables/report.md")));
  const errors = await run.log("logs/errors.jsonl");
  const model = errors.find((line) => line.source === "model");
  assert.equal(model?.code, "truncated");
  assert.match(String(model?.message), /again after one retry at max_tokens 128/);
});

Deno.test("kagent-run ends a refused turn failed with the refusal text, never as an empty response", async () => {
  const refusal = "I can't help with writing that report.";
  const run = await chatRun(() => chat({ content: null, refusal }), {}, ["--output", "json"]);
  await using _ = run.project;
  assert.notEqual(run.code, 0);
  assert.doesNotMatch(run.stderr, /empty response/);
  assert.ok(run.stderr.includes(refusal), run.stderr);
  const report = JSON.parse(run.stdout);
  assert.equal(report.end_reason, "model_error");
  assert.equal(report.error_code, "refused");
  assert.equal(report.error_details.refusal, refusal);
  const errors = await run.log("logs/errors.jsonl");
  assert.deepEqual(errors.map((line) => [line.code, line.refusal, line.stop]), [
    ["refused", refusal, { reason: "refused", finish_reason: "stop" }],
  ]);
  const end = (await run.log("events.jsonl")).find((event) => event.type === "run.completed");
  assert.equal(end?.error_code, "refused");
});

Deno.test("kagent-run completes when the answer carries a null refusal beside its text", async () => {
  const run = await chatRun(() => chat({ content: "All good.", refusal: null }));
  await using _ = run.project;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /All good\./);
  assert.deepEqual(await run.log("logs/errors.jsonl"), []);
});

Deno.test("kagent-run makes an id the server repeats on every turn unique in the audit, keeping the raw id", async () => {
  const read = (path: string) =>
    chat({
      content: null,
      tool_calls: [{
        id: "call_1",
        type: "function",
        function: { name: "fs__read_file", arguments: JSON.stringify({ path }) },
      }],
    }, "tool_calls");
  const run = await chatRun((_body, index) =>
    index === 0 ? read("README.md") : index === 1 ? read("src/main.ts") : chat({ content: "Read." })
  );
  await using _ = run.project;
  assert.equal(run.code, 0, run.stderr);
  const records = await run.log("logs/tools.jsonl");
  assert.deepEqual(records.map((record) => [record.tool_call_id, record.provider]), [
    ["call_1", { name: "fs__read_file", id: "call_1" }],
    ["call_1-2", { name: "fs__read_file", id: "call_1" }],
  ]);
  // The wire pairs each result with its own call.
  const last = run.seen[2]?.messages ?? [];
  assert.deepEqual(
    last.filter((message) => message.role === "tool").map((message) => message.tool_call_id),
    ["call_1", "call_1-2"],
  );
  assert.match(
    last.filter((message) => message.role === "tool")[1]?.content ?? "",
    /TODO: write the program/,
  );
});

Deno.test("kagent-run completes, sealed, when a call skipped after a failure carries arguments nested 100,000 levels deep", async () => {
  const deep = `{"path":"README.md","deep":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
  const turn = (levels: string) =>
    chat({
      content: null,
      tool_calls: [
        // Fails (no path), so the rest of the turn is skipped and recorded, not run.
        { id: "call_bad", type: "function", function: { name: "fs__write_file", arguments: "{}" } },
        {
          id: "call_deep",
          type: "function",
          function: { name: "fs__read_file", arguments: levels },
        },
      ],
    }, "tool_calls");
  const run = await chatRun((_body, index) =>
    index === 0 ? turn(deep) : chat({ content: "Read." })
  );
  await using _ = run.project;
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /Maximum call stack|internal error/);
  const end = (await run.log("events.jsonl")).find((event) => event.type === "run.completed");
  assert.equal(end?.end_reason, "completed");
  assert.equal((await verifyRun(run.runDir)).verdict, "verified");
  const records = await run.log("logs/tools.jsonl");
  const skipped = records.find((record) => record.tool_call_id === "call_deep");
  assert.equal(skipped?.executed, false);
  // The deep arguments are kept as the model sent them (an artifact), their summary is the text.
  assert.equal(typeof skipped?.params, "string");
  // Near miss: shallow arguments skipped the same way are recorded parsed.
  const shallow = await chatRun((_body, index) =>
    index === 0 ? turn('{"path":"README.md"}') : chat({ content: "Read." })
  );
  await using __ = shallow.project;
  assert.equal(shallow.code, 0, shallow.stderr);
  const near = (await shallow.log("logs/tools.jsonl")).find((record) =>
    record.tool_call_id === "call_deep"
  );
  assert.deepEqual(near?.params, { path: "README.md" });
});
