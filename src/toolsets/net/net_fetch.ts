/**
 * `net.fetch`: one HTTP request (GET, POST or HEAD) to a host the config's `network.hosts` admits.
 * The definition is data for both threads; the call runs on the main thread
 * ({@linkcode NetFetchTool}), which sends it through the network gateway's `tools` channel (the
 * tools network Worker resolves the host, checks the addresses and connects to the one checked).
 *
 * The tool is tagged `network` and `dangerous` (risk 3): off until a permissions rule names it
 * exactly; every call asks unless an allow rule names it exactly with `hosts`. The call's policy
 * scope is its `hostname:port` (a host target), so grants and session approvals are per host.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../tools/mod.ts";
import { type ArtifactRef, failure, type ToolOutcome } from "../../result/mod.ts";

/** The tool's name. */
export const NET_FETCH_TOOL = "net.fetch";

/** Request headers the caller may not set: the connection's own, or ones that change the target. */
const FORBIDDEN_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "expect",
  "proxy-authorization",
  "proxy-connection",
]);

/** Headers dropped when a redirect leaves the origin (as browsers do for credentials). */
const CREDENTIAL_HEADERS = new Set(["authorization", "cookie", "proxy-authorization"]);

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Input of `net.fetch`. */
export const NetFetchInput = z.strictObject({
  url: z.string().min(1).max(8192).describe(
    "http:// or https:// URL; its host (and every redirect's) must be in the config's " +
      "network.hosts",
  ),
  method: z.enum(["GET", "POST", "HEAD"]).optional().describe("Default: GET"),
  headers: z.array(z.strictObject({
    name: z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/).max(256),
    // No CR, LF or NUL: a header value never starts another header or request (RFC 9110 §5.5).
    value: z.string().max(8192).regex(/^[^\r\n\0]*$/, "a header value holds no CR, LF or NUL"),
  })).max(50).optional().describe("Request headers (not Host, Content-Length or connection ones)"),
  body: z.string().max(1_048_576).optional().describe("Request body (POST only), sent as UTF-8"),
});

/**
 * The definition of `net.fetch`. Its handler never runs in the tool Worker: the runtime sends
 * its calls to {@linkcode NetFetchTool} on the main thread.
 *
 * @param hosts `network.hosts`, named in the description so the model knows what it may reach.
 *   @default none named
 */
export function netFetchDefinition(hosts: readonly string[] = []): ToolDefinition {
  const reachable = hosts.length === 0
    ? ""
    : ` Reachable hosts (without a port: 80 and 443): ${hosts.join(", ")}.`;
  return defineTool({
    name: NET_FETCH_TOOL,
    description: "Sends one HTTP request (GET, POST or HEAD) and returns the status, headers and " +
      "body: text inline, binary or large bodies as an artifact with its sha256. Only hosts the " +
      "config allows are reachable; redirects are followed up to the configured count, each hop " +
      "checked the same way (a redirect to another host only when the permissions allow that " +
      `host outright; else call net.fetch on it).${reachable}`,
    parameters: NetFetchInput,
    permission: "write",
    tags: ["network", "dangerous"],
    annotations: {
      read_only: false,
      destructive: false,
      idempotent: false,
      open_world: true,
      risk_level: 3,
      category: "network",
    },
    targets: (args) => [{ kind: "host", url: args.url }],
    handler: () => {
      throw new Error(`Tool "${NET_FETCH_TOOL}" runs on the main thread, not in the tool Worker`);
    },
  });
}

/** What {@linkcode NetFetchTool} needs. */
export interface NetFetchToolOptions {
  /** The gateway's `tools` channel; null: no network boundary, every call fails closed. */
  fetch: typeof fetch | null;
  /** Tells whether `network.hosts` admits a hostname on a port (checked again in the Worker). */
  admits: (hostname: string, port: number) => boolean;
  /**
   * Why the permissions do not allow a call to `hostname:port` outright (the rule and its
   * decision, `ask` or `deny`), or null when they do. A redirect to another `hostname:port` than
   * the one the call was decided and approved for is followed only when this says null: a grant,
   * a session approval or an allow rule covers one host, and a deny names hosts, so a 3xx must not
   * carry the request (a 307 keeps its body) past either.
   */
  hostRefusal: (hostname: string, port: number) => { rule: string; reason: string } | null;
  /** Stores binary bodies. */
  artifacts: { store(content: Uint8Array, mediaType: string): Promise<ArtifactRef> };
  /** `network.timeout_ms`: the whole call, redirects and body included. */
  timeoutMs: number;
  /** `network.max_redirects`. */
  maxRedirects: number;
  /** `network.max_response_bytes`, for messages (the Worker enforces it). */
  maxResponseBytes: number;
}

