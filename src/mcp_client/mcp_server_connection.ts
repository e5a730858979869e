/**
 * One running MCP server: started, initialised and its tools listed within its start-up time, then
 * called with its call timeout. A failure to start is a {@linkcode ConfigError} naming the server.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { ConfigError, type LoadedMcpServer } from "../config/mod.ts";
import type { McpLaunch } from "./server_confinement.ts";
import { StdioProcessTransport } from "./stdio_process_transport.ts";

/** What the server said about itself at start-up (recorded in the run folder). */
export interface McpServerIdentity {
  name: string | null;
  version: string | null;
  protocol_version: string | null;
}

/** How to start one server. */
export interface McpConnectOptions {
  id: string;
  server: LoadedMcpServer;
  /**
   * What `setsid` runs: the server's program, or `bwrap` with its profile and the program (see
   * `mcpLaunch`), with the server's whole environment.
   */
  launch: McpLaunch;
  setsidPath: string;
  /** The config file, named by start-up errors. */
  configPath: string;
}

/** A server whose tools are listed and which can be called until it is closed. */
export class McpServerConnection {
  readonly id: string;
  readonly identity: McpServerIdentity;
  readonly tools: Tool[];
  readonly #client: Client;
  readonly #transport: StdioProcessTransport;
  readonly #timeoutMs: number;

  private constructor(
    id: string,
    client: Client,
    transport: StdioProcessTransport,
    tools: Tool[],
    timeoutMs: number,
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
      protocol_version: transport.protocolVersion,
    };
  }

  /**
   * Starts the server, initialises the session and lists every tool (all pages).
   *
   * @throws {ConfigError} `mcp_server_failed`, naming `mcp_servers.<id>`, when the program cannot
   *   start, exits, answers garbage or does not finish within `startup_timeout_ms`.
   */
  static async connect(options: McpConnectOptions): Promise<McpServerConnection> {
    const { id, server } = options;
    const transport = new StdioProcessTransport({
      setsidPath: options.setsidPath,
      command: options.launch.program,
      args: options.launch.args,
      env: options.launch.env,
      cwd: server.cwd,
    });
    const client = new Client({ name: "kagent-run", version: "0.1.0" }, { capabilities: {} });
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
      return new McpServerConnection(id, client, transport, tools, server.timeout_ms);
    } catch (error) {
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      const reason = deadline.aborted
        ? `it did not start and list its tools within ${server.startup_timeout_ms} ms ` +
          `(mcp_servers.${id}.startup_timeout_ms)`
        : error instanceof Error
        ? error.message
        : String(error);
      const stderr = transport.stderrTail.trim().split("\n").slice(-3).join(" | ");
      throw new ConfigError({
        code: "mcp_server_failed",
        file: options.configPath,
        key: `mcp_servers.${id}`,
        message: `Cannot start MCP server "${id}" ("${server.command}"): ${reason}` +
          (stderr === "" ? "" : `; its last error output: ${stderr}`),
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

  /** Ends the session and kills the server's whole process group. */
  async close(): Promise<void> {
    await this.#client.close().catch(() => undefined);
    await this.#transport.close().catch(() => undefined);
  }
}
