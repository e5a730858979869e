/**
 * How a stdio MCP server starts: its whole environment (the allowlisted names and its configured
 * `env`, `${VAR}` expanded as secrets), its launch through the confinement module
 * (`server_confinement.ts`), its transport, and its protected-path watch.
 *
 * @module
 */

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { LoadedMcpStdioServer } from "../config/mod.ts";
import { DEFAULT_ENV_ALLOWLIST } from "../exec/mod.ts";
import type { StartMcpServersOptions } from "./mcp_servers.ts";
import { mcpLaunch } from "./server_confinement.ts";
import { expandServerVariable } from "./server_variables.ts";
import type { ServerWatches } from "./server_watch.ts";

/** The SDK's side of the client. */
type ClientParts = typeof import("./_client_parts.ts");

/** The transport of a stdio server: its program under its confinement, its whole environment. */
export async function stdioTransport(
  parts: ClientParts,
  id: string,
  server: LoadedMcpStdioServer,
  options: StartMcpServersOptions,
  setsidPath: string,
  secrets: string[],
  watches: ServerWatches,
): Promise<{ transport: Transport; label: string; stderrTail: () => string }> {
  const env = serverEnvironment(id, server, options, secrets);
  const launch = await mcpLaunch(id, server, env, options.confinement, options.configPath);
  const transport = new parts.StdioProcessTransport({
    setsidPath,
    command: launch.program,
    args: launch.args,
    env: launch.env,
    cwd: server.cwd,
    isolation: launch.isolation,
  });
  watches.watch(id, launch.watched, server.write || launch.isolation.mode === "none");
  // A server that ends on its own (it exited, crashed) is checked then, not only at the run's end.
  void transport.exited.then(() => watches.check(id, "exit"));
  return { transport, label: server.command, stderrTail: () => transport.stderrTail };
}

/**
 * The server's whole environment: {@linkcode DEFAULT_ENV_ALLOWLIST} names from kagent-run's
 * environment, then its configured `env` with `${VAR}` expanded (each expanded value a secret).
 */
function serverEnvironment(
  id: string,
  server: LoadedMcpStdioServer,
  options: StartMcpServersOptions,
  secrets: string[],
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of DEFAULT_ENV_ALLOWLIST) {
    const value = options.read(name);
    if (value !== undefined) env[name] = value;
  }
  for (const [name, written] of Object.entries(server.env)) {
    const key = `mcp_servers.${id}.env.${name}`;
    const expanded = expandServerVariable(id, key, written, options.read, options.configPath);
    secrets.push(...expanded.secrets);
    env[name] = expanded.value;
  }
  return env;
}

/** The `setsid` program. @throws {Error} when none is found. */
export async function findSetsid(): Promise<string> {
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
