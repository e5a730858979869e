/**
 * The Deno net permission a URL needs, written the way `--allow-net` and Worker
 * `deno.permissions.net` take it: `hostname:port`, with the scheme's default port filled in, so
 * a permission for `https://api.openai.com/v1` covers port 443 of that host and nothing else.
 *
 * @module
 */

/** Default ports of the schemes providers and memory services use (RFC 9110 §4.2). */
const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

/**
 * `hostname:port` of an `http:` or `https:` URL (IPv6 hostnames stay bracketed: `[::1]:8080`).
 *
 * @throws {TypeError} when the URL does not parse or its scheme is neither http nor https.
 *
 * @example
 * ```ts
 * import { hostPermission } from "./host_permission.ts";
 * console.assert(hostPermission("https://api.openai.com/v1") === "api.openai.com:443");
 * console.assert(hostPermission("http://127.0.0.1:11434/v1") === "127.0.0.1:11434");
 * ```
 */
export function hostPermission(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`Cannot derive a host from "${String(url)}": it is not a URL`);
  }
  const defaultPort = DEFAULT_PORTS[parsed.protocol];
  if (defaultPort === undefined) {
    throw new TypeError(
      `Cannot derive a host from "${parsed.href}": the scheme must be http: or https:, not ${parsed.protocol}`,
    );
  }
  return `${parsed.hostname}:${parsed.port === "" ? defaultPort : parsed.port}`;
}
