/**
 * The MCP client (issue 13 §1): tools of MCP servers inside the boundary, as
 * `mcp.<server_id>.<tool_name>`, their calls run on the main thread through the whole pipeline.
 * (The MCP server, `kagent-run mcp`, is `src/mcp/`, above the session; this folder lies below it,
 * since the session starts the servers.)
 *
 * @module
 */

export { McpServers } from "./mcp_servers.ts";

export { type McpConfinement, type McpRunConfinement } from "./server_confinement.ts";
export { violationMessage } from "./server_watch.ts";
