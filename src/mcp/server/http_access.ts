/**
 * Who may reach `kagent-run mcp --http`: a loopback address only, a bearer token compared in
 * constant time, and the Host and Origin headers checked against DNS rebinding (the MCP spec's
 * Streamable HTTP security warning: a web page whose domain was re-pointed at 127.0.0.1 must not
 * reach a local server).
 *
 * @module
 */

import { createHash, timingSafeEqual } from "node:crypto";

/** Where the HTTP server listens. */
export interface LoopbackAddress {
  /** `127.0.0.1`, `::1` (without brackets) or `localhost`. */
  hostname: string;
  /** 0–65535; 0 lets the system choose a free port. */
  port: number;
}

/** The host names accepted for `--http`, the Host header and the Origin header. */
const LOOPBACK_HOSTNAMES: ReadonlySet<string> = new Set(["127.0.0.1", "::1", "localhost"]);

/** Shortest bearer token accepted, in characters. */
export const MIN_TOKEN_CHARS = 16;

/**
 * Parses `HOST:PORT` (`127.0.0.1:8931`, `[::1]:8931`, `localhost:8931`) and refuses any host that
 * is not loopback: anyone who can reach the port could call the tools.
 *
 * @param text The `--http` value.
 * @returns The address; port 0 asks the system for a free one.
 * @throws {RangeError} naming the value, why it is refused and what to write instead.
 * @example
 * ```ts
 * import { parseLoopbackAddress } from "./http_access.ts";
 * console.assert(parseLoopbackAddress("[::1]:8931").hostname === "::1");
 * let refused = false;
 * try {
 *   parseLoopbackAddress("0.0.0.0:8931");
 * } catch {
 *   refused = true;
 * }
 * console.assert(refused);
 * ```
 */
export function parseLoopbackAddress(text: string): LoopbackAddress {
  const match = /^(?:\[([^\]]*)\]|([^:\[\]]*)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (match === null || port > 65535) {
    throw new RangeError(
      `Cannot serve MCP on "${text}": --http takes HOST:PORT with a port from 0 to 65535; ` +
        `write for example --http 127.0.0.1:8931`,
    );
  }
  const hostname = (match[1] ?? match[2] ?? "").toLowerCase();
  if (!LOOPBACK_HOSTNAMES.has(hostname)) {
    throw new RangeError(
      `Cannot serve MCP on "${text}": "${hostname}" is not a loopback address and anyone who ` +
        `can reach it could call the tools; use 127.0.0.1, [::1] or localhost, for example ` +
        `--http 127.0.0.1:${port}`,
    );
  }
  return { hostname, port };
}

/**
 * The URL clients use for an address: `http://HOST:PORT/mcp` (IPv6 in brackets).
 *
 * @example
 * ```ts
 * import { mcpUrl } from "./http_access.ts";
 * console.assert(mcpUrl({ hostname: "::1", port: 8931 }) === "http://[::1]:8931/mcp");
 * ```
 */
export function mcpUrl(address: LoopbackAddress): string {
  const host = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname;
  return `http://${host}:${address.port}/mcp`;
}

/**
 * A bearer token, checked in constant time: both sides are hashed (sha256) first, so neither the
 * length nor a common prefix shows in the time taken.
 *
 * @example
 * ```ts
 * import { BearerToken } from "./http_access.ts";
 * const token = new BearerToken("0123456789abcdef0123");
 * console.assert(token.matches("Bearer 0123456789abcdef0123"));
 * console.assert(!token.matches("Bearer 0123456789abcdef012"));
 * console.assert(!token.matches(null));
 * ```
 */
export class BearerToken {
  readonly #digest: Uint8Array;

  /**
   * @param token The secret, at least {@linkcode MIN_TOKEN_CHARS} characters.
   * @throws {RangeError} when it is shorter (the message never holds the token).
   */
  constructor(token: string) {
    if (token.length < MIN_TOKEN_CHARS) {
      throw new RangeError(
        `the token has ${token.length} characters, fewer than ${MIN_TOKEN_CHARS}`,
      );
    }
    this.#digest = sha256(token);
  }

  /**
   * Whether an `Authorization` header carries the token (`Bearer <token>`, the scheme in any
   * case, as RFC 6750 allows).
   */
  matches(authorization: string | null): boolean {
    const match = /^bearer +(\S+) *$/i.exec(authorization ?? "");
    const offered = sha256(match?.[1] ?? "");
    return timingSafeEqual(offered, this.#digest) && match !== null;
  }
}

function sha256(text: string): Uint8Array {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * Why a request must be refused against DNS rebinding, or null when it may go on. The Host
 * header must name a loopback host (any port); an Origin header, when sent (browsers send it),
 * must be an `http:`/`https:` origin on a loopback host. A page on another site re-pointed at
 * 127.0.0.1 sends its own name in both.
 *
 * @example
 * ```ts
 * import { rebindingRefusal } from "./http_access.ts";
 * const headers = { host: "127.0.0.1:8931", origin: "https://evil.example" };
 * console.assert(rebindingRefusal(new Headers(headers)) !== null);
 * console.assert(rebindingRefusal(new Headers({ host: "localhost:8931" })) === null);
 * ```
 */
export function rebindingRefusal(headers: Headers): string | null {
  const host = headers.get("host");
  if (host === null || !isLoopbackHost(host)) {
    return `the Host header ${JSON.stringify(host)} is not a loopback host`;
  }
  const origin = headers.get("origin");
  if (origin === null) return null;
  let url: URL | null = null;
  try {
    url = new URL(origin);
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    return `the Origin header ${JSON.stringify(origin)} is not an http origin`;
  }
  if (!isLoopbackHost(url.host)) {
    return `the Origin header ${JSON.stringify(origin)} is not a loopback origin`;
  }
  return null;
}

/** Whether a `host[:port]` names a loopback host (`[::1]` in brackets). */
function isLoopbackHost(host: string): boolean {
  const match = /^(?:\[([^\]]*)\]|([^:\[\]]*))(?::\d{1,5})?$/.exec(host);
  if (match === null) return false;
  return LOOPBACK_HOSTNAMES.has((match[1] ?? match[2] ?? "").toLowerCase());
}
