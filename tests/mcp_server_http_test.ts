// kagent-run as an MCP server over Streamable HTTP (issue 13 §2): the official SDK client talks
// to `main.ts mcp --http 127.0.0.1:0` behind a bearer token, as Claude Code or Cursor would with an
// "http" server entry. One server process is shared by every step: one run, several sessions.
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
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

const TOKEN = "kagent-test-token-" + crypto.randomUUID();

/** `kagent-run mcp --http 127.0.0.1:0` as a child process, with its URL and stderr. */
interface HttpServerProcess {
  url: string;
  child: Deno.ChildProcess;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
}

async function startServer(project: Project): Promise<HttpServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...taskFlags("kagent-run"),
      nodePath.join(repository, "main.ts"),
      "mcp",
      "--config",
      project.configPath,
      "--http",
      "127.0.0.1:0",
    ],
    env: { KAGENT_RUN_MCP_TOKEN: TOKEN },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let url: string | null = null;
  while (url === null) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`kagent-run mcp --http ended before serving: ${text}`);
    text += value;
    url = /serving MCP at (\S+)/.exec(text)?.[1] ?? null;
  }
  // Keep draining stderr so the child never blocks on a full pipe.
  (async () => {
    for (;;) {
      const { value, done } = await lines.read();
      if (done) return;
      text += value;
    }
  })();
  return { url, child, stderr: () => text };
}

/** The official client over HTTP, with the bearer token unless `token` is null. */
async function connect(
  url: string,
  options: { token?: string | null; elicit?: string } = {},
): Promise<Client> {
  const token = options.token === undefined ? TOKEN : options.token;
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: token === null ? {} : { Authorization: `Bearer ${token}` } },
  });
  const elicit = options.elicit ?? null;
  const client = new Client(
    { name: "kagent-http-test-client", version: "1.0.0" },
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
  assert.ok(error !== undefined, `no structured error in ${JSON.stringify(result)}`);
  return error;
}

function textOf(result: CallToolResult): string {
  return result.content.map((block: { type: string; text?: string }) =>
    block.type === "text" ? block.text ?? "" : ""
  ).join("\n");
}

