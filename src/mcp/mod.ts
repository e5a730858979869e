/**
 * MCP: kagent-run as an MCP server (`server/`), serving a run's tools through the whole pipeline.
 *
 * @module
 */

export { ElicitationApprover, type Elicitor } from "./server/elicitation_approver.ts";
export { McpRunServer, type McpRunServerOptions } from "./server/run_server.ts";
export { toCallToolResult } from "./server/result_mapping.ts";
export { listMcpTools, mcpAnnotations } from "./server/tool_listing.ts";
