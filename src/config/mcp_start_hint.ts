/**
 * Which fix applies when an MCP server does not start, from its config entry and what it printed:
 * the sentence appended to the `mcp_server_failed` message.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { LoadedMcpServer } from "./loaded_config.ts";

/** Programs that fetch the server's package from a registry before running it. */
const FETCHING_RUNNERS = ["npx", "uvx", "bunx", "pnpx", "pipx"];

/**
 * The fix for a server that did not start, or null when none is known. An `npx`-style entry
 * without `"network": true` (bubblewrap leaves it only a loopback: the fetch hangs until the
 * start-up timeout) gets the network fix; a crash naming a missing module or file gets the mount
 * fix; a program that is not found gets the install fix.
 *
 * @param server The server's loaded entry.
 * @param id Its id in `mcp_servers`.
 * @param stderr The end of what it printed on stderr ("" when nothing).
 * @example
 * ```ts
 * import { mcpStartHint } from "./mcp_start_hint.ts";
 * const server = { type: "stdio", command: "npx", args: ["-y", "pkg"], network: false } as never;
 * console.assert(mcpStartHint(server, "pkg", "")?.includes('"network": true') === true);
 * ```
 */
export function mcpStartHint(server: LoadedMcpServer, id: string, stderr: string): string | null {
  if (server.type !== "stdio") {
    return `check that ${server.url} answers MCP (${server.type}) and that its headers are right`;
  }
  const program = nodePath.basename(server.command);
  if (FETCHING_RUNNERS.includes(program) && !server.network) {
    return `${program} needs the network to fetch the server's package, and the server has only ` +
      `an isolated loopback: set "network": true in mcp_servers.${id} (or install the package ` +
      `and name its program as "command")`;
  }
  if (/Cannot find module|ENOENT|No such file or directory|ModuleNotFoundError/.test(stderr)) {
    return "the server cannot read a file it needs: it sees the workspace, the read roots and " +
      "the files its own arguments name (read-only); add the folder it needs to " +
      '"sandbox.read_roots"';
  }
  if (/not found|command not found/i.test(stderr)) {
    return `install "${server.command}" or name its path as "command" in mcp_servers.${id}`;
  }
  return null;
}
