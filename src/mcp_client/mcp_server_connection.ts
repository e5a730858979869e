/**
 * One running MCP server, over stdio or HTTP: initialised and its tools listed within its start-up
 * time, then called with its call timeout. A failure to start is a {@linkcode ConfigError} naming
 * the server. `notifications/tools/list_changed` is passed on (the run's tool set stays as listed).
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type Tool, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { ConfigError, type LoadedMcpServer, mcpStartHint } from "../config/mod.ts";
import { terminalSafe } from "../approval/mod.ts";

/** What the server said about itself at start-up (recorded in the run folder). */
export interface McpServerIdentity {
  name: string | null;
  version: string | null;
  protocol_version: string | null;
}

/** Longest a Streamable HTTP server may take to end its session when the run closes, in ms. */
const SESSION_END_MS = 2_000;

/** How to connect to one server. */
export interface McpConnectOptions {
  id: string;
  server: LoadedMcpServer;
  /** The transport, not yet started: a stdio process, or Streamable HTTP / SSE through a fetch. */
  transport: Transport;
  /** How start-up errors name the server: its command or its URL. */
  label: string;
  /** The last lines the server wrote on stderr (stdio), for start-up errors. @default none */
  stderrTail?: () => string;
  /**
   * Redacts what the server wrote or answered before a start-up error shows it (its expanded
   * `${VAR}` values, token shapes). @default kept as it is
   */
  redact?: (text: string) => string;
  /** Called on each `notifications/tools/list_changed` the server sends. @default ignored */
  onToolListChanged?: () => void;
  /** The config file, named by start-up errors. */
  configPath: string;
}

/** A server whose tools are listed and which can be called until it is closed. */
export class McpServerConnection {
  readonly id: string;
  readonly identity: McpServerIdentity;
  readonly tools: Tool[];
  readonly #client: Client;
  readonly #transport: Transport;
  readonly #timeoutMs: number;

  private constructor(
    id: string,
    client: Client,
    transport: Transport,
    tools: Tool[],
    timeoutMs: number,
    protocolVersion: string | null,
  ) {
    this.id = id;
    this.#client = client;
    this.#transport = transport;
    this.tools = tools;
    this.#timeoutMs = timeoutMs;
    const version = client.getServerVersion();
    this.identity = {
      name: version?.name ?? null,
      version: version?.version ?? null,
      protocol_version: protocolVersion,
    };
  }

  /**
   * Starts the transport, initialises the session and lists every tool (all pages).
   *
   * @throws {ConfigError} `mcp_server_failed`, naming `mcp_servers.<id>`, when the server cannot
   *   start or be reached, answers garbage or does not finish within `startup_timeout_ms`.
   */
  static async connect(options: McpConnectOptions): Promise<McpServerConnection> {
    const { id, server, transport } = options;
    // The SDK's client tells the transport the negotiated version; every transport gets it here.
    let protocolVersion: string | null = null;
    const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (version: string) => {
      protocolVersion = version;
      setProtocolVersion?.(version);
    };
    const client = new Client({ name: "kagent-run", version: "0.1.0" }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      options.onToolListChanged?.();
    });
    const deadline = AbortSignal.timeout(server.startup_timeout_ms);
    try {
      const request = { timeout: server.startup_timeout_ms, signal: deadline };
      await client.connect(transport, request);
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, request);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined && tools.length < 10_000);
      return new McpServerConnection(
        id,
        client,
        transport,
        tools,
        server.timeout_ms,
        protocolVersion,
      );
    } catch (error) {
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      const redact = options.redact ?? ((text: string) => text);
      const reason = deadline.aborted
        ? `it did not start and list its tools within ${server.startup_timeout_ms} ms ` +
          `(mcp_servers.${id}.startup_timeout_ms)`
        : terminalSafe(redact(failureText(error)));
      const tail = options.stderrTail?.() ?? "";
      const stderr = errorOutputText(tail, redact);
      const hint = mcpStartHint(server, id, tail.trim());
      throw new ConfigError({
        code: "mcp_server_failed",
        file: options.configPath,
        key: `mcp_servers.${id}`,
        message: `Cannot start MCP server "${id}" ("${options.label}"): ${reason}` +
          (stderr === "" ? "" : `; its last error output: ${stderr}`) +
          (hint === null ? "" : `; to fix: ${hint}`),
      });
    }
  }

  /**
   * Calls one tool by the server's own name.
   *
   * @returns The raw result. @throws when the server fails, exits, times out
   *   (`timeout_ms`) or answers something that is not a call result.
   */
  async call(
    toolName: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    return await this.#client.callTool(
      { name: toolName, arguments: args },
      undefined,
      { timeout: this.#timeoutMs, ...(signal === undefined ? {} : { signal }) },
    ) as Record<string, unknown>;
  }

  /** The call timeout, in ms. */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /**
   * Ends the session (a Streamable HTTP server is asked to end it, for at most 2 s) and the
   * transport: a stdio server's whole process group is killed, an HTTP server's open requests
   * are cancelled.
   */
  async close(): Promise<void> {
    if (this.#transport instanceof StreamableHTTPClientTransport) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.#transport.terminateSession().catch(() => undefined),
        new Promise((resolve) => timer = setTimeout(resolve, SESSION_END_MS)),
      ]);
      clearTimeout(timer);
    }
    await this.#client.close().catch(() => undefined);
    await this.#transport.close().catch(() => undefined);
  }
}

/** Lines of a server's error output a start-up error shows (the last ones). */
const SHOWN_ERROR_LINES = 3;

/**
 * A server's error output as a start-up error shows it, on one line: its last
 * {@linkcode SHOWN_ERROR_LINES} non-blank lines (split at LF, CRLF and a lone CR), each redacted,
 * then written through `terminalSafe` (the escaping of every terminal and CI output: control
 * characters, CR and LF included, become `\u` escapes), joined by ` | `. So the output cannot
 * start a line of its own: a GitHub runner never reads `::add-mask::`, `::error` or
 * `::stop-commands::` from it, and a terminal never gets its escape sequences.
 *
 * @param tail What the server wrote on stderr (its last few KiB).
 * @param redact Redacts one line.
 * @example
 * ```ts
 * import { errorOutputText } from "./mcp_server_connection.ts";
 * const text = errorOutputText("boot\r\n::add-mask::x\r::stop-commands::t\n", (line) => line);
 * console.assert(text === "boot | ::add-mask::x | ::stop-commands::t");
 * ```
 */
export function errorOutputText(tail: string, redact: (text: string) => string): string {
  const lines = tail.split(/\r\n|\n|\r/).filter((line) => line.trim() !== "");
  return lines.slice(-SHOWN_ERROR_LINES)
    .map((line) => terminalSafe(redact(line.trim())))
    .join(" | ");
}

/**
 * What a server's failure says: the error's message, led by the HTTP status when the Streamable
 * HTTP transport got an error status (its `code`; -1 for an answer that was not MCP), so a message
 * cut short still shows it.
 *
 * @example
 * ```ts
 * import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
 * import { failureText } from "./mcp_server_connection.ts";
 * const text = failureText(new StreamableHTTPError(500, "Error POSTing to endpoint: boom"));
 * console.assert(text.startsWith("HTTP 500: ") && text.endsWith("boom"));
 * ```
 */
export function failureText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof StreamableHTTPError ? (error as { code?: unknown }).code : null;
  return typeof code === "number" && code >= 100 ? `HTTP ${code}: ${message}` : message;
}
