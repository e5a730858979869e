import assert from "node:assert/strict";
import { ModelError, type ModelRequest } from "../model_provider.ts";
import { MAX_PLAN_LINE_DEPTH, ScriptProvider } from "./script_provider.ts";

const run = {
  run_id: "r1",
  workspace: "/w",
  deliverables: "/runs/r1/deliverables",
  scratch: "/runs/r1/workspace",
};
const request = (messages: ModelRequest["messages"] = []): ModelRequest => ({
  system: "",
  messages,
  tools: [],
  run,
});

Deno.test("script provider replays turns in order, with ids, raw JSON and templates", async () => {
  const script = ScriptProvider.fromText([
    "// a comment",
    JSON.stringify({
      tool_calls: [{ id: "a", name: "fs.list_files", arguments: { path: "{{run.workspace}}" } }, {
        name: "fs.read_file",
        arguments: "{broken",
      }],
    }),
    "",
    JSON.stringify({ content: "done: {{a.summary}} in {{run.deliverables}}" }),
  ].join("\n"));
  const first = await script.complete(request());
  assert.deepEqual(first.tool_calls, [
    { id: "a", name: "fs.list_files", arguments: '{"path":"/w"}' },
    { id: "script-2-2", name: "fs.read_file", arguments: "{broken" },
  ]);
  const result = {
    tool_call_id: "a",
    tool: "fs.list_files",
    ok: true,
    summary: "Listed 2",
    output: "x\ny",
    data: null,
    artifacts: [],
    error: null,
    duration_ms: 1,
  };
  const second = await script.complete(
    request([{ role: "tool", tool_call_id: "a", name: "fs.list_files", content: "x\ny", result }]),
  );
  assert.equal(second.text, "done: Listed 2 in /runs/r1/deliverables");
  assert.equal(second.tool_calls.length, 0);
  assert.equal(script.requests.length, 2);
  await assert.rejects(
    script.complete(request()),
    (error: unknown) => error instanceof ModelError && error.code === "script_exhausted",
  );
});

Deno.test("script provider refuses malformed scripts naming the line", () => {
  for (
    const [text, reason] of [
      ["{not json}", /line 1: not JSON/],
      ['{"tool_calls": [], "extra": 1}', /line 1: "extra" is not a known key/],
      ['\n{"tool_calls": [{"name": ""}]}', /line 2: tool_calls\[0\]\.name must be a tool name/],
      ["{}", /needs "content" or "tool_calls"/],
      ["[1]", /must be a JSON object/],
      [
        '// one\n\n{"tool_calls": [{"name": "fs.read_file", "arguments": [1]}]}',
        /line 3: tool_calls\[0\]\.arguments must be an object, or a string of raw JSON text/,
      ],
      ['{"tool_calls": [{"id": "", "name": "x"}]}', /line 1: tool_calls\[0\]\.id must be/],
    ] as const
  ) {
    assert.throws(
      () => ScriptProvider.fromText(text, "plan.jsonl"),
      (error: unknown) =>
        error instanceof ModelError && error.code === "script_invalid" &&
        reason.test(error.message) && error.message.includes('"plan.jsonl"'),
    );
  }
});

Deno.test("script provider fails a turn whose template names a call that has no result", async () => {
  const script = ScriptProvider.fromText(JSON.stringify({ content: "{{missing.output}}" }));
  await assert.rejects(script.complete(request()), /Cannot fill "\{\{missing\.output\}\}"/);
});

