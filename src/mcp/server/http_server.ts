/**
 * One run served over MCP Streamable HTTP (the SDK's web-standard server transport on
 * `Deno.serve`), on a loopback address, behind a bearer token. Each MCP session (an `initialize`
 * without `Mcp-Session-Id`) gets its own transport and SDK server, all sharing one
 * {@linkcode McpRunServer}: one process, one run folder, whatever the number of sessions.
 *
 * Every request is checked before the SDK sees it, in this order: the path (`/mcp`, else 404),
 * the Host and Origin headers against DNS rebinding (403), the bearer token (401 with
 * `WWW-Authenticate: Bearer`), and for a new session the number open (503 past `maxSessions`). A
 * refused request never reaches the run: nothing is called, nothing recorded. Request bodies are
 * bounded by the SDK transport before they are parsed (4 MiB, 413 past it).
 *
 * A session whose client left without DELETE (the official SDK's `close()` sends none) expires:
 * one with no request in flight (an open GET event stream counts as one) for `idleTimeoutMs` is
 * closed, by a sweep every quarter of the timeout and before a new session would be refused, so
 * 64 clients that vanish never lock the server out.
 *
 * @module
 */

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type BearerToken, type LoopbackAddress, mcpUrl, rebindingRefusal } from "./http_access.ts";
import type { McpRunServer } from "./run_server.ts";

/** The one path served. */
const MCP_PATH = "/mcp";

/** How {@linkcode McpHttpServer.start} serves. */
export interface McpHttpServerOptions {
  /** Where to listen (from `parseLoopbackAddress`). */
  address: LoopbackAddress;
  /** The bearer token clients must send (`Authorization: Bearer <token>`). */
  token: BearerToken;
  /** The run every session shares. */
  runServer: McpRunServer;
  /** Told about requests refused and transport faults (never with the token). @default none */
  onRefused?: (message: string) => void;
  /**
   * Most MCP sessions open at once (initialised and not yet deleted, or initialising); an
   * `initialize` past it is answered 503 and opens nothing, so a client that never deletes its
   * sessions cannot grow the process without bound. @default {@linkcode MAX_SESSIONS}
   */
  maxSessions?: number;
  /**
   * Milliseconds a session may go without a request in flight before it is closed (its client
   * left without DELETE); a later request with its id gets 404, as for a deleted session.
   * @default {@linkcode SESSION_IDLE_TIMEOUT_MS} (5 minutes)
   */
  idleTimeoutMs?: number;
  /** The clock, in milliseconds. @default Date.now */
  now?: () => number;
}

/** Default of {@linkcode McpHttpServerOptions.maxSessions}. */
export const MAX_SESSIONS = 64;

/** Default of {@linkcode McpHttpServerOptions.idleTimeoutMs}: 5 minutes. */
export const SESSION_IDLE_TIMEOUT_MS = 300_000;

/** One open session: its transport, requests in flight, and when the last one started or ended. */
interface OpenSession {
  transport: WebStandardStreamableHTTPServerTransport;
  inFlight: number;
  lastActive: number;
}

/**
 * An HTTP listener serving one {@linkcode McpRunServer}.
 *
 * @example
 * ```ts ignore
 * const http = McpHttpServer.start({
 *   address: parseLoopbackAddress("127.0.0.1:0"),
 *   token: new BearerToken(Deno.env.get("KAGENT_RUN_MCP_TOKEN")!),
 *   runServer,
 * });
 * console.error(`serving ${http.url}`);
 * // … on SIGTERM:
 * await runServer.close("aborted");
 * await http.shutdown();
 * ```
 */
export class McpHttpServer {
  /** `http://HOST:PORT/mcp`, with the port the system chose when 0 was asked. */
  readonly url: string;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #options: McpHttpServerOptions;
  readonly #sessions = new Map<string, OpenSession>();
  /** Sessions whose `initialize` is being answered. */
  #opening = 0;
  readonly #idleTimeoutMs: number;
  readonly #now: () => number;
  readonly #sweep: ReturnType<typeof setInterval>;

