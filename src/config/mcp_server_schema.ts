/**
 * `mcp_servers`: MCP servers whose tools join the run, shaped like the `mcpServers` entries of
 * other clients (Claude Code, Cursor, Codex) so they can be pasted, plus kagent-run's own keys.
 *
 * @module
 */

import { z } from "zod";
import { DEFAULT_MCP_SERVER } from "./defaults.ts";

/** A server id: one segment of a canonical tool name (`mcp.<id>.<tool>`). */
export const MCP_SERVER_ID_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

/** The keys kagent-run adds to an `mcpServers` entry. */
const kagentKeys = {
  timeout_ms: z.int().min(1).max(3_600_000).optional().describe(
    `Longest one tool call may take, in ms; then the call fails with "timeout" and the run goes on. Default: ${DEFAULT_MCP_SERVER.timeout_ms}.`,
  ),
  startup_timeout_ms: z.int().min(1).max(600_000).optional().describe(
    `Longest the server may take to start and list its tools, in ms. Default: ${DEFAULT_MCP_SERVER.startup_timeout_ms}.`,
  ),
  tools: z.array(z.string().min(1)).optional().describe(
    "The server's tool names (as the server names them) the run may use. Default: all of them.",
  ),
  trust_annotations: z.boolean().optional().describe(
    "Believe the server's readOnlyHint/destructiveHint/idempotentHint/openWorldHint. Untrusted " +
      "(the default) tools are write tools of risk 3 that ask by default. Default: false.",
  ),
  required: z.boolean().optional().describe(
    "A server that cannot start stops the run (true) or is recorded as a warning and left out " +
      "(false). Default: true.",
  ),
};

/** A server started by kagent-run, talking MCP on its stdin and stdout. */
export const McpStdioServerSchema = z.strictObject({
  type: z.literal("stdio").optional().describe('"stdio" (the default when "command" is given).'),
  command: z.string().min(1).describe(
    "The program: a name searched in the server's PATH, or a path (relative to the config file).",
  ),
  args: z.array(z.string()).optional().describe("Its arguments. Default: []."),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).optional().describe(
    "Variables set for the server besides PATH, HOME, TMPDIR, LANG, LC_ALL and TERM. ${VAR} " +
      "takes VAR from kagent-run's environment; such values are secrets, redacted everywhere. " +
      "Nothing else of kagent-run's environment reaches the server.",
  ),
  cwd: z.string().min(1).optional().describe(
    "Working folder, relative to the workspace, inside the workspace. Default: the workspace.",
  ),
  write: z.boolean().optional().describe(
    "Under bubblewrap (sandbox.command_isolation bwrap, or auto with bubblewrap working), let the " +
      "server write the workspace and the write roots (protected paths stay read-only). False " +
      "(the default) binds them read-only. Ignored under isolation none. Default: false.",
  ),
  network: z.boolean().optional().describe(
    "Under bubblewrap, give the server the host's network (npx needs it to fetch a package). " +
      "False (the default) leaves it only an isolated loopback. Default: false.",
  ),
  ...kagentKeys,
});

/**
 * A server kagent-run reaches over HTTP, only through the network Worker (its `hostname:port`
 * joins the `mcp` network channel).
 */
export const McpHttpServerSchema = z.strictObject({
  type: z.enum(["http", "streamable-http", "sse"]).describe(
    '"http" or "streamable-http": Streamable HTTP (MCP 2025-03-26 and later). "sse": the older ' +
      "HTTP+SSE transport (MCP 2024-11-05), for servers that offer only that.",
  ),
  url: z.string().regex(/^https?:\/\/[^/?#\s]+/, { error: "must be an http:// or https:// URL" })
    .describe(
      'The server\'s MCP endpoint (the SSE endpoint for "sse"). Its hostname:port is the only ' +
        "host the requests may reach.",
    ),
  headers: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/), z.string()).optional()
    .describe(
      "Request headers sent with every request (e.g. Authorization). ${VAR} takes VAR from " +
        "kagent-run's environment; such values are secrets, redacted everywhere.",
    ),
  ...kagentKeys,
});

/** One `mcp_servers` entry. */
export const McpServerSchema = z.union([McpStdioServerSchema, McpHttpServerSchema]);

/** `mcp_servers`: server id → server. */
export const McpServersSchema = z.record(
  z.string().regex(MCP_SERVER_ID_PATTERN, {
    error:
      "must be a server id: lower-case letters, digits, _ and -, starting with a letter or digit",
  }),
  McpServerSchema,
).describe(
  "MCP servers whose tools join the run as mcp.<id>.<tool> (paste entries of an mcpServers " +
    "object). Default: none.",
);
