// kagent-run as an MCP server (issue 13 §2): the official SDK client spawns `main.ts mcp` and
// talks to it over stdio, as Claude Code, Codex or the Inspector would.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type CallToolResult,
  ElicitRequestSchema,
  LATEST_PROTOCOL_VERSION,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { exists as pathExists } from "../src/testing/path_exists.ts";
import {
  createProject,
  onlyRunDir,
  type Project,
  readJsonl,
  repository,
  runCli,
  taskFlags,
} from "./_cli_helpers.ts";

/** Connects the official client to `kagent-run mcp` over a project's config. */
async function connect(
  project: Project,
  options: { extraArgs?: string[]; elicit?: string | null } = {},
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      ...taskFlags("kagent-run"),
      nodePath.join(repository, "main.ts"),
      "mcp",
      "--config",
      project.configPath,
      ...(options.extraArgs ?? []),
    ],
    cwd: project.sandbox.root,
    stderr: "pipe",
  });
  const elicit = options.elicit ?? null;
  const client = new Client(
    { name: "kagent-test-client", version: "1.0.0" },
    { capabilities: elicit === null ? {} : { elicitation: { form: {} } } },
  );
  if (elicit !== null) {
    client.setRequestHandler(ElicitRequestSchema, () => ({
      action: "accept",
      content: { decision: elicit },
    }));
  }
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return await client.callTool({ name, arguments: args }) as CallToolResult;
}

function errorOf(result: CallToolResult): Record<string, unknown> {
  const error = (result.structuredContent as { error?: Record<string, unknown> } | undefined)
    ?.error;
  exists(error, `no structured error in ${JSON.stringify(result)}`);
  return error;
}

function includes(text: string, part: string): void {
  assert.ok(text.includes(part), `expected ${JSON.stringify(part)} in ${text}`);
}

function exists<T>(value: T | undefined | null, message?: string): asserts value is T {
  assert.ok(value !== undefined && value !== null, message ?? "expected a value");
}

/** The `result` part of a `logs/tools.jsonl` entry. */
function resultOf(entry: Record<string, unknown>): { ok: boolean; error_type: string | null } {
  return entry.result as { ok: boolean; error_type: string | null };
}

function textOf(result: CallToolResult): string {
  return result.content.map((block: { type: string; text?: string }) =>
    block.type === "text" ? block.text ?? "" : ""
  ).join("\n");
}

Deno.test("kagent-run mcp lists the effective tool set with MCP annotations when a client connects", async () => {
  await using project = await createProject();
  const client = await connect(project);
  try {
    assert.deepEqual(client.getServerVersion()?.name, "kagent-run");
    const tools = (await client.listTools()).tools as Tool[];
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const read = byName.get("fs.read_file");
    const write = byName.get("fs.write_file");
    exists(read);
    exists(write);
    assert.deepEqual(read.annotations?.readOnlyHint, true);
    assert.deepEqual(read.annotations?.destructiveHint, false);
    assert.deepEqual(write.annotations?.readOnlyHint, false);
    assert.deepEqual(read.inputSchema.type, "object");
    assert.ok("path" in (read.inputSchema.properties ?? {}));
    // Destructive tools are off by default: removed from the set, so not offered.
    assert.deepEqual(byName.has("fs.delete_file"), false);
    for (const tool of tools) {
      assert.ok(/^[a-z][a-z0-9_]*(\.[a-z0-9][a-z0-9_-]*)+$/.test(tool.name));
    }
    assert.deepEqual(LATEST_PROTOCOL_VERSION, "2025-11-25");
  } finally {
    await client.close();
  }
});

Deno.test("kagent-run mcp reads a workspace file and records the call when the client calls fs.read_file", async () => {
  await using project = await createProject();
  const client = await connect(project);
  try {
    const result = await call(client, "fs.read_file", { path: "README.md" });
    assert.deepEqual(result.isError, false);
    includes(textOf(result), "A small project.");
    assert.deepEqual((result.structuredContent as { path?: string }).path, "README.md");
  } finally {
    await client.close();
  }
  const runDir = await onlyRunDir(project);
  const tools = await readJsonl(nodePath.join(runDir, "logs/tools.jsonl"));
  assert.deepEqual(tools.map((entry) => entry.tool), ["fs.read_file"]);
  const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
  const completed = events.find((event) => event.type === "run.completed");
  exists(completed, "the run ends with run.completed when the client closes");
  assert.deepEqual(completed.calls, 1);
});

Deno.test("kagent-run mcp returns an isError result with the grant and writes nothing when a write needs approval", async () => {
  await using project = await createProject();
  const target = nodePath.join(project.sandbox.workspace, "notes.txt");
  const client = await connect(project);
  let grant: unknown;
  try {
    const result = await call(client, "fs.write_file", { path: "notes.txt", content: "hello" });
    assert.deepEqual(result.isError, true);
    const error = errorOf(result);
    assert.deepEqual(error.type, "approval_required");
    assert.deepEqual(error.rule, "default:write-ask");
    const details = error.details as Record<string, unknown>;
    grant = details.grant;
    assert.deepEqual((grant as { tool: string }).tool, "fs.write_file");
    includes(String(details.replay), "kagent-run mcp --config");
    includes(textOf(result), "--approve");
    assert.deepEqual(await pathExists(target), false);
  } finally {
    await client.close();
  }
  const runDir = await onlyRunDir(project);
  const tools = await readJsonl(nodePath.join(runDir, "logs/tools.jsonl"));
  assert.deepEqual(tools.map((entry) => [entry.tool, resultOf(entry).error_type]), [[
    "fs.write_file",
    "approval_required",
  ]]);

  // Near miss: the same write, on a server started with the grant the result carried, is written.
  const granted = await connect(project, { extraArgs: ["--approve", JSON.stringify(grant)] });
  try {
    const result = await call(granted, "fs.write_file", { path: "notes.txt", content: "hello" });
    assert.deepEqual(result.isError, false, textOf(result));
    assert.deepEqual(await Deno.readTextFile(target), "hello");
  } finally {
    await granted.close();
  }
});

