/**
 * kagent-run as an MCP server: one server = one run. The SDK's low-level `Server` answers
 * `tools/list` with the run's effective tool set and sends every `tools/call` through the whole
 * pipeline (`RunSession.runtime.call`), recorded like any run.
 *
 * The run opens once the client has initialised, when its capabilities are known: a client that
 * supports elicitation gets an {@linkcode ElicitationApprover}, any other client none (an `ask`
 * then ends as `approval_required`, its `isError` result carrying the grant).
 *
 * @module
 */

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ListToolsResult,
} from "@modelcontextprotocol/sdk/types.js";
import { countResults } from "../../agent/mod.ts";
import type { Approver } from "../../approval/mod.ts";
import type { ToolResult } from "../../result/mod.ts";
import type { RunSession } from "../../session/mod.ts";
import { ElicitationApprover } from "./elicitation_approver.ts";
import { toCallToolResult } from "./result_mapping.ts";
import { listMcpTools } from "./tool_listing.ts";

/** How an MCP run server is built. */
export interface McpRunServerOptions {
  /** The version announced in `initialize` (the server name is `kagent-run`). */
  version: string;
  /**
   * Opens the run, with the approver the client allows (null: nobody can approve). Called once,
   * when the client has initialised. A rejection fails every call with its message.
   */
  openSession(approver: Approver | null): Promise<RunSession>;
  /** @default () => new Date() */
  now?: () => Date;
}

/**
 * One MCP server over one run session.
 *
 * @example
 * ```ts ignore
 * const server = new McpRunServer({ version: "0.1.0", openSession: (approver) =>
 *   openRunSession(config, { approver }) });
 * await server.connect(new StdioServerTransport());
 * await server.closed; // the client went away
 * await server.close("completed");
 * ```
 */
export class McpRunServer {
  /** The SDK server (for tests and transports). */
  readonly server: Server;
  readonly #options: McpRunServerOptions;
  readonly #results: ToolResult[] = [];
  readonly #started: number;
  #session: Promise<RunSession> | null = null;
  #callCount = 0;
  #closing: Promise<void> | null = null;
  #resolveClosed: () => void = () => {};
  /** Settles when the transport closed (stdin ended, the client disconnected). */
  readonly closed: Promise<void>;

  /** Builds the server; nothing opens before {@linkcode McpRunServer.connect}. */
  constructor(options: McpRunServerOptions) {
    this.#options = options;
    this.#started = (options.now ?? (() => new Date()))().getTime();
    this.closed = new Promise((resolve) => this.#resolveClosed = resolve);
    this.server = new Server(
      { name: "kagent-run", version: options.version },
      {
        capabilities: { tools: { listChanged: false } },
        instructions: "kagent-run's sandboxed, audited tools. Every call goes through the run's " +
          "policy, path guard and approvals; a refused call is an isError result naming the rule.",
      },
    );
    this.server.oninitialized = () => void this.#open();
    this.server.onclose = () => this.#resolveClosed();
    this.server.setRequestHandler(ListToolsRequestSchema, () => this.#listTools());
    this.server.setRequestHandler(
      CallToolRequestSchema,
      (request: CallToolRequest, extra: { signal: AbortSignal }) =>
        this.#callTool(request.params.name, request.params.arguments ?? {}, extra.signal),
    );
  }

  /** Serves on `transport` until it closes. */
  async connect(transport: Transport): Promise<void> {
    await this.server.connect(transport);
  }

  /** The ToolResults of the calls served so far, in order. */
  get results(): readonly ToolResult[] {
    return this.#results;
  }

  /**
   * Ends the run: records `run.completed` (`end_reason` as given: `completed` when the client
   * left, `aborted` on a signal) with the call counts, closes the session and the transport. Safe
   * to call twice.
   */
  close(endReason: string): Promise<void> {
    this.#closing ??= this.#close(endReason);
    return this.#closing;
  }

  async #close(endReason: string): Promise<void> {
    const session = this.#session === null ? null : await this.#session.catch(() => null);
    if (session !== null) {
      const now = (this.#options.now ?? (() => new Date()))().getTime();
      await session.recorder.event("run.completed", {
        end_reason: endReason,
        ...countResults(this.#results),
        duration_ms: Math.max(0, now - this.#started),
      });
      await session.close();
    }
    await this.server.close().catch(() => {});
  }

  #open(): Promise<RunSession> {
    if (this.#session === null) {
      // Form elicitation (an empty `elicitation: {}` means form); a URL-only client cannot answer.
      const elicitation = this.server.getClientCapabilities()?.elicitation?.form !== undefined;
      this.#session = this.#options.openSession(
        elicitation ? new ElicitationApprover(this.server) : null,
      );
      // Kept for the calls to report; an unhandled rejection would end the process.
      this.#session.catch(() => {});
    }
    return this.#session;
  }

  async #listTools(): Promise<ListToolsResult> {
    const session = await this.#open();
    return { tools: listMcpTools(session.registry, session.runtime.policy) };
  }

  async #callTool(name: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    const session = await this.#open();
    this.#callCount += 1;
    const result = await session.runtime.call(
      { id: `mcp-${this.#callCount}`, name, arguments: JSON.stringify(args) },
      signal,
    );
    this.#results.push(result);
    return toCallToolResult(result);
  }
}
