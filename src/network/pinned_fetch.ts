/**
 * The `tools` channel's `fetch` (in the network Worker): a request leaves only for a host the
 * allowlist admits, to an address checked before the connection and used for it.
 *
 * DNS rebinding (a name that resolves to a public address when checked and to a private one when
 * connected) is closed by resolving once and connecting to that address: Deno's `fetch` resolves
 * names itself and has no resolver hook (`Deno.createHttpClient`'s `proxy: {transport: "tcp"}`
 * pins plain HTTP but sends `https:` requests unencrypted over it, measured on Deno 2.9.6), so
 * requests go through `node:http`/`node:https` with a `lookup` that returns the checked address.
 * TLS still verifies the certificate against the URL's host name (SNI and the name check use the
 * host, not the address). Deno checks its net permission on the address connected to.
 *
 * An address is acceptable when it is global unicast (ipaddr.js's `unicast` range; an IPv4-mapped
 * IPv6 address is judged as its IPv4 address) or when an exact allowlist entry names it: loopback,
 * private, link-local, unique-local, carrier-grade NAT, multicast, reserved, IPv4-compatible IPv6
 * (`::/96`) and the other special ranges are refused otherwise. Every address a name resolves to must be acceptable.
 *
 * @module
 */

import http from "node:http";
import https from "node:https";
import dns from "node:dns";
import ipaddr from "ipaddr.js";
import type { HostAllowlist } from "../config/mod.ts";

/** One resolved address. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

/** Options of {@linkcode pinnedFetch}. */
export interface PinnedFetchOptions {
  /** Which `hostname:port` requests may name, and which non-public addresses are listed. */
  allowlist: HostAllowlist;
  /**
   * @default the system resolver (`node:dns` `lookup`: getaddrinfo, so `/etc/hosts` counts, as
   * for any program on the host)
   */
  resolve?: ResolveHost;
  /**
   * The certificate authorities `https:` servers are verified against (PEM texts). Node's own
   * default store needs Deno's whole `sys` permission, which the Worker does not get, so the
   * gateway reads the host's bundle and passes it here. @default none: `https:` is refused
   */
  ca?: readonly string[];
}

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The special range of `address` (ipaddr.js names: `loopback`, `private`, `linkLocal`, …), or
 * null when it is global unicast.
 *
 * @throws {TypeError} when `address` is not an IP address.
 * @example
 * ```ts
 * import { specialRange } from "./pinned_fetch.ts";
 * console.assert(specialRange("8.8.8.8") === null);
 * console.assert(specialRange("::ffff:127.0.0.1") === "loopback");
 * console.assert(specialRange("169.254.169.254") === "linkLocal");
 * console.assert(specialRange("::7f00:1") === "ipv4Compatible");
 * ```
 */
export function specialRange(address: string): string | null {
  if (!ipaddr.isValid(address)) throw new TypeError(`"${address}" is not an IP address`);
  const parsed = ipaddr.process(address);
  // ::/96, the deprecated IPv4-compatible form (`::127.0.0.1`, RFC 4291 §2.5.5.1), which
  // ipaddr.js calls unicast: a host that still routes it (a `sit` tunnel) carries it to IPv4.
  if (parsed.kind() === "ipv6" && parsed.match(ipaddr.parseCIDR("::/96"))) return "ipv4Compatible";
  const range = parsed.range();
  return range === "unicast" ? null : range;
}

/** The system resolver: every address of `hostname`, in the order getaddrinfo gives them. */
export const systemResolve: ResolveHost = (hostname) =>
  new Promise((resolve, reject) => {
    dns.lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error !== null) reject(error);
      else {
        resolve(addresses.map((entry) => ({
          address: entry.address,
          family: entry.family === 6 ? 6 : 4,
        })));
      }
    });
  });

/**
 * A `fetch` for the `tools` channel: checks the host against the allowlist, resolves it once,
 * checks every address, and connects to the first; never follows redirects (a 3xx comes back as
 * it is). The body streams as bytes; cancelling it or aborting the signal closes the connection.
 *
 * Rejects with a `TypeError` naming `hostname:port` and the reason when the scheme is not http(s),
 * the allowlist does not admit the host, it does not resolve, or an address is not acceptable.
 */
