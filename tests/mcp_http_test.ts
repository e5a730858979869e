// The MCP client over HTTP (issue 13 §1): servers of `mcp_servers` with a "url", reached only
// through the network Worker's mcp channel, against a Streamable HTTP server built with the
// official SDK on 127.0.0.1 (tests/_mcp_http_fixture.ts).
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ConfigError, loadConfig } from "../src/config/mod.ts";
import { networkChannels, NetworkGateway } from "../src/network/mod.ts";
import { openRunSession, type RunSession } from "../src/session/mod.ts";
import { startHttpFixture, startSseFixture } from "./_mcp_http_fixture.ts";
import {
  createProject,
  onlyRunDir,
  readJsonl,
  repository,
  runCli,
  taskFlags,
} from "./_cli_helpers.ts";

const SECRET = "mcp-header-canary-7f3a9c";
const CALL_ONLY = { sanitizeOps: false, sanitizeResources: false };

/** A run whose config has `servers`, every MCP tool allowed, its mcp channel through a gateway. */
async function openHttpRun(
  servers: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<{ session: RunSession; gateway: NetworkGateway; dir: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "kagent-mcp-http-" });
  await Deno.writeTextFile(
    nodePath.join(dir, "agent.jsonc"),
    JSON.stringify({
      mcp_servers: servers,
      permissions: { rules: [{ id: "mcp-allowed", tools: ["mcp.*"], decision: "allow" }] },
    }),
  );
  const config = await loadConfig(nodePath.join(dir, "agent.jsonc"));
  const gateway = await NetworkGateway.start({ channels: networkChannels(config) });
  try {
    const session = await openRunSession(config, {
      env: (name) => env[name] ?? Deno.env.get(name),
      mcpFetch: gateway.fetchFor("mcp"),
    });
    return {
      session,
      gateway,
      dir,
      async [Symbol.asyncDispose]() {
        await session.close();
        gateway.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  } catch (error) {
    gateway.close();
    await Deno.remove(dir, { recursive: true });
    throw error;
  }
}

/** Every file under `folder`, as text. */
async function allFiles(folder: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const entry of Deno.readDir(folder)) {
    const path = nodePath.join(folder, entry.name);
    if (entry.isDirectory) {
      for (const [inner, text] of await allFiles(path)) files.set(inner, text);
    } else if (entry.isFile) {
      files.set(path, await Deno.readTextFile(path));
    }
  }
  return files;
}

function call(session: RunSession, id: string, name: string, args: Record<string, unknown> = {}) {
  return session.runtime.call({ id, name, arguments: JSON.stringify(args) });
}

Deno.test({
  name: "an HTTP MCP server's tools are listed and called through the network Worker",
  ...CALL_ONLY,
  async fn() {
    await using fixture = startHttpFixture();
    await using run = await openHttpRun({
      fixture: { type: "http", url: `${fixture.origin}/mcp` },
    });
    const { session } = run;
    const echo = session.registry.list().find((tool) =>
      tool.definition.name === "mcp.fixture.echo"
    );
    assert.deepEqual(echo?.definition.tags, ["mcp", "network"]);
    const result = await call(session, "e1", "mcp.fixture.echo", { message: "hi" });
    assert.equal(result.ok, true, JSON.stringify(result.error));
    assert.equal(result.output, "echo: hi");
    await session.close();
    const events = await readJsonl(nodePath.join(session.folder.dir, "events.jsonl"));
    const started = events.find((event) => event.type === "mcp_server.started");
    assert.equal(started?.transport, "streamable-http");
    assert.equal(started?.name, "http-fixture");
    assert.equal(started?.protocol_version, "2025-11-25");
    assert.deepEqual(started?.confinement, { mode: "network_worker", host: fixture.host });
    const policy = JSON.parse(
      await Deno.readTextFile(nodePath.join(session.folder.dir, "policy.json")),
    );
    assert.deepEqual(policy.layers.sandbox.network.mcp, [fixture.host]);
    // Closing the run ended the server's session (DELETE), and every request was MCP's.
    assert.ok(fixture.hits.some((hit) => hit.method === "DELETE"));
    assert.ok(fixture.hits.every((hit) => hit.path === "/mcp"));
  },
});

