/**
 * The MCP servers of a run: each stdio server started with a cleared environment (allowlisted
 * names plus its configured `env`, `${VAR}` expanded as secrets), each HTTP server reached through
 * the network gateway's `mcp` channel with its `headers` (`${VAR}` expanded as secrets); their
 * tools turned into definitions (refusals recorded per tool), their calls run on the main thread,
 * every process and session ended on close.
 *
 * Each stdio server runs in its own process group; under bubblewrap with the commands' mount
 * profile (see `server_confinement.ts`), under isolation `none` unconfined, as the user (recorded
 * as such).
 *
 * @module
 */

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ConfigError, type LoadedMcpHttpServer, type LoadedMcpServer } from "../config/mod.ts";
import { Redactor } from "../audit/mod.ts";
import { runViewsFolder, sweepMarked } from "../exec/mod.ts";
import { hostPermission } from "../network/mod.ts";
import type { ToolDefinition } from "../tools/mod.ts";
import { failure, type ToolOutcome } from "../result/mod.ts";
import { mcpCallOutcome, type McpResultStores } from "./mcp_call_result.ts";
import type { McpServerConnection, McpServerIdentity } from "./mcp_server_connection.ts";
import { mcpToolDefinition } from "./mcp_tool_definition.ts";
import type { McpConfinement } from "./server_confinement.ts";
import { expandServerVariable } from "./server_variables.ts";
import { findSetsid, stdioTransport } from "./_stdio_server.ts";
import { ServerWatches, type ViolationListener, violationMessage } from "./server_watch.ts";

/** The SDK's side of the client, loaded by {@linkcode McpServers.start}. */
type ClientParts = typeof import("./_client_parts.ts");

/** Most characters of a server's failure kept in a call's error message. */
const MAX_FAILURE_CHARS = 1_000;

/** What the run folder records of one server (the `mcp_server.started` event). */
export interface McpServerRecord extends McpServerIdentity {
  server: string;
  /** How it is reached: a process it runs in, or HTTP. */
  transport: "stdio" | "streamable-http" | "sse";
  /** Every tool name the server offered. */
  offered: string[];
  /** The canonical names registered. */
  registered: string[];
  /**
   * How the server is confined: `bwrap` (with its `write` and `network`), or `none` with why
   * (it then runs unconfined, as the user); an HTTP server is `network_worker`: reached only
   * through the network Worker's `mcp` channel, at `host` (`hostname:port`).
   */
  confinement:
    | { mode: "bwrap"; write: boolean; network: boolean }
    | { mode: "none"; reason: string }
    | { mode: "network_worker"; host: string };
  /** Tools left out, with why (not in `tools`, a bad name, a schema outside the subset). */
  refused: { tool: string; reason: string }[];
}

/** How to start the servers. */
export interface StartMcpServersOptions {
  servers: Record<string, LoadedMcpServer>;
  /** Reads kagent-run's environment (for the allowlist and `${VAR}`). */
  read: (name: string) => string | undefined;
  configPath: string;
  /** How to confine the servers. */
  confinement: McpConfinement;
  /** @default the first of /usr/bin/setsid, /bin/setsid that exists */
  setsidPath?: string;
  /**
   * How requests to HTTP servers leave: the network gateway's `mcp` channel. Without it an HTTP
   * server cannot start (kagent-run reaches them only through the network Worker). @default none
   */
  fetch?: typeof fetch;
}

/**
 * Where `notifications/tools/list_changed` go: the first listener gets those sent before it was
 * added (kept only until then: a server may send thousands), then every listener each new one.
 */
class ToolListChanges {
  #seen: string[] = [];
  readonly #listeners: ((server: string) => void)[] = [];

