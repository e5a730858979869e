// A whole run against an OpenAI-compatible endpoint served on loopback: the model reads a file,
// edits a workspace file, writes a deliverable, and answers; tool names are mangled on the wire
// and mapped back.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as nodePath from "node:path";
import { createProject, onlyRunDir, readJsonl, runCli } from "./_cli_helpers.ts";

interface ChatRequest {
  model: string;
  messages: { role: string; content?: string | null; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
}

function chat(message: Record<string, unknown>, finish = "stop") {
  return Response.json({
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 11, completion_tokens: 7 },
  });
}

Deno.test("kagent-run drives an OpenAI-compatible model end to end: read, edit, deliverable, answer", async () => {
  const seen: ChatRequest[] = [];
  const headers: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.json() as ChatRequest;
      seen.push(body);
      headers.push(request.headers.get("authorization") ?? "");
      const results = body.messages.filter((message) => message.role === "tool").length;
      if (results === 0) {
        return chat({
          content: null,
          tool_calls: [{
            id: "call_read",
            type: "function",
            function: { name: "fs__read_file", arguments: '{"path":"README.md"}' },
          }],
        }, "tool_calls");
      }
      if (results === 1) {
        return chat({
          content: null,
          tool_calls: [{
            id: "call_edit",
            type: "function",
            function: {
              name: "fs__edit_file",
              arguments: JSON.stringify({
                path: "src/main.ts",
                edits: [{ old: "// TODO: write the program", new: "// Prints one" }],
              }),
            },
          }],
        }, "tool_calls");
      }
      if (results === 2) {
        const system = body.messages.find((message) => message.role === "system")?.content ?? "";
        const deliverables = /hand over \(reports, patches\) under "([^"]+)"/.exec(system)?.[1] ??
          "missing";
        return chat({
          content: null,
          tool_calls: [{
            id: "call_write",
            type: "function",
            function: {
              name: "fs__write_file",
              arguments: JSON.stringify({
                path: `${deliverables}/summary.md`,
                content: "# Summary\nA small project.\n",
              }),
            },
          }],
        }, "tool_calls");
      }
      return chat({ content: "Summary written." });
    },
  );
  Deno.env.set("KAGENT_TEST_OPENAI_KEY", "sk-test-key-not-real-1234567890");
  try {
    await using project = await createProject({
      config: {
        model: {
          provider: "openai",
          model: "test-model",
          base_url: `http://127.0.0.1:${server.addr.port}/v1`,
          api_key_env: "KAGENT_TEST_OPENAI_KEY",
          retries: 0,
        },
        task: "Summarise the project into a deliverable and resolve the TODO in src/main.ts",
      },
      permissions: {
        rules: [{ tools: ["fs.edit_file"], paths: ["src/main.ts"], decision: "allow" }],
      },
    });
    const { code, stdout, stderr } = await runCli(["--config", project.configPath]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /Summary written\./);
    const runDir = await onlyRunDir(project);
    assert.equal(
      await Deno.readTextFile(nodePath.join(runDir, "deliverables/summary.md")),
      "# Summary\nA small project.\n",
    );
    // The edit changed only the TODO line: the rest of the file is kept, the README untouched.
    const workspace = project.sandbox.workspace;
    assert.equal(
      await Deno.readTextFile(nodePath.join(workspace, "src/main.ts")),
      "// Prints one\nconsole.log(1);\n",
    );
    assert.equal(
      await Deno.readTextFile(nodePath.join(workspace, "README.md")),
      "# Demo\n\nA small project.\n",
    );
    // The wire: mangled names, only the effective set, results paired by id, the key as a header only.
    const tools = seen[0]?.tools?.map((tool) => tool.function.name) ?? [];
    assert.ok(
      tools.includes("fs__read_file") && !tools.includes("fs__delete_file"),
      tools.join(","),
    );
    const toolMessages = seen[3]?.messages.filter((message) => message.role === "tool") ?? [];
    assert.deepEqual(toolMessages.map((message) => message.tool_call_id), [
      "call_read",
      "call_edit",
      "call_write",
    ]);
    // The model read the edit's diff.
    assert.match(
      toolMessages[1]?.content ?? "",
      /-\/\/ TODO: write the program\n\+\/\/ Prints one/,
    );
    assert.ok(headers.every((header) => header === "Bearer sk-test-key-not-real-1234567890"));
    for (const file of ["events.jsonl", "logs/tools.jsonl", "logs/errors.jsonl"]) {
      assert.doesNotMatch(
        await Deno.readTextFile(nodePath.join(runDir, file)),
        /sk-test-key-not-real/,
      );
    }
    const turns = (await readJsonl(nodePath.join(runDir, "events.jsonl"))).filter((event) =>
      event.type === "model.responded"
    );
    assert.equal(turns.length, 4);
    assert.deepEqual(turns[0]?.usage, { input_tokens: 11, output_tokens: 7 });
    // The model's raw names and ids are kept beside the canonical ones.
    assert.deepEqual(turns[1]?.tool_calls, [
      {
        id: "call_edit",
        name: "fs.edit_file",
        provider: { name: "fs__edit_file", id: "call_edit" },
      },
    ]);
  } finally {
    Deno.env.delete("KAGENT_TEST_OPENAI_KEY");
    await server.shutdown();
  }
});