export function pinnedFetch(options: PinnedFetchOptions): typeof fetch {
  const resolveHost = options.resolve ?? systemResolve;
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new TypeError(`Cannot fetch "${url.protocol}" URLs: only http: and https:`);
    }
    const port = Number(url.port === "" ? (url.protocol === "https:" ? 443 : 80) : url.port);
    const target = `${url.hostname}:${port}`;
    if (!options.allowlist.admits(url.hostname, port)) {
      throw new TypeError(`Cannot reach "${target}": network.hosts does not admit it`);
    }
    const bare = url.hostname.replace(/^\[(.*)\]$/, "$1");
    let addresses: ResolvedAddress[];
    if (ipaddr.isValid(bare)) {
      addresses = [{ address: bare, family: bare.includes(":") ? 6 : 4 }];
    } else {
      try {
        addresses = await resolveHost(bare);
      } catch (error) {
        throw new TypeError(
          `Cannot reach "${target}": its name does not resolve (${(error as Error).message})`,
        );
      }
      if (addresses.length === 0) {
        throw new TypeError(`Cannot reach "${target}": its name resolves to no address`);
      }
    }
    for (const { address } of addresses) {
      const range = specialRange(address);
      if (range !== null && !options.allowlist.listsAddress(address, port)) {
        throw new TypeError(
          `Cannot reach "${target}": it resolves to ${address}, a ${range} address, which ` +
            `network.hosts does not list (list "${
              address.includes(":") ? `[${address}]` : address
            }:${port}" to allow it)`,
        );
      }
    }
    const pinned = addresses[0] as ResolvedAddress;
    const ca = options.ca ?? [];
    if (url.protocol === "https:" && ca.length === 0) {
      throw new TypeError(
        `Cannot reach "${target}": no certificate authorities to verify it with (the host's CA ` +
          "bundle was not found; set SSL_CERT_FILE)",
      );
    }
    const body = request.body === null ? null : new Uint8Array(await request.arrayBuffer());
    return await send(request, url, bare, pinned, body, ca);
  };
}

/** Sends `request` over a connection to `pinned`, with TLS (https) checked against `hostname`. */
function send(
  request: Request,
  url: URL,
  hostname: string,
  pinned: ResolvedAddress,
  body: Uint8Array | null,
  ca: readonly string[],
): Promise<Response> {
  const signal = request.signal;
  signal.throwIfAborted();
  const client = url.protocol === "https:" ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const outgoing = client.request({
      host: hostname,
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: request.method,
      // The Host header is the URL's: another would reach another site behind the same address.
      headers: Object.fromEntries([...request.headers].filter(([name]) => name !== "host")),
      agent: false,
      ...(url.protocol === "https:" ? { ca: [...ca] } : {}),
      // The one address checked: the connection goes there and nowhere else.
      lookup: ((
        _name: string,
        lookupOptions: { all?: boolean },
        callback: (...args: unknown[]) => void,
      ) =>
        lookupOptions.all === true
          ? callback(null, [pinned])
          : callback(null, pinned.address, pinned.family)) as never,
    }, (incoming) => {
      const status = incoming.statusCode ?? 0;
      if (status < 200 || status > 599) {
        incoming.destroy();
        reject(new TypeError(`Cannot read the response of "${url.host}": status ${status}`));
        return;
      }
      const headers: [string, string][] = [];
      for (let index = 0; index + 1 < incoming.rawHeaders.length; index += 2) {
        headers.push([incoming.rawHeaders[index] ?? "", incoming.rawHeaders[index + 1] ?? ""]);
      }
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          incoming.on("data", (chunk: Uint8Array) => {
            controller.enqueue(new Uint8Array(chunk));
            if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
          });
          incoming.on("end", () => controller.close());
          incoming.on("error", (error) => controller.error(error));
        },
        pull() {
          incoming.resume();
        },
        cancel() {
          incoming.destroy();
        },
      }, { highWaterMark: 4 });
      const empty = request.method === "HEAD" || NULL_BODY_STATUSES.has(status);
      if (empty) incoming.resume();
      signal.addEventListener("abort", () => incoming.destroy(signal.reason), { once: true });
      resolve(
        new Response(empty ? null : stream, {
          status,
          statusText: incoming.statusMessage ?? "",
          headers,
        }),
      );
    });
    const onAbort = () => outgoing.destroy(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    outgoing.on("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(signal.aborted ? signal.reason : new TypeError(error.message, { cause: error }));
    });
    outgoing.end(body ?? undefined);
  });
}
