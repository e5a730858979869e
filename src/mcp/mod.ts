/**
 * MCP, the server side (issue 13 §2): kagent-run as an MCP server (`kagent-run mcp`), serving a
 * run's effective tool set through the whole pipeline, over stdio or Streamable HTTP on a
 * loopback address. The client side is `src/mcp_client/`.
 *
 * @module
 */

export { ElicitationApprover, type Elicitor } from "./server/elicitation_approver.ts";
export {
  BearerToken,
  type LoopbackAddress,
  mcpUrl,
  MIN_TOKEN_CHARS,
  parseLoopbackAddress,
  rebindingRefusal,
} from "./server/http_access.ts";
export {
  McpHttpServer,
  type McpHttpServerOptions,
  SESSION_IDLE_TIMEOUT_MS,
} from "./server/http_server.ts";
export { type McpConnection, McpRunServer, type McpRunServerOptions } from "./server/run_server.ts";
export { toCallToolResult } from "./server/result_mapping.ts";
export { listMcpTools, mcpAnnotations } from "./server/tool_listing.ts";