  private constructor(options: McpHttpServerOptions) {
    this.#options = options;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? SESSION_IDLE_TIMEOUT_MS;
    if (!Number.isFinite(this.#idleTimeoutMs) || this.#idleTimeoutMs <= 0) {
      throw new RangeError(
        `Cannot serve MCP with idleTimeoutMs "${this.#idleTimeoutMs}": it must be a positive number`,
      );
    }
    this.#now = options.now ?? Date.now;
    this.#sweep = setInterval(
      () => void this.#expireIdle(),
      Math.max(50, Math.min(this.#idleTimeoutMs / 4, 60_000)),
    );
    // The sweep never keeps the process alive on its own.
    Deno.unrefTimer(Number(this.#sweep));
    this.#server = Deno.serve({
      hostname: options.address.hostname,
      port: options.address.port,
      onListen: () => {},
      onError: (error) => {
        this.#options.onRefused?.(`Cannot answer an MCP request: ${errorMessage(error)}`);
        return jsonRpcError(500, -32603, "Internal error");
      },
    }, (request, info) => this.#handle(request, info.completed));
    this.url = mcpUrl({ hostname: options.address.hostname, port: this.#server.addr.port });
  }

  /**
   * Binds the address and starts answering.
   *
   * @throws {Deno.errors.AddrInUse} when the port is taken, or another `Deno.serve` error.
   */
  static start(options: McpHttpServerOptions): McpHttpServer {
    return new McpHttpServer(options);
  }

  /** Live MCP sessions (initialised, not deleted). */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /**
   * Stops accepting connections and waits for open requests to end. Close the run server first:
   * that ends every session's streams, which a graceful shutdown would otherwise wait for.
   */
  async shutdown(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.all([...this.#sessions.values()].map((open) => open.transport.close()));
    await this.#server.shutdown();
  }

  /** Closes every session idle for the timeout; returns how many. */
  async #expireIdle(): Promise<number> {
    const now = this.#now();
    const idle = [...this.#sessions].filter(([, open]) =>
      open.inFlight === 0 && now - open.lastActive >= this.#idleTimeoutMs
    );
    for (const [id] of idle) this.#sessions.delete(id);
    await Promise.all(idle.map(([, open]) => open.transport.close().catch(() => {})));
    if (idle.length > 0) {
      this.#options.onRefused?.(
        `Closed ${idle.length} idle MCP session(s): no request for ${this.#idleTimeoutMs} ms`,
      );
    }
    return idle.length;
  }

  /** Counts a request of `open` in flight until its response is delivered (or abandoned). */
  #track(open: OpenSession, completed: Promise<void>): void {
    open.inFlight += 1;
    open.lastActive = this.#now();
    completed.catch(() => {}).finally(() => {
      open.inFlight -= 1;
      open.lastActive = this.#now();
    });
  }

  async #handle(request: Request, completed: Promise<void>): Promise<Response> {
    if (new URL(request.url).pathname !== MCP_PATH) {
      return jsonRpcError(404, -32000, `Not found: MCP is served at ${MCP_PATH}`);
    }
    const refusal = rebindingRefusal(request.headers);
    if (refusal !== null) {
      this.#options.onRefused?.(`Refused an MCP request: ${refusal}`);
      return jsonRpcError(403, -32000, `Forbidden: ${refusal}`);
    }
    if (!this.#options.token.matches(request.headers.get("authorization"))) {
      this.#options.onRefused?.("Refused an MCP request: no valid bearer token");
      return jsonRpcError(401, -32000, "Unauthorized: send Authorization: Bearer <token>", {
        "WWW-Authenticate": 'Bearer realm="kagent-run", error="invalid_token"',
      });
    }
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const open = this.#sessions.get(sessionId);
      if (open === undefined) return jsonRpcError(404, -32001, "Session not found");
      this.#track(open, completed);
      return await open.transport.handleRequest(request);
    }
    if (request.method !== "POST") {
      return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
    }
    const maxSessions = this.#options.maxSessions ?? MAX_SESSIONS;
    const full = () => this.#sessions.size + this.#opening >= maxSessions;
    if (full() && await this.#expireIdle() === 0 || full()) {
      this.#options.onRefused?.(`Refused an MCP session: ${maxSessions} sessions are open`);
      await request.body?.cancel();
      return jsonRpcError(
        503,
        -32000,
        `Service Unavailable: ${maxSessions} MCP sessions are open, the most this server keeps; ` +
          "end one (DELETE with its Mcp-Session-Id) before starting another",
      );
    }
    this.#opening += 1;
    try {
      return await this.#newSession(request, completed);
    } finally {
      this.#opening -= 1;
    }
  }

  /** A POST without a session: a new session when it is an `initialize`, else the SDK's 400. */
  async #newSession(request: Request, completed: Promise<void>): Promise<Response> {
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id: string) => {
          const open: OpenSession = { transport, inFlight: 0, lastActive: this.#now() };
          this.#sessions.set(id, open);
          this.#track(open, completed);
        },
        onsessionclosed: (id: string) => void this.#sessions.delete(id),
      });
    transport.onerror = (error: Error) =>
      this.#options.onRefused?.(`MCP transport fault: ${errorMessage(error)}`);
    const connection = await this.#options.runServer.connect(transport);
    connection.closed.then(() => {
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
    });
    const response = await transport.handleRequest(request);
    // Not an initialize (the SDK answered 400): no session was made, drop the connection.
    if (transport.sessionId === undefined) await connection.server.close();
    return response;
  }
}

function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