  notify(server: string): void {
    if (this.#listeners.length === 0) this.#seen.push(server);
    for (const listener of this.#listeners) listener(server);
  }

  listen(listener: (server: string) => void): void {
    this.#listeners.push(listener);
    for (const server of this.#seen) listener(server);
    this.#seen = [];
  }
}

/**
 * The started servers: their tool definitions, records, warnings (servers with `required: false`
 * that could not start), secrets (expanded `${VAR}` values), and their calls.
 */
export class McpServers {
  readonly tools: ToolDefinition[];
  readonly records: McpServerRecord[];
  /** Servers with `required: false` that could not start, with why. */
  readonly warnings: { server: string; reason: string }[];
  readonly secrets: string[];
  readonly #connections: McpServerConnection[];
  readonly #parts: ClientParts;
  readonly #toolListChanges: ToolListChanges;
  readonly #watches: ServerWatches;
  readonly #confinement: McpConfinement;
  /** Canonical name → server and its own tool name. */
  readonly #routes: Map<string, { connection: McpServerConnection; tool: string }>;

  private constructor(
    parts: ClientParts,
    connections: McpServerConnection[],
    settings: Record<string, LoadedMcpServer>,
    warnings: { server: string; reason: string }[],
    secrets: string[],
    confinement: McpConfinement,
    toolListChanges: ToolListChanges,
    watches: ServerWatches,
  ) {
    this.#parts = parts;
    this.#watches = watches;
    this.#confinement = confinement;
    this.#connections = connections;
    this.#toolListChanges = toolListChanges;
    this.warnings = warnings;
    this.secrets = secrets;
    this.tools = [];
    this.records = [];
    this.#routes = new Map();
    for (const connection of connections) {
      const server = settings[connection.id] as LoadedMcpServer;
      const record: McpServerRecord = {
        server: connection.id,
        transport: server.type === "stdio"
          ? "stdio"
          : server.type === "sse"
          ? "sse"
          : "streamable-http",
        ...connection.identity,
        offered: connection.tools.map((tool) => tool.name),
        registered: [],
        refused: [],
        confinement: server.type !== "stdio"
          ? { mode: "network_worker", host: hostPermission(server.url) }
          : confinement.mode !== "bwrap"
          ? { mode: "none", reason: confinement.reason }
          : { mode: "bwrap", write: server.write, network: server.network },
      };
      for (const tool of connection.tools) {
        if (server.tools !== null && !server.tools.includes(tool.name)) {
          record.refused.push({ tool: tool.name, reason: "not in the server's tools allowlist" });
          continue;
        }
        const built = mcpToolDefinition(connection.id, tool, server.trust_annotations, {
          remote: server.type !== "stdio",
        });
        if ("refusal" in built) {
          record.refused.push({ tool: tool.name, reason: built.refusal });
        } else if (this.#routes.has(built.definition.name)) {
          record.refused.push({ tool: tool.name, reason: "the server offered this name twice" });
        } else {
          this.tools.push(built.definition);
          this.#routes.set(built.definition.name, { connection, tool: tool.name });
          record.registered.push(built.definition.name);
        }
      }
      this.records.push(record);
    }
  }

  /**
   * Starts (stdio) or connects to (HTTP) every server, in config order.
   *
   * @throws {ConfigError} `mcp_server_failed` naming the first required server that cannot start
   *   or be reached (the servers already started are closed first).
   */
  static async start(options: StartMcpServersOptions): Promise<McpServers> {
    const parts = await import("./_client_parts.ts");
    const servers = Object.entries(options.servers);
    const setsidPath = servers.some(([, server]) => server.type === "stdio")
      ? options.setsidPath ?? await findSetsid()
      : "";
    const connections: McpServerConnection[] = [];
    const warnings: { server: string; reason: string }[] = [];
    const secrets: string[] = [];
    const toolListChanges = new ToolListChanges();
    const confinement = options.confinement;
    const watches = new ServerWatches(
      confinement.mode === "off" ? null : confinement.quarantineDir,
      confinement.mode === "off" || confinement.quarantineDir === null ? null : {
        writeRoots: confinement.writeRoots,
        readRoots: [],
        exclusions: confinement.scanExclusions,
        sensitiveMatch: () => null,
        exempt: confinement.writableExceptions,
        sentinelFolder: runViewsFolder(confinement.runDir),
        allowNestedRepositories: confinement.allowNestedRepositories,
      },
    );
    for (const [id, server] of servers) {
      try {
        const reached = server.type === "stdio"
          ? await stdioTransport(parts, id, server, options, setsidPath, secrets, watches)
          : remoteTransport(parts, id, server, options, secrets);
        connections.push(
          await parts.McpServerConnection.connect({
            id,
            server,
            ...reached,
            onToolListChanged: () => toolListChanges.notify(id),
            configPath: options.configPath,
            // A start-up error shows the server's output: without the values it was given.
            redact: (text) => new Redactor({ secrets }).redactText(text),
          }),
        );
      } catch (error) {
        if (server.required || !(error instanceof ConfigError)) {
          await Promise.all(connections.map((connection) => connection.close()));
          throw error;
        }
        warnings.push({ server: id, reason: error.message });
      }
    }
    return new McpServers(
      parts,
      connections,
      options.servers,
      warnings,
      secrets,
      options.confinement,
      toolListChanges,
      watches,
    );
  }

  /**
   * Passes on each protected path a stdio server created (found after one of its calls, when its
   * process ended, or when the run closed), moved to the run's quarantine; those found before
   * this call first. {@linkcode close} waits for the listeners.
   */
  onSandboxViolation(listener: ViolationListener): void {
    this.#watches.listen(listener);
  }

  /**
   * Passes on each `notifications/tools/list_changed` a server sends, by server id, to `listener`
   * (to the first listener, those sent before this call first). The run's tool set stays as the
   * servers listed it at start-up.
   */
  onToolListChanged(listener: (server: string) => void): void {
    this.#toolListChanges.listen(listener);
  }

  /** Leaves a registered tool out after all (the registry refused it), recording why. */
  refuse(name: string, reason: string): void {
    const route = this.#routes.get(name);
    if (route === undefined) return;
    this.#routes.delete(name);
    const index = this.tools.findIndex((tool) => tool.name === name);
    if (index !== -1) this.tools.splice(index, 1);
    const record = this.records.find((entry) => entry.server === route.connection.id);
    if (record === undefined) return;
    record.registered = record.registered.filter((entry) => entry !== name);
    record.refused.push({ tool: route.tool, reason });
  }

  /** Tells whether `name` is a tool of a started server. */
  handles(name: string): boolean {
    return this.#routes.has(name);
  }

  /**
   * Runs one call; never rejects: a server that fails, exits, times out or answers garbage fails
   * the call (`timeout` or `tool_error`) and the run goes on.
   */
  async execute(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    stores: McpResultStores,
  ): Promise<ToolOutcome> {
    const route = this.#routes.get(name);
    if (route === undefined) {
      return failure("tool_not_available", `Cannot call tool "${name}": no MCP server offers it`);
    }
    const server = route.connection.id;
    const before = this.#watches.violations(server);
    if (before.length > 0) return this.#violation(name, server, before);
    let result: Record<string, unknown>;
    try {
      result = await route.connection.call(route.tool, args, signal);
    } catch (error) {
      const found = await this.#watches.check(server, "call");
      if (found.length > 0) return await this.#stop(name, route.connection, found);
      const full = this.#parts.failureText(error);
      const message = full.length <= MAX_FAILURE_CHARS
        ? full
        : `${full.slice(0, MAX_FAILURE_CHARS)}… (${full.length} characters)`;
      if (signal?.aborted) {
        return failure("aborted", `Cannot complete "${name}": the run was interrupted`);
      }
      const timedOut = /timed out|timeout/i.test(message);
      return failure(
        timedOut ? "timeout" : "tool_error",
        `Cannot complete "${name}": MCP server "${route.connection.id}" ${
          timedOut
            ? `did not answer within ${route.connection.timeoutMs} ms (mcp_servers.${route.connection.id}.timeout_ms)`
            : `failed: ${message}`
        }`,
        { server: route.connection.id },
      );
    }
    const found = await this.#watches.check(server, "call");
    if (found.length > 0) return await this.#stop(name, route.connection, found);
    return await mcpCallOutcome(name, result, stores);
  }

  /** Stops a server that created protected paths and fails the call that found it. */
  async #stop(
    name: string,
    connection: McpServerConnection,
    found: readonly { path: string; moved_to: string | null }[],
  ): Promise<ToolOutcome> {
    await connection.close();
    return this.#violation(name, connection.id, found);
  }

  #violation(
    name: string,
    server: string,
    quarantined: readonly { path: string; moved_to: string | null }[],
  ): ToolOutcome {
    return failure(
      "sandbox_violation",
      `Cannot complete "${name}": ${violationMessage(server, quarantined)}`,
      { rule: "sandbox:protected-path", layer: "sandbox", server, quarantined },
    );
  }

  /**
   * Ends every server's session and process group, then checks every stdio server's watch a last
   * time (what a server created is quarantined, the listeners told and awaited). Safe to call
   * twice.
   */
  async close(): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connection.close()));
    const confinement = this.#confinement;
    if (confinement.mode === "none" && confinement.psPath !== null && confinement.runId !== null) {
      // Unconfined, a server's process can leave its group (setsid, a double fork): every process
      // carrying one of the servers' markers ends with them.
      await sweepMarked(`${confinement.runId}/mcp-`, {
        psPath: confinement.psPath,
        prefix: true,
      }).catch(() => 0);
    }
    await this.#watches.checkAll("close");
  }
}

