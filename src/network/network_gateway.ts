/**
 * The network boundary of a run (ARCHITECTURE §3, "Network"): model, memory and MCP requests
 * leave through one Worker whose Deno permissions are `net` for exactly the configured hosts and
 * nothing else. Once it runs, the CLI revokes the main thread's own net permission, and tool
 * Workers never had any, so no other code in the process can open a connection.
 *
 * Hosts come from the config: the model's endpoint ({@linkcode modelBaseUrl}: `model.base_url`,
 * else the provider's default or the URL its resource, region or project make, and Bedrock's STS
 * endpoint when it assumes a role: `modelTokenUrl`) for the model channel and
 * `memory.provider.base_url` for the memory channel, the `url` of each HTTP server of
 * `mcp_servers` for the mcp channel, each as `hostname:port` ({@linkcode hostPermission}).
 * The mcp and model channels stream responses (server-sent events arrive as they are sent).
 *
 * The `tools` channel (`net.fetch`) is served by a second Worker, started only when `network.hosts`
 * lists hosts: its requests connect to the address they resolved and checked (`pinned_fetch.ts`),
 * and Deno checks net permission on that address, which no host list can name in advance, so that
 * Worker holds net for every host (or `tools.permission`) and the allowlist and address rules are
 * enforced by its code before each connection. The first Worker keeps its exact hosts.
 *
 * @module
 */

import {
  DEFAULT_MODEL,
  modelBaseUrl,
  type ModelEndpointConfig,
  modelTokenUrl,
} from "../config/base/mod.ts";
import { hostPermission } from "./host_permission.ts";
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  type FetchReplyMessage,
  MessageFetchClient,
} from "./message_fetch.ts";

/** The hosts (`hostname:port`) each channel may reach. */
export interface NetworkChannels {
  model: string[];
  memory: string[];
  /** The hosts of the HTTP MCP servers of `mcp_servers`. */
  mcp: string[];
  /**
   * `network.hosts`: the allowlist patterns of `net.fetch` (see `host_pattern.ts`); absent when
   * empty, so a config without it has the channels (and policy hash) it had before.
   */
  tools?: string[];
}

/** First message to the network Worker. */
export interface NetworkWorkerInit {
  type: "init";
  channels: Record<string, string[]>;
  /** Cap of a response body in bytes. */
  max_response_bytes: number;
  /** The `tools` channel's allowlist and CA certificates (PEM), in the Worker that serves it. */
  tools?: { hosts: string[]; max_response_bytes: number; ca: string[] };
}

/**
 * Default model endpoints, by provider: `model.base_url`, whose home is `DEFAULT_MODEL.base_urls`.
 */
export const DEFAULT_BASE_URLS: Readonly<Record<"openai" | "anthropic", string>> =
  DEFAULT_MODEL.base_urls;

/** The parts of a config the channels are derived from. */
export interface NetworkConfig {
  /** The fields {@linkcode modelBaseUrl} reads (provider, base_url, resource, region...). */
  model: ModelEndpointConfig | null;
  memory: { provider: { kind: string; base_url?: string | undefined } };
  /** HTTP servers carry their `url`; stdio ones have none. @default none */
  mcp_servers?: Record<string, { type: string; url?: string }>;
  /** `network.hosts`, the allowlist of `net.fetch`. @default none */
  network?: { hosts: readonly string[] };
  /** Child agent definitions, each with its own model or null (the config's). @default none */
  agents?: Record<string, { model: NetworkConfig["model"] }>;
}

/**
 * The channels a config needs: the model providers' hosts (the config's and each agent
 * definition's own; none for `script`), an HTTP memory
 * service's host (none for the file store), and the hosts of the HTTP MCP servers (sorted, each
 * once).
 *
 * @throws {TypeError} when a configured URL is not http(s) (the config schema refuses that first).
 */
