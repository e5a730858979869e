import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../tools/tool_definition.ts";
import { callTool } from "./call_tool.ts";
import { createTempSandbox } from "./temp_sandbox.ts";
import { createTestContext } from "./tool_context.ts";

const echo = defineTool({
  name: "demo.echo",
  description: "Returns its text",
  parameters: z.strictObject({ text: z.string(), times: z.number().int().min(1).default(1) }),
  permission: "readonly",
  tags: ["demo"],
  handler: (args) => {
    if (args.text === "boom") throw new Error("exploded");
    return args.text.repeat(args.times ?? 1);
  },
});

Deno.test("callTool runs the handler without filling defaults when the arguments are valid", async () => {
  await using sandbox = await createTempSandbox();
  const context = await createTestContext({ workspace: sandbox.workspace });
  const outcome = await callTool(echo, { text: "hi" }, context);
  assert.equal(outcome.ok, true);
  assert.equal(outcome.output, "hi");
});

Deno.test("callTool returns invalid_arguments without running the handler when the schema fails", async () => {
  await using sandbox = await createTempSandbox();
  const context = await createTestContext({ workspace: sandbox.workspace });
  for (
    const args of [{}, { text: 1 }, { text: "x", times: 0 }, { text: "x", extra: true }, {
      text: "x",
      times: "2",
    }]
  ) {
    const outcome = await callTool(echo, args, context);
    assert.equal(outcome.error?.type, "invalid_arguments", JSON.stringify(args));
  }
});

Deno.test("callTool returns internal_error when the handler throws", async () => {
  await using sandbox = await createTempSandbox();
  const context = await createTestContext({ workspace: sandbox.workspace });
  const outcome = await callTool(echo, { text: "boom" }, context);
  assert.equal(outcome.error?.type, "internal_error");
  assert.match(outcome.error?.message ?? "", /exploded/);
});