/** One hop of a call. */
interface Hop {
  url: string;
  status: number;
}

/**
 * Runs `net.fetch` calls on the main thread (a `MainThreadTools` for the runtime). `execute`
 * never rejects.
 */
export class NetFetchTool {
  readonly #options: NetFetchToolOptions;

  constructor(options: NetFetchToolOptions) {
    this.#options = options;
  }

  /** Tells whether the tool named `name` runs here. */
  handles(name: string): boolean {
    return name === NET_FETCH_TOOL;
  }

  /** Runs one validated, approved call. */
  async execute(
    _name: string,
    _toolCallId: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<ToolOutcome> {
    const input = NetFetchInput.parse(args);
    const fetchImpl = this.#options.fetch;
    if (fetchImpl === null) {
      return failure(
        "permission_denied",
        `Cannot call tool "${NET_FETCH_TOOL}": this session has no network boundary (the CLI ` +
          "passes the network gateway's tools channel as toolsFetch)",
      );
    }
    const method = input.method ?? "GET";
    const headers = new Headers();
    for (const header of input.headers ?? []) {
      if (FORBIDDEN_HEADERS.has(header.name.toLowerCase())) {
        return failure(
          "invalid_arguments",
          `Cannot send header "${header.name}": it belongs to the connection or changes the target`,
        );
      }
      headers.append(header.name, header.value);
    }
    if (input.body !== undefined && method !== "POST") {
      return failure("invalid_arguments", `Cannot send a body with ${method}: only POST has one`);
    }
    const timeout = AbortSignal.timeout(this.#options.timeoutMs);
    const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    try {
      return await this.#follow(
        fetchImpl,
        input.url,
        method,
        headers,
        input.body ?? null,
        combined,
      );
    } catch (error) {
      if (signal?.aborted === true) {
        return failure("aborted", `Cannot finish "${NET_FETCH_TOOL}": the run was interrupted`);
      }
      if (timeout.aborted) {
        return failure(
          "timeout",
          `Cannot finish "${NET_FETCH_TOOL}" of "${input.url}": it took longer than ` +
            `${this.#options.timeoutMs} ms (network.timeout_ms)`,
          { timeout_ms: this.#options.timeoutMs },
        );
      }
      return requestFailure(error, this.#options.maxResponseBytes);
    }
  }

  async #follow(
    fetchImpl: typeof fetch,
    start: string,
    startMethod: string,
    headers: Headers,
    startBody: string | null,
    signal: AbortSignal,
  ): Promise<ToolOutcome> {
    const hops: Hop[] = [];
    let url = new URL(start);
    /** The `hostname:port` the call was decided (and approved) for. */
    const decided = `${url.hostname}:${
      url.port === "" ? (url.protocol === "https:" ? 443 : 80) : url.port
    }`;
    let method = startMethod;
    let body = startBody;
    for (;;) {
      const response = await fetchImpl(url, {
        method,
        headers,
        ...(body === null ? {} : { body }),
        redirect: "manual",
        signal,
      });
      const location = response.headers.get("location");
      if (!REDIRECT_STATUSES.has(response.status) || location === null) {
        return await this.#answer(response, url, method, hops);
      }
      if (hops.length >= this.#options.maxRedirects) {
        await response.body?.cancel();
        return failure(
          "io_error",
          `Cannot follow the redirect of "${url.href}": more than ` +
            `${this.#options.maxRedirects} redirects (network.max_redirects)`,
          { redirects: [...hops, { url: url.href, status: response.status }] },
        );
      }
      await response.body?.cancel();
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return failure("io_error", `Cannot follow the redirect of "${url.href}": bad Location`);
      }
      hops.push({ url: url.href, status: response.status });
      const port = Number(next.port === "" ? (next.protocol === "https:" ? 443 : 80) : next.port);
      if (
        (next.protocol !== "http:" && next.protocol !== "https:") ||
        !this.#options.admits(next.hostname, port)
      ) {
        return failure(
          "permission_denied",
          `Cannot follow the redirect from "${url.host}" to "${next.hostname}:${port}": ` +
            '"network.hosts" in the config does not admit it',
          { rule: "sandbox:network-allowlist", redirects: hops, location: next.href },
        );
      }
      const refusal = `${next.hostname}:${port}` === decided
        ? null
        : this.#options.hostRefusal(next.hostname, port);
      if (refusal !== null) {
        return failure(
          "permission_denied",
          `Cannot follow the redirect from "${url.host}" to "${next.hostname}:${port}": the ` +
            `call was allowed for "${decided}" only, and the permissions do not allow ` +
            `"${next.hostname}:${port}" outright (${refusal.rule}: ${refusal.reason}); call ` +
            `${NET_FETCH_TOOL} on ${JSON.stringify(next.href)} to have it decided`,
          { rule: refusal.rule, redirects: hops, location: next.href },
        );
      }
      if (next.origin !== url.origin) {
        for (const name of CREDENTIAL_HEADERS) headers.delete(name);
      }
      // 303, and 301/302 after a POST, continue as GET without the body (Fetch §4.4).
      if (
        (response.status === 303 && method !== "HEAD") ||
        ((response.status === 301 || response.status === 302) && method === "POST")
      ) {
        method = "GET";
        body = null;
        headers.delete("content-type");
      }
      url = next;
    }
  }

  async #answer(response: Response, url: URL, method: string, hops: Hop[]): Promise<ToolOutcome> {
    const bytes = new Uint8Array(await response.arrayBuffer());
    const mediaType = response.headers.get("content-type") ?? "";
    const head = `${method} ${url.href} → ${response.status} ${response.statusText}`.trim();
    const data: Record<string, unknown> = {
      url: url.href,
      status: response.status,
      status_text: response.statusText,
      headers: [...response.headers],
      bytes: bytes.byteLength,
      media_type: mediaType === "" ? null : mediaType,
      redirects: hops,
    };
    const text = textOf(bytes, mediaType);
    if (text !== null) {
      return {
        ok: true,
        summary: `${head} (${bytes.byteLength} bytes)`,
        output: `HTTP ${response.status} ${response.statusText}\n\n${text}`,
        data,
        error: null,
      };
    }
    const stored = await this.#options.artifacts.store(
      bytes,
      mediaType === "" ? "application/octet-stream" : mediaType,
    );
    const artifact: ArtifactRef = {
      ref: stored.ref,
      sha256: stored.sha256,
      bytes: stored.bytes,
      media_type: stored.media_type,
    };
    return {
      ok: true,
      summary: `${head} (${bytes.byteLength} bytes, binary, in ${artifact.ref})`,
      output: `HTTP ${response.status} ${response.statusText}\n\n[binary body of ` +
        `${bytes.byteLength} bytes (${artifact.media_type}) kept as ${artifact.ref}, sha256 ` +
        `${artifact.sha256}]`,
      data: { ...data, artifact },
      error: null,
      artifacts: [artifact],
    };
  }
}

/** The body as text when it is text (a textual media type, or none, and valid UTF-8); else null. */
function textOf(bytes: Uint8Array, mediaType: string): string | null {
  const type = mediaType.split(";")[0]?.trim().toLowerCase() ?? "";
  const textual = type === "" || type.startsWith("text/") || type.endsWith("+json") ||
    type.endsWith("+xml") ||
    [
      "application/json",
      "application/xml",
      "application/javascript",
      "application/x-www-form-urlencoded",
      "application/x-ndjson",
    ].includes(type);
  if (!textual) return null;
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return text.includes("\u0000") ? null : text;
  } catch {
    return null;
  }
}

/** A refusal or failure of the channel as an outcome: the allowlist and address rules deny. */
function requestFailure(error: unknown, maxResponseBytes: number): ToolOutcome {
  const message = error instanceof Error ? error.message : String(error);
  if (/does not admit it|does not list/.test(message)) {
    return failure("permission_denied", message, { rule: "sandbox:network-allowlist" });
  }
  if (/larger than \d+ bytes/.test(message)) {
    return failure(
      "file_too_large",
      `${message} (network.max_response_bytes is ${maxResponseBytes})`,
      { limit_bytes: maxResponseBytes },
    );
  }
  return failure("io_error", message);
}
