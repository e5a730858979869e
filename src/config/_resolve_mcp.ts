/**
 * `mcp_servers`: each stdio server's program resolved (a path against the config file's folder, a
 * bare name kept for the PATH search at start-up), its working folder made absolute inside the
 * workspace; each HTTP server's URL checked (http or https, no credentials in it); defaults
 * filled.
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
    const common = {
      timeout_ms: server.timeout_ms ?? DEFAULT_MCP_SERVER.timeout_ms,
      startup_timeout_ms: server.startup_timeout_ms ?? DEFAULT_MCP_SERVER.startup_timeout_ms,
      tools: server.tools === undefined ? null : [...new Set(server.tools)],
      trust_annotations: server.trust_annotations ?? DEFAULT_MCP_SERVER.trust_annotations,
      required: server.required ?? DEFAULT_MCP_SERVER.required,
    };
    if (!("command" in server)) {
      const problem = httpUrlProblem(server.url);
      if (problem !== null) {
        context.issues.push({ key: `${key}.url`, text: `key "${key}.url" ${problem}` });
        continue;
      }
      servers[id] = {
        type: server.type === "sse" ? "sse" : "http",
        url: server.url,
        headers: { ...(server.headers ?? {}) },
        ...common,
      };
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
      ...common,
      write: server.write ?? DEFAULT_MCP_SERVER.write,
      network: server.network ?? DEFAULT_MCP_SERVER.network,
    };
  }
  return servers;
}

/**
 * Why `url` cannot be an HTTP server's endpoint, or null: it must parse as an http(s) URL and hold
 * no user name or password (put credentials in `headers`, where `${VAR}` keeps them secret).
 */
function httpUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `must be a URL, not "${url}"`;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `must be an http:// or https:// URL, not ${parsed.protocol}`;
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return 'must not hold credentials: send them in "headers" (with ${VAR}, kept secret)';
  }
  return null;
}
