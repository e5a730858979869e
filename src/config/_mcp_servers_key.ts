/**
 * `mcpServers`, the key other clients (Claude Desktop, Claude Code, Cursor) write their MCP
 * servers under, read as `mcp_servers`, and `--mcp-config FILE` (a file of such servers, as
 * `claude --mcp-config` takes one) merged into the config before it is validated.
 *
 * @module
 */

import { readJsoncFile } from "./_read_jsonc_file.ts";

/** What merging found wrong: the key (or file) and why; empty when nothing. */
export interface McpMergeProblem {
  key: string;
  text: string;
}

/**
 * Moves a top-level `mcpServers` object to `mcp_servers` (the file's own spelling) in `raw`, a
 * parsed config file, in place. Both keys at once is a problem: which one was meant is unknown.
 *
 * @example
 * ```ts
 * import { acceptMcpServersKey } from "./_mcp_servers_key.ts";
 * const raw: Record<string, unknown> = { mcpServers: { everything: { command: "npx" } } };
 * console.assert(acceptMcpServersKey(raw) === null && "mcp_servers" in raw && !("mcpServers" in raw));
 * ```
 */
export function acceptMcpServersKey(raw: Record<string, unknown>): McpMergeProblem | null {
  if (!("mcpServers" in raw)) return null;
  if ("mcp_servers" in raw) {
    return {
      key: "mcpServers",
      text: 'keys "mcpServers" and "mcp_servers" are both set: keep one (they mean the same)',
    };
  }
  raw.mcp_servers = raw.mcpServers;
  delete raw.mcpServers;
  return null;
}

/**
 * Merges the servers of an `--mcp-config` file (`{"mcpServers": {…}}` or `{"mcp_servers": {…}}`,
 * JSON or JSONC) into `raw.mcp_servers`. A server id the config already has is a problem (the
 * file never replaces the config's server silently).
 *
 * @param raw The parsed config file (changed in place).
 * @param path The `--mcp-config` file, relative to the current folder.
 * @returns The problems; empty when merged.
 */
export async function mergeMcpConfigFile(
  raw: Record<string, unknown>,
  path: string,
): Promise<McpMergeProblem[]> {
  const read = await readJsoncFile(path);
  if (!read.ok) return [{ key: "--mcp-config", text: `--mcp-config "${path}": ${read.reason}` }];
  const value = read.value;
  const servers = typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>).mcpServers ??
      (value as Record<string, unknown>).mcp_servers
    : undefined;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    return [{
      key: "--mcp-config",
      text: `--mcp-config "${path}" must hold an object "mcpServers" (or "mcp_servers") of servers`,
    }];
  }
  const existing = raw.mcp_servers;
  const merged: Record<string, unknown> =
    typeof existing === "object" && existing !== null && !Array.isArray(existing)
      ? { ...existing as Record<string, unknown> }
      : {};
  const problems: McpMergeProblem[] = [];
  for (const [id, server] of Object.entries(servers as Record<string, unknown>)) {
    if (id in merged) {
      problems.push({
        key: `mcp_servers.${id}`,
        text: `--mcp-config "${path}" names server "${id}", which the config already has: ` +
          "rename one of them",
      });
      continue;
    }
    merged[id] = server;
  }
  raw.mcp_servers = merged;
  return problems;
}
