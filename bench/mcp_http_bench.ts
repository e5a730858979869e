/**
 * The cost of the network boundary for an HTTP MCP server: one `tools/call` of a one-line echo
 * tool on a Streamable HTTP server built with the official SDK (tests/_mcp_http_fixture.ts, on
 * 127.0.0.1), by the SDK's client whose transport fetches from this thread (the baseline) against
 * the same client whose transport fetches through the network Worker's mcp channel, as a run's
 * does (requests as messages, streamed answers).
 *
 * Run with `deno task bench` (needs net for 127.0.0.1). See bench/README.md.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { NetworkGateway } from "../src/network/mod.ts";
import { startHttpFixture } from "../tests/_mcp_http_fixture.ts";

const GROUP = "MCP tools/call echo over Streamable HTTP";
const fixture = startHttpFixture();
const url = new URL(`${fixture.origin}/mcp`);
const gateway = await NetworkGateway.start({
  channels: { model: [], memory: [], mcp: [fixture.host] },
});

/** A connected SDK client whose requests leave through `fetch`. */
async function connect(fetch: typeof globalThis.fetch): Promise<Client> {
  const client = new Client({ name: "kagent-bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { fetch }));
  return client;
}

const direct = await connect(fetch);
const throughWorker = await connect(gateway.fetchFor("mcp"));

globalThis.addEventListener("unload", () => {
  void direct.close();
  void throughWorker.close();
  gateway.close();
  void fixture[Symbol.asyncDispose]();
});

Deno.bench({
  name: "fetch from this thread (baseline)",
  group: GROUP,
  baseline: true,
  fn: async () => void await direct.callTool({ name: "echo", arguments: { message: "hi" } }),
});

Deno.bench({
  name: "through the network Worker (mcp channel, streamed)",
  group: GROUP,
  fn: async () => void await throughWorker.callTool({ name: "echo", arguments: { message: "hi" } }),
});