export function networkChannels(config: NetworkConfig): NetworkChannels {
  const modelHosts = [
    config.model,
    ...Object.values(config.agents ?? {}).map((agent) => agent.model),
  ]
    .flatMap((model) =>
      model === null
        ? []
        : [modelBaseUrl(model), modelTokenUrl(model)].flatMap((url) =>
          url === null ? [] : [hostPermission(url)]
        )
    );
  const memoryUrl = config.memory.provider.kind === "http"
    ? config.memory.provider.base_url ?? null
    : null;
  const mcpHosts = Object.values(config.mcp_servers ?? {}).flatMap((server) =>
    server.url === undefined ? [] : [hostPermission(server.url)]
  );
  const toolHosts = config.network?.hosts ?? [];
  return {
    model: [...new Set(modelHosts)],
    memory: memoryUrl === null ? [] : [hostPermission(memoryUrl)],
    mcp: [...new Set(mcpHosts)].sort(),
    ...(toolHosts.length === 0 ? {} : { tools: [...toolHosts] }),
  };
}

/** Options of {@linkcode NetworkGateway.start}. */
export interface NetworkGatewayOptions {
  /** The hosts by channel; `mcp` @default [], `tools` @default none (no second Worker) */
  channels: Omit<NetworkChannels, "mcp"> & { mcp?: string[] };
  /** @default DEFAULT_MAX_RESPONSE_BYTES */
  maxResponseBytes?: number;
  /**
   * The `tools` channel's Worker: its body cap in bytes (`network.max_response_bytes`) and its
   * Deno net permission (`true`: every host, since its connections go to resolved addresses; a
   * list narrows it, e.g. `["127.0.0.1"]` in tests), and the certificate authorities `https:`
   * servers are verified against (PEM). @default cap DEFAULT_MAX_RESPONSE_BYTES, permission true,
   * the host's CA bundle ({@linkcode hostCaCertificates})
   */
  tools?: { maxResponseBytes?: number; permission?: true | string[]; caCertificates?: string[] };
  /** @default network_worker_main.ts beside this module (`.js` in a bundle) */
  entry?: URL;
}

/** The main thread's handle on the network Worker. */
export class NetworkGateway {
  /** The hosts each channel may reach, as the Worker enforces them. */
  readonly channels: NetworkChannels;
  readonly #workers: Worker[];
  readonly #client: MessageFetchClient;
  readonly #toolsClient: MessageFetchClient | null;

  private constructor(
    channels: NetworkChannels,
    workers: Worker[],
    client: MessageFetchClient,
    toolsClient: MessageFetchClient | null,
  ) {
    this.channels = channels;
    this.#workers = workers;
    this.#client = client;
    this.#toolsClient = toolsClient;
  }

  /**
   * Starts the Worker with `net` for the union of the channels' hosts and every other permission
   * off, and waits until it serves.
   *
   * @throws {Error} when the Worker cannot start (e.g. without `--unstable-worker-options`, or when
   * the main thread lacks net permission for a host).
   */
  static async start(options: NetworkGatewayOptions): Promise<NetworkGateway> {
    const channels: NetworkChannels = { ...options.channels, mcp: options.channels.mcp ?? [] };
    const hosts = [...new Set([...channels.model, ...channels.memory, ...channels.mcp])];
    const main = await startWorker(options.entry, hosts.length === 0 ? false : hosts, {
      type: "init",
      channels: { model: channels.model, memory: channels.memory, mcp: channels.mcp },
      max_response_bytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    });
    const toolHosts = channels.tools ?? [];
    if (toolHosts.length === 0) {
      return new NetworkGateway(channels, [main.worker], main.client, null);
    }
    const cap = options.tools?.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    let tools: { worker: Worker; client: MessageFetchClient };
    try {
      tools = await startWorker(options.entry, options.tools?.permission ?? true, {
        type: "init",
        channels: {},
        max_response_bytes: cap,
        tools: {
          hosts: toolHosts,
          max_response_bytes: cap,
          ca: options.tools?.caCertificates ?? await hostCaCertificates(),
        },
      });
    } catch (error) {
      main.client.close("Cannot send the request: the network gateway did not start");
      main.worker.terminate();
      throw error;
    }
    return new NetworkGateway(channels, [main.worker, tools.worker], main.client, tools.client);
  }

