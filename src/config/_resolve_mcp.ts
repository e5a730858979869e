/**
 * `mcp_servers`: each stdio server's program resolved (a path against the config file's folder, a
 * bare name kept for the PATH search at start-up), its working folder made absolute inside the
 * workspace, defaults filled. HTTP servers are refused for now.
 *
 * @module
 */

import * as nodePath from "node:path";
import { DEFAULT_MCP_SERVER } from "./defaults.ts";
import type { LoadedConfig, LoadedMcpServer } from "./loaded_config.ts";
import { resolveConfigPath, type ResolveContext } from "./_resolve_context.ts";

/** Resolves `mcp_servers`; problems go to `context.issues`. */
export function resolveMcpServers(context: ResolveContext): LoadedConfig["mcp_servers"] {
  const servers: Record<string, LoadedMcpServer> = {};
  for (const [id, server] of Object.entries(context.file.mcp_servers ?? {})) {
    const key = `mcp_servers.${id}`;
    if (!("command" in server)) {
      context.issues.push({
        key,
        text: `key "${key}" uses type "${server.type}", which is not supported yet: only stdio ` +
          `servers ("command") are; run the server through a stdio bridge, or leave it out`,
      });
      continue;
    }
    const isPath = server.command.includes("/") || server.command.startsWith("~");
    const command = isPath
      ? resolveConfigPath(context, server.command, `${key}.command`)
      : server.command;
    const cwd = nodePath.resolve(context.workspace, server.cwd ?? ".");
    const inside = nodePath.relative(context.workspace, cwd);
    if (inside.startsWith("..") || nodePath.isAbsolute(inside)) {
      context.issues.push({
        key: `${key}.cwd`,
        text: `key "${key}.cwd" must lie inside the workspace "${context.workspace}"`,
      });
    }
    servers[id] = {
      type: "stdio",
      command,
      args: [...(server.args ?? [])],
      env: { ...(server.env ?? {}) },
      cwd,
      timeout_ms: server.timeout_ms ?? DEFAULT_MCP_SERVER.timeout_ms,
      startup_timeout_ms: server.startup_timeout_ms ?? DEFAULT_MCP_SERVER.startup_timeout_ms,
      tools: server.tools === undefined ? null : [...new Set(server.tools)],
      trust_annotations: server.trust_annotations ?? DEFAULT_MCP_SERVER.trust_annotations,
      required: server.required ?? DEFAULT_MCP_SERVER.required,
      write: server.write ?? DEFAULT_MCP_SERVER.write,
      network: server.network ?? DEFAULT_MCP_SERVER.network,
    };
  }
  return servers;
}
