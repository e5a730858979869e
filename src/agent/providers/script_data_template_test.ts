import assert from "node:assert/strict";
import { ModelError, type ModelRequest } from "../model_provider.ts";
import { ScriptProvider } from "./script_provider.ts";

const run = { run_id: "r1", workspace: "/w", deliverables: "/d", scratch: "/s" };

function answered(data: unknown): ModelRequest {
  return {
    system: "",
    tools: [],
    run,
    messages: [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "claim", name: "agent.task_claim_step", arguments: "{}" }],
      },
      {
        role: "tool",
        tool_call_id: "claim",
        name: "agent.task_claim_step",
        content: "Claimed",
        result: {
          tool_call_id: "claim",
          tool: "agent.task_claim_step",
          ok: true,
          summary: "Claimed",
          output: "Claimed",
          data,
          artifacts: [],
          error: null,
          duration_ms: 1,
        },
      },
    ],
  };
}

Deno.test("a script template reads a value inside an earlier result's data", async () => {
  const script = ScriptProvider.fromText(JSON.stringify({
    tool_calls: [{
      name: "agent.task_update_step",
      arguments: { step_id: "{{claim.data.step.id}}", result: "{{claim.data.step.depends_on}}" },
    }],
  }));
  const turn = await script.complete(answered({ step: { id: "build", depends_on: ["a"] } }));
  assert.deepEqual(JSON.parse(turn.tool_calls[0]?.arguments ?? ""), {
    step_id: "build",
    result: '["a"]',
  });
});

Deno.test("a script template naming data that is not there is a script error", async () => {
  const script = ScriptProvider.fromText(JSON.stringify({ content: "{{claim.data.step.id}}" }));
  await assert.rejects(
    () => script.complete(answered(null)),
    (error) => error instanceof ModelError && error.code === "script_invalid",
  );
});
