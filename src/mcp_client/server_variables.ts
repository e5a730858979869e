/**
 * `${VAR}` in an MCP server's `env` values and `headers` values: each expands from kagent-run's
 * environment, and a value that took any is a secret (redacted everywhere in the run folder).
 *
 * @module
 */

import { ConfigError } from "../config/mod.ts";

/** A `${NAME}` reference. */
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Expands every `${VAR}` of `written`.
 *
 * @param id The `mcp_servers` id (for the error).
 * @param key The config key the value sits at, e.g. `mcp_servers.docs.headers.Authorization`.
 * @param written The value as the config writes it.
 * @param read Reads kagent-run's environment.
 * @param configPath The config file (for the error).
 * @returns The value, and the secrets to redact: the whole value and each expanded variable's
 *   value (none when nothing was expanded).
 * @throws {ConfigError} `mcp_server_failed` naming `key` when a variable is not set.
 * @example
 * ```ts
 * import { expandServerVariable } from "./server_variables.ts";
 * const { value, secrets } = expandServerVariable(
 *   "docs", "mcp_servers.docs.headers.Authorization", "Bearer ${TOKEN}",
 *   (name) => name === "TOKEN" ? "t0k3n-value" : undefined, "agent.jsonc",
 * );
 * console.assert(value === "Bearer t0k3n-value" && secrets.includes("t0k3n-value"));
 * ```
 */
export function expandServerVariable(
  id: string,
  key: string,
  written: string,
  read: (name: string) => string | undefined,
  configPath: string,
): { value: string; secrets: string[] } {
  const secrets: string[] = [];
  const value = written.replace(VARIABLE, (_match, variable: string) => {
    const found = read(variable);
    if (found === undefined) {
      throw new ConfigError({
        code: "mcp_server_failed",
        file: configPath,
        key,
        message: `Cannot start MCP server "${id}": ${key} names "\${${variable}}", which is not ` +
          `set in kagent-run's environment`,
      });
    }
    if (found !== "") secrets.push(found);
    return found;
  });
  if (secrets.length > 0 && !secrets.includes(value)) secrets.unshift(value);
  return { value, secrets };
}
