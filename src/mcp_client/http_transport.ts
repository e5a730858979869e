/**
 * The client transport of an HTTP MCP server: the SDK's Streamable HTTP transport (`"http"`), or
 * its older HTTP+SSE transport (`"sse"`), each sending every request through the `fetch` it is
 * given: the network gateway's `mcp` channel, which reaches only the configured servers' hosts.
 * Redirects leave that fetch unfollowed; the SDK follows one only within the server's origin.
 *
 * @module
 */

import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { LoadedMcpHttpServer } from "../config/mod.ts";

/**
 * Builds the transport of one HTTP server (not yet started).
 *
 * @param server The loaded entry (its `type` and `url`).
 * @param headers Its headers, `${VAR}` already expanded; sent with every request.
 * @param fetch How requests leave: the network gateway's `mcp` channel.
 * @example
 * ```ts ignore
 * const transport = httpTransport(server, { Authorization: "Bearer …" }, gateway.fetchFor("mcp"));
 * ```
 */
export function httpTransport(
  server: LoadedMcpHttpServer,
  headers: Record<string, string>,
  fetch: typeof globalThis.fetch,
): Transport {
  const url = new URL(server.url);
  const requestInit = { headers };
  if (server.type === "sse") {
    return new SSEClientTransport(url, { requestInit, fetch });
  }
  return new StreamableHTTPClientTransport(url, { requestInit, fetch });
}