/**
 * The transport of an HTTP server: through `options.fetch` (the network gateway's `mcp` channel)
 * with its headers, `${VAR}` expanded (each expanded value a secret).
 *
 * @throws {ConfigError} `mcp_server_failed` when there is no such fetch or a variable is unset.
 */
function remoteTransport(
  parts: ClientParts,
  id: string,
  server: LoadedMcpHttpServer,
  options: StartMcpServersOptions,
  secrets: string[],
): { transport: Transport; label: string } {
  if (options.fetch === undefined) {
    throw new ConfigError({
      code: "mcp_server_failed",
      file: options.configPath,
      key: `mcp_servers.${id}`,
      message: `Cannot reach MCP server "${id}" ("${server.url}"): kagent-run reaches HTTP MCP ` +
        `servers only through its network Worker, and this session has none (a library caller ` +
        `passes a NetworkGateway's fetchFor("mcp") as mcpFetch)`,
    });
  }
  const headers: Record<string, string> = {};
  for (const [name, written] of Object.entries(server.headers)) {
    const key = `mcp_servers.${id}.headers.${name}`;
    const expanded = expandServerVariable(id, key, written, options.read, options.configPath);
    secrets.push(...expanded.secrets);
    headers[name] = expanded.value;
  }
  return { transport: parts.httpTransport(server, headers, options.fetch), label: server.url };
}