/** A raw JSON-RPC POST, as a client that skips the SDK would send it. */
function post(url: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": LATEST_PROTOCOL_VERSION,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** Every file under a folder, as text. */
async function allText(dir: string): Promise<string> {
  let text = "";
  for await (const entry of Deno.readDir(dir)) {
    const path = nodePath.join(dir, entry.name);
    if (entry.isDirectory) text += await allText(path);
    else if (entry.isFile) text += await Deno.readTextFile(path);
  }
  return text;
}

Deno.test("kagent-run mcp --http serves one audited run to several authenticated sessions and refuses requests without the token", async (t) => {
  await using project = await createProject();
  const workspace = project.sandbox.workspace;
  const server = await startServer(project);
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const plain = await connect(server.url);
  let sessionId = "";
  try {
    await t.step("lists the tools with MCP annotations", async () => {
      assert.equal(plain.getServerVersion()?.name, "kagent-run");
      const tools = new Map(((await plain.listTools()).tools as Tool[]).map((tool) => [
        tool.name,
        tool,
      ]));
      assert.equal(tools.get("fs.read_file")?.annotations?.readOnlyHint, true);
      assert.equal(tools.get("fs.write_file")?.annotations?.readOnlyHint, false);
      assert.equal(tools.has("fs.delete_file"), false);
    });

    await t.step("reads a workspace file", async () => {
      const result = await call(plain, "fs.read_file", { path: "README.md" });
      assert.equal(result.isError, false, textOf(result));
      assert.ok(textOf(result).includes("A small project."));
    });

    await t.step(
      "answers a write that needs approval with the grant and writes nothing",
      async () => {
        const result = await call(plain, "fs.write_file", { path: "notes.txt", content: "x" });
        assert.equal(result.isError, true);
        const error = errorOf(result);
        assert.equal(error.type, "approval_required");
        const details = error.details as Record<string, unknown>;
        assert.equal((details.grant as { tool: string }).tool, "fs.write_file");
        assert.ok(String(details.replay).includes("--http 127.0.0.1:0"));
        assert.equal(await pathExists(nodePath.join(workspace, "notes.txt")), false);
      },
    );

    await t.step("denies a path escape and touches nothing outside", async () => {
      const outside = nodePath.join(project.sandbox.root, "outside.txt");
      const write = await call(plain, "fs.write_file", { path: "../outside.txt", content: "x" });
      assert.equal(write.isError, true);
      assert.equal(errorOf(write).rule, "sandbox:path-guard");
      assert.equal(await pathExists(outside), false);
      // Near miss: ".." that stays inside the workspace is read.
      const inside = await call(plain, "fs.read_file", { path: "src/../README.md" });
      assert.equal(inside.isError, false, textOf(inside));
    });

    await t.step("refuses a client without the token or with a wrong one (401)", async () => {
      await assert.rejects(() => connect(server.url, { token: null }), /401|Unauthorized/);
      await assert.rejects(() => connect(server.url, { token: TOKEN + "x" }), /401|Unauthorized/);
      // A live session's id without the token calls nothing: 401, no file written.
      sessionId = (plain.transport as StreamableHTTPClientTransport).sessionId ?? "";
      assert.notEqual(sessionId, "");
      const stolen = await post(server.url, {
        jsonrpc: "2.0",
        id: 99,
        method: "tools/call",
        params: { name: "fs.read_file", arguments: { path: "README.md" } },
      }, { "Mcp-Session-Id": sessionId, Authorization: "Bearer wrong-token-of-some-length" });
      assert.equal(stolen.status, 401);
      assert.match(stolen.headers.get("WWW-Authenticate") ?? "", /^Bearer /);
      await stolen.body?.cancel();
    });

    await t.step(
      "refuses a browser page of another site (403) and lets a loopback origin in",
      async () => {
        const initialize = {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: LATEST_PROTOCOL_VERSION,
            capabilities: {},
            clientInfo: { name: "page", version: "1" },
          },
        };
        const rebound = await post(server.url, initialize, {
          Authorization: `Bearer ${TOKEN}`,
          Origin: "https://attacker.example",
        });
        assert.equal(rebound.status, 403);
        await rebound.body?.cancel();
        const local = await post(server.url, initialize, {
          Authorization: `Bearer ${TOKEN}`,
          Origin: new URL(server.url).origin,
        });
        assert.equal(local.status, 200);
        assert.ok(local.headers.get("mcp-session-id"));
        await local.body?.cancel();
      },
    );

    await t.step(
      "asks an eliciting session's user while the other session still gets the grant",
      async () => {
        const denying = await connect(server.url, { elicit: "deny" });
        try {
          const denied = await call(denying, "fs.write_file", {
            path: "denied.txt",
            content: "no",
          });
          assert.equal(errorOf(denied).type, "approval_denied");
          assert.equal(await pathExists(nodePath.join(workspace, "denied.txt")), false);
        } finally {
          await denying.close();
        }
        const allowing = await connect(server.url, { elicit: "allow_once" });
        try {
          const allowed = await call(allowing, "fs.write_file", {
            path: "allowed.txt",
            content: "y",
          });
          assert.equal(allowed.isError, false, textOf(allowed));
          assert.equal(await Deno.readTextFile(nodePath.join(workspace, "allowed.txt")), "y");
        } finally {
          await allowing.close();
        }
        // The first session announced no elicitation: still the grant, not a question.
        const again = await call(plain, "fs.write_file", { path: "notes.txt", content: "x" });
        assert.equal(errorOf(again).type, "approval_required");
      },
    );

    await t.step("carries the token's value nowhere, even when a call holds it", async () => {
      const result = await call(plain, "fs.read_file", { path: `missing-${TOKEN}.txt` });
      assert.equal(result.isError, true);
      assert.equal(JSON.stringify(result).includes(TOKEN), false);
    });
  } finally {
    await plain.close();
    server.child.kill("SIGTERM");
  }
  const status = await server.child.status;
  assert.equal(status.code, 143, server.stderr());

  await t.step("records every served call, and only those, in the one run folder", async () => {
    const runDir = await onlyRunDir(project);
    const tools = await readJsonl(nodePath.join(runDir, "logs/tools.jsonl"));
    const calls = tools.map((entry) => [
      entry.tool,
      (entry.result as { error_type: string | null }).error_type,
    ]);
    assert.deepEqual(calls, [
      ["fs.read_file", null],
      ["fs.write_file", "approval_required"],
      ["fs.write_file", "path_outside_sandbox"],
      ["fs.read_file", null],
      ["fs.write_file", "approval_denied"],
      ["fs.write_file", null],
      ["fs.write_file", "approval_required"],
      ["fs.read_file", "file_not_found"],
    ]);
    const events = await readJsonl(nodePath.join(runDir, "events.jsonl"));
    const completed = events.find((event) => event.type === "run.completed");
    assert.ok(completed, "SIGTERM ends the run with run.completed");
    assert.equal(completed.end_reason, "aborted");
    assert.equal(completed.calls, 8);
    const requested = events.filter((event) => event.type === "approval.requested")
      .map((event) => event.approver);
    assert.deepEqual(requested, [null, "mcp-elicitation", "mcp-elicitation", null]);
    // The token's value is in no file of the run; the call that held it is recorded, redacted.
    assert.equal((await allText(runDir)).includes(TOKEN), false);
    assert.ok(JSON.stringify(tools.at(-1)).includes("missing-[REDACTED:secret_env].txt"));
  });
});