Deno.test("kagent-run refuses to start when the API key variable is unset (exit 2)", async () => {
  await using project = await createProject({
    config: {
      model: {
        provider: "openai",
        model: "m",
        base_url: "http://127.0.0.1:9/v1",
        api_key_env: "KAGENT_TEST_UNSET_KEY",
      },
      task: "x",
    },
  });
  const { code, stderr } = await runCli(["--config", project.configPath]);
  assert.equal(code, 2);
  assert.match(stderr, /"KAGENT_TEST_UNSET_KEY" named by "model.api_key_env" is not set/);
});

Deno.test("model.strict sends every tool in strict mode and the run still reads with optional arguments left out", async () => {
  const seen: {
    tools?: { function: { name: string; strict?: boolean; parameters: Record<string, unknown> } }[];
    messages: { role: string; content?: string | null }[];
  }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.json();
      seen.push(body);
      if (seen.length === 1) {
        // Strict mode: optional properties arrive as null; the runtime must see them left out.
        return chat({
          content: null,
          tool_calls: [{
            id: "call_read",
            type: "function",
            function: {
              name: "fs__read_file",
              arguments: '{"path":"README.md","start_line":null,"max_lines":null}',
            },
          }],
        }, "tool_calls");
      }
      return chat({ content: "Read." });
    },
  );
  try {
    await using project = await createProject({
      config: {
        model: {
          provider: "openai",
          model: "test-model",
          base_url: `http://127.0.0.1:${server.addr.port}/v1`,
          retries: 0,
          strict: true,
        },
        task: "Read the README",
      },
    });
    const { code, stderr } = await runCli(["--config", project.configPath, "--quiet"]);
    assert.equal(code, 0, stderr);
    const tools = seen[0]?.tools ?? [];
    assert.ok(tools.length > 0);
    for (const tool of tools) {
      assert.equal(tool.function.strict, true, tool.function.name);
      const parameters = tool.function.parameters as {
        properties: Record<string, unknown>;
        required: string[];
        additionalProperties: boolean;
      };
      assert.equal(parameters.additionalProperties, false, tool.function.name);
      assert.deepEqual(
        [...parameters.required].sort(),
        Object.keys(parameters.properties).sort(),
        tool.function.name,
      );
    }
    const result = seen[1]?.messages.find((message) => message.role === "tool");
    assert.match(result?.content ?? "", /A small project\./);
    // The audit pins both texts: what the model sent, and what the runtime checked.
    const [record] = await readJsonl(nodePath.join(await onlyRunDir(project), "logs/tools.jsonl"));
    const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
    assert.deepEqual(record?.provider, {
      name: "fs__read_file",
      id: "call_read",
      arguments_sha256: sha256('{"path":"README.md","start_line":null,"max_lines":null}'),
    });
    assert.equal(
      (record?.hashes as { arguments_sha256?: string } | undefined)?.arguments_sha256,
      sha256('{"path":"README.md"}'),
    );
  } finally {
    await server.shutdown();
  }
});
