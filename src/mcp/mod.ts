/**
 * MCP, the server side (issue 13 §2): kagent-run as an MCP server (`kagent-run mcp`), serving a
 * run's effective tool set through the whole pipeline, over stdio or Streamable HTTP on a
 * loopback address. The client side is `src/mcp_client/`.
 *
 * @module
 */

export {
  BearerToken,
  type LoopbackAddress,
  MIN_TOKEN_CHARS,
  parseLoopbackAddress,
} from "./server/http_access.ts";
export { McpHttpServer, SESSION_IDLE_TIMEOUT_MS } from "./server/http_server.ts";
export { McpRunServer } from "./server/run_server.ts";
