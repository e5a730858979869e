import assert from "node:assert/strict";
import { ModelError, type ModelRequest } from "../model_provider.ts";
import { ScriptProvider } from "./script_provider.ts";

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