Deno.test({
  name: "a ${VAR} header reaches the HTTP server but never the run folder",
  ...CALL_ONLY,
  async fn() {
    await using fixture = startHttpFixture();
    await using run = await openHttpRun({
      fixture: {
        type: "streamable-http",
        url: `${fixture.origin}/mcp`,
        headers: { Authorization: "Bearer ${MCP_TOKEN}", "X-Trace": "plain-trace-value" },
      },
    }, { MCP_TOKEN: SECRET });
    const { session } = run;
    const shown = await call(session, "h1", "mcp.fixture.show_header", { name: "Authorization" });
    const plain = await call(session, "h2", "mcp.fixture.show_header", { name: "X-Trace" });
    await session.close();
    // The effect: every request carried the expanded header.
    const posts = fixture.hits.filter((hit) => hit.method === "POST");
    assert.ok(posts.length >= 3);
    for (const hit of posts) assert.equal(hit.headers.authorization, `Bearer ${SECRET}`);
    // The server echoed it back, and the result the model sees is redacted.
    assert.equal(shown.ok, true);
    assert.ok(!JSON.stringify(shown).includes(SECRET));
    assert.match(String(shown.output), /REDACTED/);
    for (const [path, text] of await allFiles(session.folder.dir)) {
      assert.ok(!text.includes(SECRET), `${path} holds the header's secret`);
    }
    // Near miss: a header without ${VAR} is not a secret and reads as sent.
    assert.equal(plain.output, "X-Trace: plain-trace-value");
    for (const hit of posts) assert.equal(hit.headers["x-trace"], "plain-trace-value");
  },
});

Deno.test({
  name: "an HTTP+SSE server (type sse) is listed and called through the streamed mcp channel",
  ...CALL_ONLY,
  async fn() {
    await using fixture = await startSseFixture();
    await using run = await openHttpRun({
      legacy: {
        type: "sse",
        url: `${fixture.origin}/sse`,
        headers: { Authorization: "Bearer ${MCP_TOKEN}" },
      },
    }, { MCP_TOKEN: SECRET });
    const { session } = run;
    // The session's endpoint arrives as an event on a stream that stays open: only a streamed
    // response lets the client start at all.
    const echo = await call(session, "s1", "mcp.legacy.echo", { message: "over sse" });
    assert.equal(echo.output, "echo: over sse");
    await session.close();
    const events = await readJsonl(nodePath.join(session.folder.dir, "events.jsonl"));
    const started = events.find((event) => event.type === "mcp_server.started");
    assert.equal(started?.transport, "sse");
    assert.deepEqual(started?.confinement, { mode: "network_worker", host: fixture.host });
    assert.deepEqual(fixture.hits.map((hit) => `${hit.method} ${hit.path}`).slice(0, 2), [
      "GET /sse",
      "POST /messages",
    ]);
    for (const hit of fixture.hits) assert.equal(hit.headers.authorization, `Bearer ${SECRET}`);
    for (const [path, text] of await allFiles(session.folder.dir)) {
      assert.ok(!text.includes(SECRET), `${path} holds the header's secret`);
    }
  },
});

Deno.test({
  name: "a tools/list_changed notification is recorded and leaves the run's tool set as listed",
  ...CALL_ONLY,
  async fn() {
    await using fixture = startHttpFixture();
    await using run = await openHttpRun({
      fixture: { type: "http", url: `${fixture.origin}/mcp` },
    });
    const { session } = run;
    const changed = Promise.withResolvers<string>();
    session.mcp?.onToolListChanged(changed.resolve);
    // The notification travels on the server's event stream (a GET, streamed through the Worker).
    await fixture.gets(1);
    const added = await call(session, "a1", "mcp.fixture.add_tool");
    assert.equal(added.output, "added");
    assert.equal(await changed.promise, "fixture");
    const late = await call(session, "l1", "mcp.fixture.late_tool");
    assert.equal(late.error?.type, "tool_not_available");
    assert.ok(
      !session.registry.list().some((tool) => tool.definition.name === "mcp.fixture.late_tool"),
    );
    await session.close();
    const events = await readJsonl(nodePath.join(session.folder.dir, "events.jsonl"));
    const recorded = events.filter((event) => event.type === "mcp_server.tools_changed");
    assert.deepEqual(recorded.map((event) => event.server), ["fixture"]);
  },
});

