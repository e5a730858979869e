// MCP servers built with the official SDK on 127.0.0.1, for tests/mcp_http_test.ts: Streamable
// HTTP (McpServer and the Web-standard server transport under Deno.serve), and the older HTTP+SSE
// transport (SSEServerTransport under node:http). Each records every request it sees (method,
// path, headers), so a test can assert what reached it and what never did.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";

/** One request the fixture saw. */
export interface Hit {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The JSON-RPC method of a POST, when it had one. */
  rpc: string | null;
}

/** A running fixture. */
export interface HttpFixture extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `127.0.0.1:<port>` */
  host: string;
  hits: Hit[];
  /** Resolves once `count` GET requests (event streams) have arrived. */
  gets(count: number): Promise<void>;
}

/**
 * Starts the fixture. Paths: `/mcp` the server (tools `echo`, `show_header`, `add_tool`, and
 * `explode` / `garble`, whose calls the HTTP layer answers with a 500 and with garbage);
 * `/redirect-here` a 307 to `/mcp`; `/redirect-to?port=N` a 307 to port N's `/mcp`; `/private` a 401
 * asking for a bearer token (OAuth).
 */
export function startHttpFixture(): HttpFixture {
  const hits: Hit[] = [];
  const getWaiters: { count: number; resolve: () => void }[] = [];
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const served = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const body = request.method === "POST" ? await request.clone().text() : "";
      let rpc: { method?: string; params?: { name?: string } } = {};
      try {
        rpc = JSON.parse(body);
      } catch {
        // Not JSON-RPC: recorded without a method.
      }
      hits.push({
        method: request.method,
        path: url.pathname,
        headers: Object.fromEntries(request.headers),
        rpc: typeof rpc.method === "string" ? rpc.method : null,
      });
      const gets = hits.filter((hit) => hit.method === "GET").length;
      for (const waiter of getWaiters.filter((entry) => entry.count <= gets)) waiter.resolve();
      if (url.pathname === "/redirect-here") {
        return new Response(null, { status: 307, headers: { location: "/mcp" } });
      }
      if (url.pathname === "/redirect-to") {
        const location = `http://127.0.0.1:${url.searchParams.get("port")}/mcp`;
        return new Response(null, { status: 307, headers: { location } });
      }
      if (url.pathname === "/private") {
        return new Response("sign in first", {
          status: 401,
          headers: { "www-authenticate": 'Bearer realm="fixture"' },
        });
      }
      if (url.pathname !== "/mcp") return new Response("not found", { status: 404 });
      if (rpc.method === "tools/call" && rpc.params?.name === "explode") {
        return new Response("upstream exploded", { status: 500 });
      }
      if (rpc.method === "tools/call" && rpc.params?.name === "garble") {
        return new Response("<<this is not JSON-RPC>>", {
          headers: { "content-type": "application/json" },
        });
      }
      const sessionId = request.headers.get("mcp-session-id");
      let transport = sessionId === null ? undefined : sessions.get(sessionId);
      if (transport === undefined) {
        const created: WebStandardStreamableHTTPServerTransport =
          new WebStandardStreamableHTTPServerTransport({
            sessionIdGenerator: () => crypto.randomUUID(),
            onsessioninitialized: (id: string) => void sessions.set(id, created),
            onsessionclosed: (id: string) => void sessions.delete(id),
          });
        await mcpServer().connect(created);
        transport = created;
      }
      return await transport.handleRequest(request);
    },
  );
  const origin = `http://127.0.0.1:${served.addr.port}`;
  return {
    origin,
    host: `127.0.0.1:${served.addr.port}`,
    hits,
    gets(count) {
      if (hits.filter((hit) => hit.method === "GET").length >= count) return Promise.resolve();
      const waiting = Promise.withResolvers<void>();
      getWaiters.push({ count, resolve: waiting.resolve });
      return waiting.promise;
    },
    async [Symbol.asyncDispose]() {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      await served.shutdown();
    },
  };
}

/**
 * Starts an HTTP+SSE fixture (MCP 2024-11-05 transport): `GET /sse` opens a session's event
 * stream, whose `endpoint` event names `POST /messages?sessionId=…`. Same tools as
 * {@linkcode startHttpFixture}'s server.
 */
export async function startSseFixture(): Promise<HttpFixture> {
  const hits: Hit[] = [];
  const transports = new Map<string, SSEServerTransport>();
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) headers[name] = String(value);
    hits.push({ method: request.method ?? "", path: url.pathname, headers, rpc: null });
    if (request.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", response);
      transports.set(transport.sessionId, transport);
      response.on("close", () => transports.delete(transport.sessionId));
      await mcpServer().connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get("sessionId") ?? "");
    if (request.method === "POST" && url.pathname === "/messages" && transport !== undefined) {
      await transport.handlePostMessage(request, response);
      return;
    }
    response.writeHead(404).end("not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    hits,
    gets: () => Promise.resolve(),
    async [Symbol.asyncDispose]() {
      await Promise.all([...transports.values()].map((transport) => transport.close()));
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The fixture's MCP server: one per session. */
function mcpServer(): McpServer {
  const server = new McpServer({ name: "http-fixture", version: "1.2.3" });
  server.registerTool(
    "echo",
    { description: "Echoes the message.", inputSchema: { message: z.string() } },
    ({ message }: { message: string }) => ({
      content: [{ type: "text", text: `echo: ${message}` }],
    }),
  );
  server.registerTool(
    "show_header",
    { description: "Shows a request header.", inputSchema: { name: z.string() } },
    ({ name }: { name: string }, extra: { requestInfo?: { headers: Record<string, unknown> } }) => {
      const headers = extra.requestInfo?.headers ?? {};
      const value = headers[name.toLowerCase()];
      return { content: [{ type: "text", text: `${name}: ${String(value)}` }] };
    },
  );
  server.registerTool(
    "add_tool",
    { description: "Adds a tool (the server then sends tools/list_changed)." },
    () => {
      server.registerTool("late_tool", { description: "Added late." }, () => ({
        content: [{ type: "text", text: "late" }],
      }));
      return { content: [{ type: "text", text: "added" }] };
    },
  );
  for (const name of ["explode", "garble"]) {
    server.registerTool(name, { description: `Answered by the HTTP layer (${name}).` }, () => ({
      content: [{ type: "text", text: "never" }],
    }));
  }
  return server;
}
