/**
 * kagent-run as an MCP server: one server = one run, whatever the number of client connections
 * (stdio has one; Streamable HTTP has one a session). Each connection gets its own SDK low-level
 * `Server`, which answers `tools/list` with the run's effective tool set and sends every
 * `tools/call` through the whole pipeline (`RunSession.runtime.call`), recorded like any run.
 *
 * The run opens when the first client has initialised, with an {@linkcode ElicitationApprover}
 * that asks each call's own client: one that supports form elicitation is asked, any other is
 * not (an `ask` then ends as `approval_required`, its `isError` result carrying the grant).
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
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { countResults, type ResultCounts } from "../../runtime/mod.ts";
import type { Approver } from "../../approval/mod.ts";
import type { RunSession } from "../../session/mod.ts";
import { ElicitationApprover, type Elicitor } from "./elicitation_approver.ts";
import { toCallToolResult } from "./result_mapping.ts";
import { listMcpTools } from "./tool_listing.ts";

/**
 * Longest wait for the client's user to answer an elicitation, in ms (the SDK's own default, 60 s,
 * is short for a person; the approval gate's timeout bounds it too).
 */
const ELICITATION_TIMEOUT_MS = 300_000;

/** How an MCP run server is built. */
export interface McpRunServerOptions {
  /** The version announced in `initialize` (the server name is `kagent-run`). */
  version: string;
  /**
   * Opens the run with the approver to use (it asks each call's client, when that client can be
   * asked). Called once, when the first client has initialised. A rejection fails every call with
   * its message.
   */
  openSession(approver: Approver): Promise<RunSession>;
  /** @default () => new Date() */
  now?: () => Date;
}

/** One client connection: its SDK server and when it closed. */
export interface McpConnection {
  /** The SDK server of this connection. */
  readonly server: Server;
  /** Settles when the transport closed (stdin ended, the HTTP session was deleted). */
  readonly closed: Promise<void>;
}

/**
 * One run served to MCP clients.
 *
 * @example
 * ```ts ignore
 * const server = new McpRunServer({ version: "0.1.0", openSession: (approver) =>
 *   openRunSession(config, { approver }) });
 * const connection = await server.connect(new StdioServerTransport());
 * await connection.closed; // the client went away
 * await server.close("completed");
 * ```
 */
export class McpRunServer {
  readonly #options: McpRunServerOptions;
  /** How the calls served so far ended (results are not kept: a server lives for many calls). */
  #counts: ResultCounts = { calls: 0, denied: 0, failed: 0, skipped: 0 };
  readonly #started: number;
  readonly #connections = new Set<Server>();
  /** The client connection of each call under way, by tool call id (for elicitation). */
  readonly #callers = new Map<string, Elicitor | null>();
  #session: Promise<RunSession> | null = null;
  #callCount = 0;
  #closing: Promise<void> | null = null;

  /** Builds the server; nothing opens before a client initialises. */
  constructor(options: McpRunServerOptions) {
    this.#options = options;
    this.#started = this.#now();
  }

  /**
   * Serves one client connection on `transport` until it closes. The run is shared with every
   * other connection.
   *
   * @throws {Error} once {@linkcode McpRunServer.close} has been called.
   */
  async connect(transport: Transport): Promise<McpConnection> {
    if (this.#closing !== null) throw new Error("Cannot connect an MCP client: the run has ended");
    const server = new Server(
      { name: "kagent-run", version: this.#options.version },
      {
        capabilities: { tools: { listChanged: false } },
        instructions: "kagent-run's sandboxed, audited tools. Every call goes through the run's " +
          "policy, path guard and approvals; a refused call is an isError result naming the rule.",
      },
    );
    const closed = Promise.withResolvers<void>();
    server.oninitialized = () => void this.#open();
    server.onclose = () => {
      this.#connections.delete(server);
      closed.resolve();
    };
    server.setRequestHandler(ListToolsRequestSchema, () => this.#listTools());
    server.setRequestHandler(
      CallToolRequestSchema,
      (request: CallToolRequest, extra: { signal: AbortSignal; requestId: RequestId }) =>
        this.#callTool(
          request.params.name,
          request.params.arguments ?? {},
          extra.signal,
          elicitorOf(server, extra.requestId),
        ),
    );
    this.#connections.add(server);
    await server.connect(transport);
    return { server, closed: closed.promise };
  }

  /** How the calls served so far ended: counted as they end, for `run.completed`. */
  get counts(): Readonly<ResultCounts> {
    return this.#counts;
  }

  /**
   * Ends the run: records `run.completed` (`end_reason` as given: `completed` when the client
   * left, `aborted` on a signal) with the call counts, closes the session and every connection.
   * Safe to call twice.
   */
  close(endReason: string): Promise<void> {
    this.#closing ??= this.#close(endReason);
    return this.#closing;
  }

  async #close(endReason: string): Promise<void> {
    const session = this.#session === null ? null : await this.#session.catch(() => null);
    if (session !== null) {
      await session.recorder.event("run.completed", {
        end_reason: endReason,
        ...this.#counts,
        duration_ms: Math.max(0, this.#now() - this.#started),
      });
      await session.close();
    }
    await Promise.all([...this.#connections].map((server) => server.close().catch(() => {})));
  }

  #now(): number {
    return (this.#options.now ?? (() => new Date()))().getTime();
  }

  #open(): Promise<RunSession> {
    if (this.#session === null) {
      this.#session = this.#options.openSession(
        new ElicitationApprover((toolCallId) => this.#callers.get(toolCallId) ?? null),
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

  async #callTool(
    name: string,
    args: unknown,
    signal: AbortSignal,
    elicitor: Elicitor | null,
  ): Promise<CallToolResult> {
    const session = await this.#open();
    this.#callCount += 1;
    const id = `mcp-${this.#callCount}`;
    this.#callers.set(id, elicitor);
    try {
      const result = await session.runtime.call(
        { id, name, arguments: JSON.stringify(args) },
        signal,
      );
      const counted = countResults([result]);
      this.#counts = {
        calls: this.#counts.calls + counted.calls,
        denied: this.#counts.denied + counted.denied,
        failed: this.#counts.failed + counted.failed,
        skipped: this.#counts.skipped + counted.skipped,
      };
      return toCallToolResult(result);
    } finally {
      this.#callers.delete(id);
    }
  }
}

/**
 * How to ask the user of the client that sent request `requestId`: its elicitation requests go
 * out as part of that request (over HTTP, on the request's own response stream). Null when the
 * client did not announce form elicitation (an empty `elicitation: {}` means form; a URL-only
 * client cannot answer a form).
 */
function elicitorOf(server: Server, requestId: RequestId): Elicitor | null {
  if (server.getClientCapabilities()?.elicitation?.form === undefined) return null;
  return {
    elicitInput: (params, options) =>
      server.elicitInput(params, {
        ...options,
        relatedRequestId: requestId,
        timeout: ELICITATION_TIMEOUT_MS,
      }),
  };
}