Deno.test("kagent-run mcp --http refuses a non-loopback address or a missing token and serves nothing", async () => {
  await using project = await createProject();
  const env = { KAGENT_RUN_MCP_TOKEN: TOKEN };
  for (const address of ["0.0.0.0:8931", "192.168.1.20:8931", "[::]:8931", "example.com:80"]) {
    const refused = await runCli(
      ["mcp", "--config", project.configPath, "--http", address],
      { env },
    );
    assert.equal(refused.code, 2, address);
    assert.ok(refused.stderr.includes("not a loopback address"), refused.stderr);
    assert.ok(refused.stderr.includes("--http 127.0.0.1:"), refused.stderr);
  }
  const noToken = await runCli(
    ["mcp", "--config", project.configPath, "--http", "127.0.0.1:0", "--token-env", "KAGENT_NO"],
    { env },
  );
  assert.equal(noToken.code, 2);
  assert.ok(noToken.stderr.includes('"KAGENT_NO" is not set'), noToken.stderr);
  assert.ok(noToken.stderr.includes("export KAGENT_NO="), noToken.stderr);
  const weak = await runCli(
    ["mcp", "--config", project.configPath, "--http", "127.0.0.1:0"],
    { env: { KAGENT_RUN_MCP_TOKEN: "short" } },
  );
  assert.equal(weak.code, 2);
  assert.ok(weak.stderr.includes("too weak"), weak.stderr);
  assert.equal(weak.stderr.includes('"short"'), false);
  assert.equal(await pathExists(project.runsDir), false);
  // The near miss, a loopback address with the token, is served: the test above.
});

Deno.test("kagent-run mcp refuses a --session-idle-timeout that is not whole seconds, or without --http, and serves nothing", async () => {
  await using project = await createProject();
  const env = { KAGENT_RUN_MCP_TOKEN: TOKEN };
  for (const value of ["0", "1.5", "abc", "86401"]) {
    const refused = await runCli([
      "mcp",
      "--config",
      project.configPath,
      "--http",
      "127.0.0.1:0",
      "--session-idle-timeout",
      value,
    ], { env });
    assert.equal(refused.code, 2, value);
    assert.ok(
      refused.stderr.includes(`Cannot use --session-idle-timeout "${value}": it must be a whole`),
      refused.stderr,
    );
  }
  const stdio = await runCli(
    ["mcp", "--config", project.configPath, "--session-idle-timeout", "60"],
    { env },
  );
  assert.equal(stdio.code, 2);
  assert.ok(stdio.stderr.includes("only HTTP sessions expire"), stdio.stderr);
  assert.equal(await pathExists(project.runsDir), false);
});
