/**
 * Child agents with their own models: a scripted main agent starts an OpenAI-compatible child and
 * an Anthropic child in parallel, each served on loopback; each reads a file with its own tool set
 * (never the parent's: no agent tools on the wire), and the parent gets their answers and usage.
 */

import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";

interface SeenRequest {
  provider: "openai" | "anthropic";
  tools: string[];
  results: number;
}

/** One loopback server answering both APIs: a read of README.md, then a final answer. */
function serveModels(seen: SeenRequest[]): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const body = await request.json();
    if (new URL(request.url).pathname.endsWith("/chat/completions")) {
      const results = body.messages.filter((message: { role: string }) => message.role === "tool")
        .length;
      seen.push({
        provider: "openai",
        tools: (body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name),
        results,
      });
      const message = results === 0
        ? {
          content: null,
          tool_calls: [{
            id: "call_read",
            type: "function",
            function: { name: "fs__read_file", arguments: '{"path":"README.md"}' },
          }],
        }
        : { content: "OpenAI child: the README is about a demo." };
      return Response.json({
        choices: [{
          index: 0,
          message: { role: "assistant", ...message },
          finish_reason: results === 0 ? "tool_calls" : "stop",
        }],
        usage: { prompt_tokens: 11, completion_tokens: 7 },
      });
    }
    const results = body.messages.flatMap((message: { content: unknown }) =>
      Array.isArray(message.content)
        ? message.content.filter((block: { type: string }) =>
          block.type === "tool_result"
        )
        : []
    ).length;
    seen.push({
      provider: "anthropic",
      tools: (body.tools ?? []).map((tool: { name: string }) => tool.name),
      results,
    });
    const content = results === 0
      ? [{
        type: "tool_use",
        id: "toolu_read",
        name: "fs__read_file",
        input: { path: "README.md" },
      }]
      : [{ type: "text", text: "Anthropic child: the README is about a demo." }];
    return Response.json({
      id: "msg",
      type: "message",
      role: "assistant",
      content,
      stop_reason: results === 0 ? "tool_use" : "end_turn",
      usage: { input_tokens: 9, output_tokens: 5 },
    });
  });
}

Deno.test("children on OpenAI and Anthropic models (loopback) run with their own tool sets and report usage", async () => {
  const seen: SeenRequest[] = [];
  const server = serveModels(seen);
  try {
    const base = `http://127.0.0.1:${server.addr.port}/v1`;
    await using project = await createProject({
      config: {
        agents: {
          "openai-reader": {
            description: "Reads with an OpenAI-compatible model",
            agent_type: "sub",
            model: { provider: "openai", model: "test-model", base_url: base, retries: 0 },
          },
          "anthropic-reader": {
            description: "Reads with an Anthropic model",
            agent_type: "sub",
            model: { provider: "anthropic", model: "test-model", base_url: base, retries: 0 },
          },
        },
      },
      plan: [
        JSON.stringify({
          tool_calls: ["openai-reader", "anthropic-reader"].map((id) => ({
            id,
            name: "agent.create_sub_agent",
            arguments: { agent_id: id, task: "What is README.md about?" },
          })),
        }),
        JSON.stringify({
          content: "{{openai-reader.data.final_text}} / {{anthropic-reader.data.final_text}}",
        }),
      ],
    });
    const { code, stdout, stderr } = await runCli(["run", "--config", project.configPath]);
    assert.equal(code, 0, stderr);
    assert.match(
      stdout,
      /OpenAI child: the README is about a demo\. \/ Anthropic child: the README is about a demo\./,
    );
    // Each child sent its own effective set: file tools yes, agent tools (the parent's) no.
    for (const provider of ["openai", "anthropic"] as const) {
      const first = seen.find((request) => request.provider === provider);
      assert.ok(first?.tools.includes("fs__read_file"), provider);
      assert.ok(!first?.tools.some((name) => name.startsWith("agent__create")), provider);
      assert.ok(seen.some((request) => request.provider === provider && request.results === 1));
    }
    const runDir = await onlyRunDir(project);
    const completed = (await readJsonl(nodePath.join(runDir, "events.jsonl")))
      .filter((event) => event.type === "agent.completed");
    const usage = Object.fromEntries(completed.map((event) => [event.definition, event.usage]));
    assert.deepEqual(usage, {
      "openai-reader": { input_tokens: 22, output_tokens: 14 },
      "anthropic-reader": { input_tokens: 18, output_tokens: 10 },
    });
    // Each child's run.json names its own model.
    for (const event of completed) {
      const info = JSON.parse(
        await Deno.readTextFile(
          nodePath.join(runDir, "agents", String(event.child_run_id), "run.json"),
        ),
      );
      assert.equal(info.model.provider, String(event.definition).split("-")[0]);
    }
  } finally {
    await server.shutdown();
  }
});
