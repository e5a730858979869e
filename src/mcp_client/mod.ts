/**
 * The MCP client (issue 13 §1): tools of MCP servers inside the boundary, as
 * `mcp.<server_id>.<tool_name>`, their calls run on the main thread through the whole pipeline.
 * (The MCP server, `kagent-run mcp`, is `src/mcp/`, above the session; this folder lies below it,
 * since the session starts the servers.)
 *
 * @module
 */

export { type McpServerRecord, McpServers, type StartMcpServersOptions } from "./mcp_servers.ts";
export { mcpCallOutcome, type McpResultStores } from "./mcp_call_result.ts";
export { mcpToolDefinition, mcpToolName } from "./mcp_tool_definition.ts";
export { type McpServerIdentity } from "./mcp_server_connection.ts";
export {
  type McpBwrapConfinement,
  type McpConfinement,
  type McpLaunch,
  mcpLaunch,
  type McpNoneConfinement,
  type McpRunConfinement,
} from "./server_confinement.ts";
export {
  type QuarantinedEntry,
  type ViolationListener,
  violationMessage,
  type ViolationMoment,
} from "./server_watch.ts";
