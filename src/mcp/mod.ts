/**
 * MCP both ways (issue 13). The client (`client/`): tools of MCP servers inside the boundary, as
 * `mcp.<server_id>.<tool_name>`. The server (`server/`): kagent-run as an MCP server, serving a
 * run's effective tool set through the whole pipeline (`kagent-run mcp`).
 *
 * @module
 */

export { ElicitationApprover, type Elicitor } from "./server/elicitation_approver.ts";
export { McpRunServer, type McpRunServerOptions } from "./server/run_server.ts";
export { toCallToolResult } from "./server/result_mapping.ts";
export { listMcpTools, mcpAnnotations } from "./server/tool_listing.ts";