  /**
   * A `fetch` that can reach only `channel`'s hosts. The `mcp` and `model` channels' responses
   * resolve at their head and stream their body (an MCP server's event stream stays open, a
   * model's answer arrives token by token); the others resolve with the whole body.
   */
  fetchFor(channel: keyof NetworkChannels): typeof fetch {
    if (channel === "tools") {
      const client = this.#toolsClient;
      if (client === null) {
        return () =>
          Promise.reject(
            new TypeError('Cannot send a tools request: "network.hosts" lists no host'),
          );
      }
      return client.fetchFor("tools");
    }
    return this.#client.fetchFor(channel, { stream: channel === "mcp" || channel === "model" });
  }

  /** Stops the Workers; waiting and later requests fail. */
  close(): void {
    this.#client.close("Cannot send the request: the network Worker was stopped");
    this.#toolsClient?.close("Cannot send the request: the network Worker was stopped");
    for (const worker of this.#workers) worker.terminate();
  }
}

/**
 * Starts one network Worker with `net` and every other permission off, and waits until it serves.
 *
 * @throws {Error} when it cannot start or crashes before it serves.
 */
async function startWorker(
  entry: URL | undefined,
  net: boolean | string[],
  init: NetworkWorkerInit,
): Promise<{ worker: Worker; client: MessageFetchClient }> {
  const worker = new Worker(entry ?? defaultNetworkWorkerEntry(), {
    type: "module",
    name: init.tools === undefined ? "kagent-run network" : "kagent-run network (tools)",
    deno: {
      permissions: {
        net,
        read: false,
        write: false,
        env: false,
        run: false,
        ffi: false,
        sys: false,
        import: false,
      },
    },
  } as WorkerOptions);
  const client = new MessageFetchClient((message) => worker.postMessage(message));
  await new Promise<void>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<FetchReplyMessage | { type: "ready" }>) => {
      if (event.data.type === "ready") resolve();
      else client.receive(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      const message = `the network Worker crashed (${event.message})`;
      client.close(`Cannot send the request: ${message}`);
      reject(new Error(message));
    };
    worker.postMessage(init);
  }).catch((error) => {
    worker.terminate();
    throw error;
  });
  return { worker, client };
}

/**
 * `network_worker_main.ts` beside this module, or `src/network/network_worker_main.js` below the
 * top of a `deno task bundle` folder (`tools/bundle.ts`), where every chunk is.
 */
export function defaultNetworkWorkerEntry(): URL {
  const bundled = import.meta.url.endsWith(".js");
  return new URL(
    bundled ? "./src/network/network_worker_main.js" : "./network_worker_main.ts",
    import.meta.url,
  );
}

/** Where hosts keep their CA bundle: Debian/Ubuntu, Fedora/RHEL, openSUSE, Alpine/macOS. */
const CA_BUNDLES = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/ca-bundle.pem",
  "/etc/ssl/cert.pem",
];

/**
 * The host's CA certificates as one PEM text: the file `SSL_CERT_FILE` names, else the first
 * bundle of the usual paths that reads; none when nothing does (then `net.fetch` refuses `https:`,
 * saying so). Read on the main thread: the tools Worker has no read permission, and Node's own
 * store would need Deno's whole `sys` permission (measured on Deno 2.9.6: `tls.rootCertificates`
 * asks for `sys` "ca", which `--allow-sys=ca` does not accept).
 */
export async function hostCaCertificates(): Promise<string[]> {
  let named: string | undefined;
  try {
    named = Deno.env.get("SSL_CERT_FILE");
  } catch {
    named = undefined;
  }
  for (const path of named === undefined || named === "" ? CA_BUNDLES : [named]) {
    try {
      const text = await Deno.readTextFile(path);
      if (text.includes("-----BEGIN CERTIFICATE-----")) return [text];
    } catch {
      // Not here: the next path.
    }
  }
  return [];
}