Deno.test("kagent-run mcp denies a path escape and touches nothing outside when a call names ../outside", async () => {
  await using project = await createProject();
  const outside = nodePath.join(project.sandbox.root, "outside.txt");
  const secret = nodePath.join(project.sandbox.root, "secret.txt");
  await Deno.writeTextFile(secret, "CANARY-7f3a\n");
  const client = await connect(project, { elicit: "allow_once" });
  try {
    const write = await call(client, "fs.write_file", { path: "../outside.txt", content: "x" });
    assert.deepEqual(write.isError, true);
    assert.deepEqual(errorOf(write).rule, "sandbox:path-guard");
    assert.deepEqual(errorOf(write).layer, "sandbox");
    assert.deepEqual(await pathExists(outside), false);

    const read = await call(client, "fs.read_file", { path: "../secret.txt" });
    assert.deepEqual(read.isError, true);
    assert.deepEqual(errorOf(read).rule, "sandbox:path-guard");
    assert.deepEqual(JSON.stringify(read).includes("CANARY-7f3a"), false);

    // Near miss: a path with ".." that stays inside the workspace is read.
    const inside = await call(client, "fs.read_file", { path: "src/../README.md" });
    assert.deepEqual(inside.isError, false, textOf(inside));
    includes(textOf(inside), "A small project.");
  } finally {
    await client.close();
  }
  const tools = await readJsonl(nodePath.join(await onlyRunDir(project), "logs/tools.jsonl"));
  assert.deepEqual(tools.map((entry) => [entry.tool, resultOf(entry).error_type]), [
    ["fs.write_file", "path_outside_sandbox"],
    ["fs.read_file", "path_outside_sandbox"],
    ["fs.read_file", null],
  ]);
});

Deno.test("kagent-run mcp asks the client's user through elicitation when the client supports it", async () => {
  await using project = await createProject();
  const denied = nodePath.join(project.sandbox.workspace, "denied.txt");
  const allowed = nodePath.join(project.sandbox.workspace, "allowed.txt");
  const denying = await connect(project, { elicit: "deny" });
  try {
    const result = await call(denying, "fs.write_file", { path: "denied.txt", content: "no" });
    assert.deepEqual(result.isError, true);
    assert.deepEqual(errorOf(result).type, "approval_denied");
    assert.deepEqual(await pathExists(denied), false);
  } finally {
    await denying.close();
  }
  // Near miss: the user allows once, and the write happens.
  const allowing = await connect(project, { elicit: "allow_once" });
  try {
    const result = await call(allowing, "fs.write_file", { path: "allowed.txt", content: "yes" });
    assert.deepEqual(result.isError, false, textOf(result));
    assert.deepEqual(await Deno.readTextFile(allowed), "yes");
  } finally {
    await allowing.close();
  }
});

Deno.test("kagent-run mcp ends the run with run.completed and exit 143 when it gets SIGTERM", async () => {
  await using project = await createProject();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...taskFlags("kagent-run"),
      nodePath.join(repository, "main.ts"),
      "mcp",
      "--config",
      project.configPath,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const send = (message: unknown) =>
    writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  });
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  let seen = "";
  while (!seen.includes('"id":2')) {
    const { value, done } = await lines.read();
    if (done) break;
    seen += value;
  }
  includes(seen, `"protocolVersion":"${LATEST_PROTOCOL_VERSION}"`);
  child.kill("SIGTERM");
  const status = await child.status;
  await lines.cancel();
  await writer.close().catch(() => {});
  assert.equal(status.code, 143);
  const events = await readJsonl(nodePath.join(await onlyRunDir(project), "events.jsonl"));
  const completed = events.find((event) => event.type === "run.completed");
  exists(completed, "the run ends with run.completed on SIGTERM");
  assert.equal(completed.end_reason, "aborted");
});

Deno.test("kagent-run mcp --help prints the client configuration line and exits 0", async () => {
  const help = await runCli(["mcp", "--help"]);
  assert.equal(help.code, 0);
  includes(help.stdout, '"mcpServers"');
  // Near miss: a config that does not exist is a usage error, and nothing is served.
  const missing = await runCli(["mcp", "--config", "/nonexistent/agent.jsonc"]);
  assert.equal(missing.code, 2);
  assert.equal(missing.stdout, "");
});

Deno.test("kagent-run mcp offers no agent or task tools when the config defines agents", async () => {
  // Near miss: `kagent-run tools` on the same config does list them (an agent loop could run them).
  await using project = await createProject({
    config: { agents: { reader: { description: "Reads files", agent_type: "sub" } } },
  });
  const listed = await runCli(["tools", "--config", project.configPath, "--json"]);
  includes(listed.stdout, "agent.create_sub_agent");
  const client = await connect(project);
  try {
    const names = ((await client.listTools()).tools as Tool[]).map((tool) => tool.name);
    assert.ok(names.includes("fs.read_file"));
    assert.deepEqual(names.filter((name) => name.startsWith("agent.")), []);
  } finally {
    await client.close();
  }
});
