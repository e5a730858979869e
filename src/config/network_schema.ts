/**
 * The `network` section of the config file: the hosts `net.fetch` may reach and its caps.
 *
 * @module
 */

import { z } from "zod";
import { DEFAULT_NETWORK } from "./defaults.ts";
import { parseHostPattern } from "./host_pattern.ts";

/** One `network.hosts` entry, checked with {@linkcode parseHostPattern}. */
const hostPattern = z.string().min(1).superRefine((text, context) => {
  try {
    parseHostPattern(text);
  } catch (error) {
    context.addIssue({ code: "custom", message: (error as Error).message, input: text });
  }
});

/** `network`: what the `net.fetch` tool may reach, and how much it may take. */
export const NetworkConfigSchema = z.strictObject({
  hosts: z.array(hostPattern).optional().describe(
    'The allowlist of net.fetch: exact hosts ("api.github.com"), every subdomain of a domain ' +
      '("*.example.com", not "example.com" itself) or addresses ("127.0.0.1", "[::1]"), each ' +
      'with an optional ":port" (that port only) or ":*" (any port); without one, ports 80 and ' +
      "443. Every redirect hop must be admitted too. A name that resolves to a private, " +
      "loopback, link-local or other non-public address is refused unless an entry names that " +
      "address. Empty (the default): net.fetch does not exist. The tool is still off until a " +
      'permissions rule names "net.fetch".',
  ),
  max_response_bytes: z.int().min(1).max(1_073_741_824).optional().describe(
    `Largest response body net.fetch reads, in bytes; a larger one fails the call. Default: ${DEFAULT_NETWORK.max_response_bytes}.`,
  ),
  timeout_ms: z.int().min(1).max(600_000).optional().describe(
    `Longest one net.fetch call takes, redirects and body included, in ms. Default: ${DEFAULT_NETWORK.timeout_ms}.`,
  ),
  max_redirects: z.int().min(0).max(20).optional().describe(
    `Redirects net.fetch follows (each hop checked like the first request); 0 returns the 3xx. Default: ${DEFAULT_NETWORK.max_redirects}.`,
  ),
});

/** `network` after loading: every key filled. */
export interface LoadedNetwork {
  /** Allowlist patterns, as written. */
  hosts: string[];
  /** Bytes. */
  max_response_bytes: number;
  /** Milliseconds. */
  timeout_ms: number;
  max_redirects: number;
}

/** Fills `network` with {@linkcode DEFAULT_NETWORK}. */
export function resolveNetwork(
  network: z.output<typeof NetworkConfigSchema> | undefined,
): LoadedNetwork {
  return {
    hosts: [...new Set(network?.hosts ?? DEFAULT_NETWORK.hosts)],
    max_response_bytes: network?.max_response_bytes ?? DEFAULT_NETWORK.max_response_bytes,
    timeout_ms: network?.timeout_ms ?? DEFAULT_NETWORK.timeout_ms,
    max_redirects: network?.max_redirects ?? DEFAULT_NETWORK.max_redirects,
  };
}
