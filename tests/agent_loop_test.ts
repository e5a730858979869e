// The agent loop over the real pipeline: every call answered by id, max_turns, denials fed back.
import assert from "node:assert/strict";
import { runAgent, ScriptProvider } from "../src/agent/mod.ts";
import { openTestRun } from "../src/testing/run_harness.ts";
import { describeTool } from "../src/tools/tool_definition.ts";

async function agentRun(lines: unknown[], maxTurns = 10) {
  const run = await openTestRun({
    prepare: (sandbox) => Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "alpha\n"),
  });
  const provider = ScriptProvider.fromText(lines.map((line) => JSON.stringify(line)).join("\n"));
  const outcome = await runAgent({
    provider,
    runtime: run.session.runtime,
    recorder: run.session.recorder,
    tools: run.session.registry.list().map((tool) => describeTool(tool.definition)).filter((tool) =>
      run.session.policy.isAvailable(tool.name)
    ),
    system: "test",
    task: "test",
    run: {
      run_id: run.session.folder.id,
      workspace: run.sandbox.workspace,
      deliverables: run.session.folder.paths.deliverables,
      scratch: run.session.folder.paths.workspace,
    },
    maxTurns,
  });
  return { run, provider, outcome };
}

Deno.test("agent loop answers every tool call by id, denials and bad arguments included", async () => {
  const { run, provider, outcome } = await agentRun([
    {
      tool_calls: [
        { id: "ok", name: "fs.read_file", arguments: { path: "a.txt" } },
        { id: "bad-json", name: "fs.read_file", arguments: "{oops" },
        { id: "unknown", name: "fs.teleport", arguments: {} },
        { id: "outside", name: "fs.read_file", arguments: { path: "/etc/passwd" } },
      ],
    },
    { content: "done" },
  ]);
  await using _ = run;
  assert.equal(outcome.end_reason, "completed");
  assert.equal(outcome.final_text, "done");
  assert.deepEqual(
    outcome.results.map((result) => [result.tool_call_id, result.error?.type ?? "ok"]),
    [
      ["ok", "ok"],
      ["bad-json", "invalid_arguments"],
      ["unknown", "tool_not_available"],
      ["outside", "skipped"], /* a denial (the unknown tool) stops the rest of the turn */
    ],
  );
  // The second request carries one tool message per call, paired by id.
  const second = provider.requests[1];
  assert.ok(second);
  const toolMessages = second.messages.filter((message) => message.role === "tool");
  assert.deepEqual(
    toolMessages.map((message) => message.role === "tool" ? message.tool_call_id : ""),
    ["ok", "bad-json", "unknown", "outside"],
  );
  assert.doesNotMatch(JSON.stringify(second.messages), /root:x:0:0/);
  // Only the effective tool set is offered: fs.delete_file is off.
  assert.ok(!second.tools.some((tool) => tool.name === "fs.delete_file"));
});

Deno.test("agent loop stops at max_turns", async () => {
  const turn = { tool_calls: [{ name: "fs.list_files", arguments: { path: "." } }] };
  const { run, outcome } = await agentRun([turn, turn, turn, turn], 2);
  await using _ = run;
  assert.equal(outcome.end_reason, "max_turns");
  assert.equal(outcome.turns, 2);
  assert.equal(outcome.results.length, 2);
});
