// McpHttpServer's bounds, with a real McpRunServer and the SDK transport on 127.0.0.1: a client
// that keeps initialising without deleting its sessions gets a 503 past maxSessions (no session
// made), and a session deleted frees its place. The body cap is the SDK's (413 before parsing).
import assert from "node:assert/strict";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { BearerToken, parseLoopbackAddress } from "./http_access.ts";
import { McpHttpServer } from "./http_server.ts";
import { McpRunServer } from "./run_server.ts";

const TOKEN = `token-${crypto.randomUUID()}`;
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "probe", version: "1" },
  },
};

function send(
  url: string,
  method: string,
  body: string | null,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method,
    headers: {
      Authorization: `Bearer ${TOKEN}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    ...(body === null ? {} : { body }),
  });
}

Deno.test("McpHttpServer refuses an initialize past maxSessions with 503 and makes no session, a deleted session frees its place, and a body over 4 MiB is refused with 413", async () => {
  const runServer = new McpRunServer({
    version: "test",
    // No client here sends notifications/initialized: the run never opens.
    openSession: () => Promise.reject(new Error("no run in this test")),
  });
  const http = McpHttpServer.start({
    address: parseLoopbackAddress("127.0.0.1:0"),
    token: new BearerToken(TOKEN),
    runServer,
    maxSessions: 2,
  });
  try {
    const ids: string[] = [];
    for (let index = 0; index < 2; index++) {
      const response = await send(http.url, "POST", JSON.stringify(INITIALIZE));
      assert.equal(response.status, 200);
      ids.push(response.headers.get("mcp-session-id") ?? "");
      await response.body?.cancel();
    }
    assert.equal(http.sessionCount, 2);
    const refused = await send(http.url, "POST", JSON.stringify(INITIALIZE));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("mcp-session-id"), null);
    assert.match((await refused.json()).error.message, /2 MCP sessions are open/);
    assert.equal(http.sessionCount, 2);
    // A session of the two still answers while the third is refused.
    const live = await send(
      http.url,
      "POST",
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
      { "Mcp-Session-Id": ids[0] as string, "Mcp-Protocol-Version": LATEST_PROTOCOL_VERSION },
    );
    assert.equal(live.status, 200);
    await live.body?.cancel();
    // Near miss: deleting one session lets the next initialize in.
    const deleted = await send(http.url, "DELETE", null, {
      "Mcp-Session-Id": ids[1] as string,
      "Mcp-Protocol-Version": LATEST_PROTOCOL_VERSION,
    });
    assert.equal(deleted.status, 200);
    await deleted.body?.cancel();
    assert.equal(http.sessionCount, 1);
    const again = await send(http.url, "POST", JSON.stringify(INITIALIZE));
    assert.equal(again.status, 200);
    assert.ok(again.headers.get("mcp-session-id"));
    await again.body?.cancel();
    // A body over the SDK's 4 MiB is refused before it is parsed.
    const huge = await send(
      http.url,
      "POST",
      JSON.stringify({ ...INITIALIZE, padding: "x".repeat(5 * 1024 * 1024) }),
      { "Mcp-Session-Id": ids[0] as string, "Mcp-Protocol-Version": LATEST_PROTOCOL_VERSION },
    );
    assert.equal(huge.status, 413);
    await huge.body?.cancel();
  } finally {
    await runServer.close("completed").catch(() => {});
    await http.shutdown();
  }
});

Deno.test("McpHttpServer expires sessions whose clients left without DELETE, so a 71st client is served after 70 vanished, and keeps a session with a stream open", async () => {
  const runServer = new McpRunServer({
    version: "test",
    openSession: () => Promise.reject(new Error("no run in this test")),
  });
  let clock = 0;
  const http = McpHttpServer.start({
    address: parseLoopbackAddress("127.0.0.1:0"),
    token: new BearerToken(TOKEN),
    runServer,
    idleTimeoutMs: 60_000,
    now: () => clock,
  });
  const headers = (id: string) => ({
    "Mcp-Session-Id": id,
    "Mcp-Protocol-Version": LATEST_PROTOCOL_VERSION,
  });
  try {
    // Near miss first: a client that keeps its event stream open is never idle, however long.
    const kept = await send(http.url, "POST", JSON.stringify(INITIALIZE));
    const keptId = kept.headers.get("mcp-session-id") as string;
    await kept.body?.cancel();
    const streamAbort = new AbortController();
    const stream = await fetch(http.url, {
      method: "GET",
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        Accept: "text/event-stream",
        ...headers(keptId),
      },
      signal: streamAbort.signal,
    });
    assert.equal(stream.status, 200);
    // 70 clients initialise and leave without DELETE, some after opening and dropping a stream;
    // time passes between them. Without expiry the 64th would fill the server for good.
    const left: string[] = [];
    for (let index = 0; index < 70; index++) {
      const response = await send(http.url, "POST", JSON.stringify(INITIALIZE));
      if (response.status !== 200) {
        assert.fail(`client ${index + 1}: HTTP ${response.status} ${await response.text()}`);
      }
      const id = response.headers.get("mcp-session-id") as string;
      left.push(id);
      await response.body?.cancel();
      if (index % 2 === 0) {
        const abort = new AbortController();
        const get = await fetch(http.url, {
          method: "GET",
          headers: {
            Authorization: `Bearer ${TOKEN}`,
            Accept: "text/event-stream",
            ...headers(id),
          },
          signal: abort.signal,
        });
        abort.abort();
        await get.body?.cancel().catch(() => {});
      }
      clock += 61_000;
    }
    assert.ok(http.sessionCount <= 64, `${http.sessionCount} sessions open`);
    const late = await send(http.url, "POST", JSON.stringify(INITIALIZE));
    assert.equal(late.status, 200);
    await late.body?.cancel();
    // The kept session, stream open through 70 timeouts, still answers.
    const ping = await send(
      http.url,
      "POST",
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }),
      headers(keptId),
    );
    assert.equal(ping.status, 200);
    await ping.body?.cancel();
    // An expired session's id is answered as a deleted one.
    const gone = await send(
      http.url,
      "POST",
      JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" }),
      headers(left[0] as string),
    );
    assert.equal(gone.status, 404);
    await gone.body?.cancel();
    streamAbort.abort();
    await stream.body?.cancel().catch(() => {});
  } finally {
    await runServer.close("completed").catch(() => {});
    await http.shutdown();
  }
});
