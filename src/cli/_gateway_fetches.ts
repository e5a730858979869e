/**
 * How a run's requests leave through the network gateway, as session options.
 *
 * @module
 */

import type { NetworkGateway } from "../network/mod.ts";

/**
 * The session options through which a run's requests leave: the gateway's memory channel (HTTP
 * memory), its mcp channel (HTTP MCP servers) and its tools channel (`net.fetch`); none without a
 * gateway.
 */
export function gatewayFetches(
  gateway: NetworkGateway | null,
): { memoryFetch?: typeof fetch; mcpFetch?: typeof fetch; toolsFetch?: typeof fetch } {
  if (gateway === null) return {};
  return {
    memoryFetch: gateway.fetchFor("memory"),
    mcpFetch: gateway.fetchFor("mcp"),
    toolsFetch: gateway.fetchFor("tools"),
  };
}
