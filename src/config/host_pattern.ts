/**
 * The host allowlist of `net.fetch` (`network.hosts` in the config): patterns over `hostname:port`.
 *
 * A pattern is an exact host (`api.github.com`), every subdomain of a domain (`*.example.com`:
 * `a.example.com` and `a.b.example.com`, not `example.com` itself), or an address (`127.0.0.1`,
 * `[::1]`), each optionally with a port: `:8443` that port only, `:*` any port; without one, the
 * scheme default ports 80 and 443. Hostnames compare as URLs write them (lower case, IDNA
 * punycode, IPv6 in brackets).
 *
 * @module
 */

/** One parsed allowlist entry. */
export interface HostPattern {
  /** The entry as written. */
  text: string;
  /** The hostname as `new URL` writes it (the domain after `*.` for a wildcard). */
  hostname: string;
  /** `*.domain`: every subdomain of `hostname`, not `hostname` itself. */
  subdomains: boolean;
  /** A port, `"*"` for any, or null for the scheme default ports 80 and 443. */
  port: number | "*" | null;
}

/**
 * Parses one entry of `network.hosts`.
 *
 * @throws {TypeError} naming the entry when it is not a host, `*.domain` or address with an
 *   optional `:port` or `:*` (a scheme, path, user or query is refused).
 * @example
 * ```ts
 * import { parseHostPattern } from "./host_pattern.ts";
 * const pattern = parseHostPattern("*.Example.com:8443");
 * console.assert(pattern.hostname === "example.com" && pattern.subdomains && pattern.port === 8443);
 * ```
 */
export function parseHostPattern(text: string): HostPattern {
  const refuse = (why: string) => new TypeError(`Cannot use host pattern "${text}": ${why}`);
  if (/[/@?#\\\s]/.test(text) || text.includes("://")) {
    throw refuse('write a host, "*.domain" or an address, with an optional ":port" or ":*"');
  }
  const subdomains = text.startsWith("*.");
  let rest = subdomains ? text.slice(2) : text;
  let anyPort = false;
  if (rest.endsWith(":*")) {
    anyPort = true;
    rest = rest.slice(0, -2);
  }
  if (rest.includes("*")) {
    throw refuse('"*" may only start the pattern ("*.domain") or be its port');
  }
  let url: URL;
  try {
    url = new URL(`http://${rest}`);
  } catch {
    throw refuse("it is not a host name or address");
  }
  if (url.hostname === "" || (subdomains && url.hostname.startsWith("["))) {
    throw refuse("it is not a host name or address");
  }
  // `new URL` drops port 80 for http: read the written port back from the text.
  const written = /:(\d+)$/.exec(rest);
  const port = anyPort ? "*" : written === null ? null : Number(written[1]);
  if (typeof port === "number" && (port < 1 || port > 65535)) {
    throw refuse("the port is out of range");
  }
  return { text, hostname: url.hostname.replace(/\.$/, ""), subdomains, port };
}

/** Tells whether `pattern` admits `hostname` (as `new URL` writes it) on `port`. */
export function patternAdmits(pattern: HostPattern, hostname: string, port: number): boolean {
  const name = hostname.replace(/\.$/, "");
  const hostMatches = pattern.subdomains
    ? name.endsWith(`.${pattern.hostname}`)
    : name === pattern.hostname;
  if (!hostMatches) return false;
  if (pattern.port === "*") return true;
  return pattern.port === null ? port === 80 || port === 443 : port === pattern.port;
}

/**
 * The allowlist: which `hostname:port` a request may name, and which non-public addresses it
 * lists (an address entry lists its address: only then may a name resolve to a private, loopback
 * or link-local one).
 *
 * @example
 * ```ts
 * import { HostAllowlist } from "./host_pattern.ts";
 * const allowlist = new HostAllowlist(["*.example.com", "127.0.0.1:8080"]);
 * console.assert(allowlist.admits("a.example.com", 443));
 * console.assert(!allowlist.admits("example.com", 443));
 * console.assert(allowlist.listsAddress("127.0.0.1", 8080) && !allowlist.listsAddress("127.0.0.1", 80));
 * ```
 */
export class HostAllowlist {
  /** The parsed entries, in the config's order. */
  readonly patterns: readonly HostPattern[];

  /** @throws {TypeError} when an entry does not parse (see {@linkcode parseHostPattern}). */
  constructor(entries: readonly string[]) {
    this.patterns = entries.map(parseHostPattern);
  }

  /** Tells whether a request may name `hostname` (as `new URL` writes it) on `port`. */
  admits(hostname: string, port: number): boolean {
    return this.patterns.some((pattern) => patternAdmits(pattern, hostname, port));
  }

  /**
   * Tells whether an exact entry names `address` (as a resolver returns it: IPv6 without
   * brackets) on `port`.
   */
  listsAddress(address: string, port: number): boolean {
    const written = address.includes(":") ? bracketed(address) : address;
    return this.patterns.some((pattern) =>
      !pattern.subdomains && patternAdmits(pattern, written, port)
    );
  }
}

/** An IPv6 address as a URL writes it (`[::1]`), compressed the URL's way. */
function bracketed(address: string): string {
  try {
    return new URL(`http://[${address}]`).hostname;
  } catch {
    return `[${address}]`;
  }
}
