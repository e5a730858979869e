/**
 * The events of the run's MCP servers (`mcp_server.*`), part of {@link ./audit_event.ts}'s union.
 * Private to the folder.
 *
 * @module
 */

/** `mcp_server.started`, `.skipped`, `.tools_changed` and `.sandbox_violation` (docs/EVENTS.md). */
export type McpServerEvent =
  | {
    type: "mcp_server.started";
    /** The `mcp_servers` id. */
    server: string;
    /** How it is reached: a process it runs in (`stdio`), or HTTP (`streamable-http`, `sse`). */
    transport: "stdio" | "streamable-http" | "sse";
    /** The server's own name and version (from `initialize`), null when it gave none. */
    name: string | null;
    version: string | null;
    /** The MCP protocol version negotiated, e.g. `2025-11-25`. */
    protocol_version: string | null;
    /** Every tool name the server offered, as it named them. */
    offered: string[];
    /** The canonical names registered (`mcp.<server>.<tool>`). */
    registered: string[];
    /** Tools left out, with why (not in `tools`, a bad name, a schema outside the subset). */
    refused: { tool: string; reason: string }[];
    /**
     * Bubblewrap (with the server's `write` and `network`), or none: unconfined, with why; an HTTP
     * server: reached only through the network Worker's `mcp` channel, at `host`.
     */
    confinement:
      | { mode: "bwrap"; write: boolean; network: boolean }
      | { mode: "none"; reason: string }
      | { mode: "network_worker"; host: string };
  }
  | {
    type: "mcp_server.skipped";
    /** The `mcp_servers` id of a server with `required: false` that could not start. */
    server: string;
    /** Why it could not start. */
    reason: string;
  }
  | {
    type: "mcp_server.tools_changed";
    /**
     * The `mcp_servers` id of a server that sent `notifications/tools/list_changed`; the run's
     * tool set stays as the server listed it at start-up.
     */
    server: string;
    /**
     * How many it has sent in this run: 1 at the first (recorded then), the total when the run
     * closes the server (recorded again only if more came): at most two events a server.
     */
    count: number;
  }
  | {
    type: "mcp_server.sandbox_violation";
    /** The stdio server's `mcp_servers` id. */
    server: string;
    /** What it created where a protected path belongs; where it is now (null: removed). */
    quarantined: { path: string; moved_to: string | null }[];
    /** Found after one of its calls, when its process ended, or when the run closed. */
    found: "call" | "exit" | "close";
  };
