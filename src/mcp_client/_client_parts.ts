/**
 * The parts of the MCP client that load the official SDK, gathered so that `mcp_servers.ts` can
 * import them when a run has MCP servers: a run without any does not evaluate the SDK at start-up.
 *
 * @module
 */

export { failureText, McpServerConnection } from "./mcp_server_connection.ts";
export { httpTransport } from "./http_transport.ts";
export { StdioProcessTransport } from "./stdio_process_transport.ts";
