/**
 * MCP, the server side (issue 13 §2): kagent-run as an MCP server (`kagent-run mcp`), serving a
 * run's effective tool set through the whole pipeline. The client side is `src/mcp_client/`.
 *
 * @module
 */

export { ElicitationApprover, type Elicitor } from "./server/elicitation_approver.ts";
export { McpRunServer, type McpRunServerOptions } from "./server/run_server.ts";
export { toCallToolResult } from "./server/result_mapping.ts";
export { listMcpTools, mcpAnnotations } from "./server/tool_listing.ts";
