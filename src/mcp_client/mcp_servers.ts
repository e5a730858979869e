/**
 * The MCP servers of a run: each started with a cleared environment (allowlisted names plus its
 * configured `env`, `${VAR}` expanded as secrets), its tools turned into definitions (refusals
 * recorded per tool), its calls run on the main thread, every process ended on close.
 *
 * Each runs in its own process group; under bubblewrap with the commands' mount profile (see
 * `server_confinement.ts`), under isolation `none` unconfined, as the user (recorded as such).
 *
 * @module
 */

import { ConfigError, type LoadedMcpServer } from "../config/mod.ts";
import { DEFAULT_ENV_ALLOWLIST } from "../exec/mod.ts";
import { failure, type ToolDefinition, type ToolOutcome } from "../tools/mod.ts";
import { mcpCallOutcome, type McpResultStores } from "./mcp_call_result.ts";
import { McpServerConnection, type McpServerIdentity } from "./mcp_server_connection.ts";
import { mcpToolDefinition } from "./mcp_tool_definition.ts";
import { type McpConfinement, mcpLaunch } from "./server_confinement.ts";

/** What the run folder records of one server (the `mcp_server.started` event). */
export interface McpServerRecord extends McpServerIdentity {
  server: string;
  /** Every tool name the server offered. */
  offered: string[];
  /** The canonical names registered. */
  registered: string[];
  /**
   * How the server is confined: `bwrap` (with its `write` and `network`), or `none` with why
   * (it then runs unconfined, as the user).
   */
  confinement:
    | { mode: "bwrap"; write: boolean; network: boolean }
    | { mode: "none"; reason: string };
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
  /** Canonical name → server and its own tool name. */
  readonly #routes: Map<string, { connection: McpServerConnection; tool: string }>;

  private constructor(
    connections: McpServerConnection[],
    settings: Record<string, LoadedMcpServer>,
    warnings: { server: string; reason: string }[],
    secrets: string[],
    confinement: McpConfinement,
  ) {
    this.#connections = connections;
    this.warnings = warnings;
    this.secrets = secrets;
    this.tools = [];
    this.records = [];
    this.#routes = new Map();
    for (const connection of connections) {
      const server = settings[connection.id] as LoadedMcpServer;
      const record: McpServerRecord = {
        server: connection.id,
        ...connection.identity,
        offered: connection.tools.map((tool) => tool.name),
        registered: [],
        refused: [],
        confinement: confinement.mode !== "bwrap"
          ? { mode: "none", reason: confinement.reason }
          : { mode: "bwrap", write: server.write, network: server.network },
      };
      for (const tool of connection.tools) {
        if (server.tools !== null && !server.tools.includes(tool.name)) {
          record.refused.push({ tool: tool.name, reason: "not in the server's tools allowlist" });
          continue;
        }
        const built = mcpToolDefinition(connection.id, tool, server.trust_annotations);
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
   * Starts every server, in config order.
   *
   * @throws {ConfigError} `mcp_server_failed` naming the first required server that cannot start
   *   (the servers already started are closed first).
   */
  static async start(options: StartMcpServersOptions): Promise<McpServers> {
    const setsidPath = options.setsidPath ?? await findSetsid();
    const connections: McpServerConnection[] = [];
    const warnings: { server: string; reason: string }[] = [];
    const secrets: string[] = [];
    for (const [id, server] of Object.entries(options.servers)) {
      try {
        const env = serverEnvironment(id, server, options, secrets);
        const launch = await mcpLaunch(id, server, env, options.confinement, options.configPath);
        connections.push(
          await McpServerConnection.connect({
            id,
            server,
            launch,
            setsidPath,
            configPath: options.configPath,
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
    return new McpServers(connections, options.servers, warnings, secrets, options.confinement);
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
    let result: Record<string, unknown>;
    try {
      result = await route.connection.call(route.tool, args, signal);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
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
    return await mcpCallOutcome(name, result, stores);
  }

  /** Ends every server's session and process group. Safe to call twice. */
  async close(): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connection.close()));
  }
}

/**
 * The server's whole environment: {@linkcode DEFAULT_ENV_ALLOWLIST} names from kagent-run's
 * environment, then its configured `env` with `${VAR}` expanded (each expanded value a secret).
 */
function serverEnvironment(
  id: string,
  server: LoadedMcpServer,
  options: StartMcpServersOptions,
  secrets: string[],
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of DEFAULT_ENV_ALLOWLIST) {
    const value = options.read(name);
    if (value !== undefined) env[name] = value;
  }
  for (const [name, written] of Object.entries(server.env)) {
    let secret = false;
    const value = written.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, variable: string) => {
      const found = options.read(variable);
      if (found === undefined) {
        throw new ConfigError({
          code: "mcp_server_failed",
          file: options.configPath,
          key: `mcp_servers.${id}.env.${name}`,
          message: `Cannot start MCP server "${id}": mcp_servers.${id}.env.${name} names ` +
            `"\${${variable}}", which is not set in kagent-run's environment`,
        });
      }
      secret = true;
      return found;
    });
    if (secret) secrets.push(value);
    env[name] = value;
  }
  return env;
}

/** The `setsid` program. @throws {Error} when none is found. */
async function findSetsid(): Promise<string> {
  for (const path of ["/usr/bin/setsid", "/bin/setsid"]) {
    try {
      if ((await Deno.stat(path)).isFile) return path;
    } catch {
      // Try the next one.
    }
  }
  throw new Error(
    "Cannot start MCP servers: setsid was not found in /usr/bin or /bin (Debian: util-linux)",
  );
}