Deno.test({
  name: "an HTTP server that answers 500 or garbage fails that call clearly and the run goes on",
  ...CALL_ONLY,
  async fn() {
    await using fixture = startHttpFixture();
    await using run = await openHttpRun({
      fixture: { type: "http", url: `${fixture.origin}/mcp` },
    });
    const { session } = run;
    const exploded = await call(session, "x1", "mcp.fixture.explode");
    assert.equal(exploded.ok, false);
    assert.equal(exploded.error?.type, "tool_error");
    assert.match(
      exploded.error?.message ?? "",
      /MCP server "fixture" failed: HTTP 500: .*upstream exploded/s,
    );
    const garbled = await call(session, "g1", "mcp.fixture.garble");
    assert.equal(garbled.error?.type, "tool_error");
    assert.match(garbled.error?.message ?? "", /MCP server "fixture" failed: .*JSON/s);
    // The run goes on: the same server still answers.
    const echo = await call(session, "e2", "mcp.fixture.echo", { message: "still here" });
    assert.equal(echo.output, "echo: still here");
  },
});

Deno.test({
  name:
    "an HTTP server that is down or wants a sign-in stops the start naming it, or is skipped when optional",
  ...CALL_ONLY,
  async fn() {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${listener.addr.port}/mcp`;
    listener.close();
    await assert.rejects(
      openHttpRun({ down: { type: "http", url, startup_timeout_ms: 10_000 } }),
      (error) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.key, "mcp_servers.down");
        assert.match(
          error.message,
          /Cannot start MCP server "down" \("http:\/\/127\.0\.0\.1:\d+\/mcp"\): Cannot reach "127\.0\.0\.1:\d+": fetch failed \(.+\)/,
        );
        return true;
      },
    );
    await using fixture = startHttpFixture();
    // A server that wants OAuth (401) cannot start either: a run has nobody to sign in.
    await assert.rejects(
      openHttpRun({ private: { type: "http", url: `${fixture.origin}/private` } }),
      /Cannot start MCP server "private" \(".*"\): HTTP 401: .*sign in first/,
    );
    await using run = await openHttpRun({
      down: { type: "http", url, required: false },
      fixture: { type: "http", url: `${fixture.origin}/mcp` },
    });
    const { session } = run;
    assert.equal(
      (await call(session, "e3", "mcp.fixture.echo", { message: "up" })).output,
      "echo: up",
    );
    await session.close();
    const events = await readJsonl(nodePath.join(session.folder.dir, "events.jsonl"));
    const skipped = events.find((event) => event.type === "mcp_server.skipped");
    assert.equal(skipped?.server, "down");
    assert.match(String(skipped?.reason), /Cannot start MCP server "down"/);
  },
});

Deno.test({
  name: "the mcp channel reaches only the configured servers' hosts: another host sees no request",
  ...CALL_ONLY,
  async fn() {
    await using fixture = startHttpFixture();
    await using other = startHttpFixture();
    // A server whose URL redirects to a host outside the channel cannot start, and the other
    // host never sees a request.
    await assert.rejects(
      openHttpRun({
        away: {
          type: "http",
          url: `${fixture.origin}/redirect-to?port=${other.host.split(":")[1]}`,
        },
      }),
      /Cannot start MCP server "away"/,
    );
    // Near miss: a redirect within the server's own origin is followed (by the SDK).
    await using run = await openHttpRun({
      fixture: { type: "http", url: `${fixture.origin}/redirect-here` },
    });
    assert.equal(
      (await call(run.session, "e4", "mcp.fixture.echo", { message: "via redirect" })).output,
      "echo: via redirect",
    );
    // The channel's own fetch refuses the other host; the model channel refuses the MCP host.
    const mcpFetch = run.gateway.fetchFor("mcp");
    await assert.rejects(
      mcpFetch(`${other.origin}/mcp`, { method: "POST", body: "{}" }),
      /Cannot reach "127\.0\.0\.1:\d+" from the mcp channel/,
    );
    await assert.rejects(
      run.gateway.fetchFor("model")(`${fixture.origin}/mcp`),
      /from the model channel: it may reach only no host/,
    );
    assert.deepEqual(other.hits, []);
  },
});

Deno.test({
  name: "kagent-run tools and policy list an HTTP server's tools and its host through the gateway",
  ...CALL_ONLY,
  async fn() {
    await using fixture = startHttpFixture();
    await using project = await createProject({
      config: { mcp_servers: { fixture: { type: "http", url: `${fixture.origin}/mcp` } } },
    });
    const tools = await runCli(["tools", "--config", project.configPath, "--json"]);
    assert.equal(tools.code, 0, tools.stderr);
    const listed = JSON.parse(tools.stdout) as { name: string; tags: string[] }[];
    assert.deepEqual(listed.find((tool) => tool.name === "mcp.fixture.echo")?.tags, [
      "mcp",
      "network",
    ]);
    const policy = await runCli(["policy", "--config", project.configPath]);
    assert.equal(policy.code, 0, policy.stderr);
    assert.match(
      policy.stdout,
      new RegExp(`network: +mcp ${fixture.host}, through the network Worker only`),
    );
    assert.match(policy.stdout, /mcp\.fixture\.echo/);
  },
});

Deno.test({
  name: "a CLI run calls an HTTP MCP tool with the main thread's net permission revoked",
  ...CALL_ONLY,
  async fn() {
    await using fixture = startHttpFixture();
    await using project = await createProject({
      config: { mcp_servers: { fixture: { type: "http", url: `${fixture.origin}/mcp` } } },
      plan: [
        JSON.stringify({
          tool_calls: [{ id: "e", name: "mcp.fixture.echo", arguments: { message: "from a run" } }],
        }),
        JSON.stringify({ content: "Said: {{e.output}}" }),
      ],
      permissions: { rules: [{ id: "mcp-allowed", tools: ["mcp.*"], decision: "allow" }] },
    });
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...taskFlags("kagent-run"),
        nodePath.join(repository, "main.ts"),
        "--config",
        project.configPath,
        "--quiet",
      ],
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    assert.equal(new TextDecoder().decode(output.stdout), "Said: echo: from a run\n");
    const events = await readJsonl(nodePath.join(await onlyRunDir(project), "events.jsonl"));
    const boundary = events.find((event) => event.type === "network_boundary.measured");
    assert.deepEqual(boundary?.mcp_hosts, [fixture.host]);
    assert.notEqual(boundary?.main_thread_net, "granted");
    const completed = events.find((event) => event.type === "tool.completed");
    assert.equal(completed?.tool, "mcp.fixture.echo");
  },
});

Deno.test({
  name: "kagent-run mcp serves an HTTP MCP server's tools, relayed through its network Worker",
  ...CALL_ONLY,
  async fn() {
    await using fixture = startHttpFixture();
    await using project = await createProject({
      config: { mcp_servers: { fixture: { type: "http", url: `${fixture.origin}/mcp` } } },
      permissions: { rules: [{ id: "mcp-allowed", tools: ["mcp.*"], decision: "allow" }] },
    });
    const client = new Client({ name: "kagent-test-client", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: [
          "run",
          ...taskFlags("kagent-run"),
          nodePath.join(repository, "main.ts"),
          "mcp",
          "--config",
          project.configPath,
        ],
        cwd: project.sandbox.root,
        stderr: "pipe",
      }),
    );
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool: { name: string }) => tool.name === "mcp.fixture.echo"));
      const result = await client.callTool({
        name: "mcp.fixture.echo",
        arguments: { message: "relayed" },
      }) as CallToolResult;
      assert.equal(result.isError ?? false, false, JSON.stringify(result));
      assert.deepEqual(result.content, [{ type: "text", text: "echo: relayed" }]);
    } finally {
      await client.close();
    }
    assert.ok(fixture.hits.some((hit) => hit.rpc === "tools/call"));
  },
});