Deno.test("script provider names the file and the line of a malformed plan read from disk", async () => {
  const folder = await Deno.makeTempDir();
  try {
    const path = `${folder}/plan.jsonl`;
    await Deno.writeTextFile(path, '{"content": "ok"}\n{"tool_calls": [{"name": 5}]}\n');
    const error = await ScriptProvider.fromFile(path).then(() => null, (error) => error);
    assert.ok(error instanceof ModelError && error.code === "script_invalid");
    assert.equal(
      error.message,
      `Cannot load script "${path}": line 2: tool_calls[0].name must be a tool name`,
    );
    assert.deepEqual(error.details, { line: 2 });
    // Near miss: the same plan with a name loads.
    await Deno.writeTextFile(path, '{"content": "ok"}\n{"tool_calls": [{"name": "fs.x"}]}\n');
    assert.equal((await ScriptProvider.fromFile(path)).remaining, 2);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("script provider refuses a plan line nested deeper than its limit before parsing it", async () => {
  const depth = 2_000_000;
  const nested = `${"[".repeat(depth)}"{{run.id}}"${"]".repeat(depth)}`;
  let error: unknown = null;
  try {
    ScriptProvider.fromText(
      `{"tool_calls": [{"id": "deep", "name": "fs.read_file", "arguments": {"path": ${nested}}}]}`,
    );
  } catch (thrown) {
    error = thrown;
  }
  assert.ok(error instanceof ModelError);
  assert.equal(error.code, "script_invalid");
  assert.match(
    error.message,
    new RegExp(
      `line 1: nested ${depth + 4} levels deep, more than the limit of ${MAX_PLAN_LINE_DEPTH}`,
    ),
  );
  // Near miss: arguments one level deeper than any config accepts still load and are filled, so
  // the runtime's depth cap answers invalid_arguments; deeper ones pass as raw JSON text.
  const levels = MAX_PLAN_LINE_DEPTH - 4;
  const inner = `${"[".repeat(levels)}"{{run.id}}"${"]".repeat(levels)}`;
  const script = ScriptProvider.fromText(
    [
      `{"tool_calls": [{"id": "deep", "name": "fs.read_file", "arguments": {"path": ${inner}}}]}`,
      JSON.stringify({ tool_calls: [{ name: "fs.read_file", arguments: `{"path":${nested}}` }] }),
    ].join("\n"),
  );
  const [call] = (await script.complete(request())).tool_calls;
  assert.ok(call?.arguments.endsWith(`"r1"${"]".repeat(levels)}}`));
  const [raw] = (await script.complete(request())).tool_calls;
  assert.equal(raw?.arguments.length, `{"path":${nested}}`.length);
});

Deno.test("script provider keeps a __proto__ key of the plan as a plain property", async () => {
  const script = ScriptProvider.fromText(
    '{"tool_calls": [{"name": "x.y", "arguments": {"__proto__": {"path": "a"}}}]}',
  );
  const [call] = (await script.complete(request())).tool_calls;
  assert.equal(call?.arguments, '{"__proto__":{"path":"a"}}');
});

Deno.test("script provider fills a repeated id's template from the latest call with that id", async () => {
  const script = ScriptProvider.fromText(
    JSON.stringify({ content: "{{a.output}}" }),
    "plan.jsonl",
  );
  const result = (output: string) => ({
    tool_call_id: "",
    tool: "fs.read_file",
    ok: true,
    summary: output,
    output,
    data: null,
    artifacts: [],
    error: null,
    duration_ms: 1,
  });
  const call = (id: string) => ({ id, name: "fs.read_file", arguments: "{}" });
  // The loop renamed the plan's second "a" to "a-2" and kept "a" as its raw id.
  const turn = await script.complete(request([
    { role: "assistant", content: null, tool_calls: [call("a")] },
    {
      role: "tool",
      tool_call_id: "a",
      name: "fs.read_file",
      content: "first",
      result: result("first"),
    },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ ...call("a-2"), provider: { name: "fs.read_file", id: "a" } }],
    },
    {
      role: "tool",
      tool_call_id: "a-2",
      name: "fs.read_file",
      content: "second",
      result: result("second"),
    },
  ]));
  assert.equal(turn.text, "second");
});

Deno.test("script provider names the last line when the plan runs out", async () => {
  const script = ScriptProvider.fromText('{"tool_calls": [{"name": "x.y"}]}\n// end', "plan.jsonl");
  await script.complete(request());
  const error = await script.complete(request()).then(() => null, (error) => error);
  assert.ok(error instanceof ModelError && error.code === "script_exhausted");
  assert.match(
    error.message,
    /^Cannot continue script "plan\.jsonl": it has no more turns after line 1/,
  );
});
