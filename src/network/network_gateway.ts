/**
 * The network boundary of a run (ARCHITECTURE §3, "Network"): model, memory and MCP requests
 * leave through one Worker whose Deno permissions are `net` for exactly the configured hosts and
 * nothing else. Once it runs, the CLI revokes the main thread's own net permission, and tool
 * Workers never had any, so no other code in the process can open a connection.
 *
 * Hosts come from the config: `model.base_url` (default `https://api.openai.com/v1` for
 * `openai`, `https://api.anthropic.com/v1` for `anthropic`) for the model channel and
 * `memory.provider.base_url` for the memory channel, the `url` of each HTTP server of
 * `mcp_servers` for the mcp channel, each as `hostname:port` ({@linkcode hostPermission}).
 * The mcp and model channels stream responses (server-sent events arrive as they are sent).
 *
 * @module
 */

import { DEFAULT_MODEL } from "../config/mod.ts";
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
}

/** First message to the network Worker. */
export interface NetworkWorkerInit {
  type: "init";
  channels: Record<string, string[]>;
  /** Cap of a response body in bytes. */
  max_response_bytes: number;
}

/**
 * Default model endpoints, by provider: `model.base_url`, whose home is `DEFAULT_MODEL.base_urls`.
 */
export const DEFAULT_BASE_URLS: Readonly<Record<"openai" | "anthropic", string>> =
  DEFAULT_MODEL.base_urls;

/** The parts of a config the channels are derived from. */
export interface NetworkConfig {
  model: { provider: string; base_url?: string | undefined } | null;
  memory: { provider: { kind: string; base_url?: string | undefined } };
  /** HTTP servers carry their `url`; stdio ones have none. @default none */
  mcp_servers?: Record<string, { type: string; url?: string }>;
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
    .flatMap((model) => {
      const url = model === null || (model.provider !== "openai" && model.provider !== "anthropic")
        ? null
        : model.base_url ?? DEFAULT_BASE_URLS[model.provider];
      return url === null ? [] : [hostPermission(url)];
    });
  const memoryUrl = config.memory.provider.kind === "http"
    ? config.memory.provider.base_url ?? null
    : null;
  const mcpHosts = Object.values(config.mcp_servers ?? {}).flatMap((server) =>
    server.url === undefined ? [] : [hostPermission(server.url)]
  );
  return {
    model: [...new Set(modelHosts)],
    memory: memoryUrl === null ? [] : [hostPermission(memoryUrl)],
    mcp: [...new Set(mcpHosts)].sort(),
  };
}

/** Options of {@linkcode NetworkGateway.start}. */
export interface NetworkGatewayOptions {
  /** The hosts by channel; `mcp` @default [] */
  channels: Omit<NetworkChannels, "mcp"> & { mcp?: string[] };
  /** @default DEFAULT_MAX_RESPONSE_BYTES */
  maxResponseBytes?: number;
  /** @default network_worker_main.ts beside this module (`.js` in a bundle) */
  entry?: URL;
}

/** The main thread's handle on the network Worker. */
export class NetworkGateway {
  /** The hosts each channel may reach, as the Worker enforces them. */
  readonly channels: NetworkChannels;
  readonly #worker: Worker;
  readonly #client: MessageFetchClient;

  private constructor(channels: NetworkChannels, worker: Worker, client: MessageFetchClient) {
    this.channels = channels;
    this.#worker = worker;
    this.#client = client;
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
    const worker = new Worker(options.entry ?? defaultNetworkWorkerEntry(), {
      type: "module",
      name: "kagent-run network",
      deno: {
        permissions: {
          net: hosts.length === 0 ? false : hosts,
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
      worker.postMessage(
        {
          type: "init",
          channels: { model: channels.model, memory: channels.memory, mcp: channels.mcp },
          max_response_bytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        } satisfies NetworkWorkerInit,
      );
    }).catch((error) => {
      worker.terminate();
      throw error;
    });
    return new NetworkGateway(channels, worker, client);
  }

  /**
   * A `fetch` that can reach only `channel`'s hosts. The `mcp` and `model` channels' responses
   * resolve at their head and stream their body (an MCP server's event stream stays open, a
   * model's answer arrives token by token); the others resolve with the whole body.
   */
  fetchFor(channel: keyof NetworkChannels): typeof fetch {
    return this.#client.fetchFor(channel, { stream: channel === "mcp" || channel === "model" });
  }

  /** Stops the Worker; waiting and later requests fail. */
  close(): void {
    this.#client.close("Cannot send the request: the network Worker was stopped");
    this.#worker.terminate();
  }
}

/** `network_worker_main.ts` beside this module, or `network_worker_main.js` beside a bundle. */
export function defaultNetworkWorkerEntry(): URL {
  const bundled = import.meta.url.endsWith(".js");
  return new URL(
    bundled ? "./network_worker_main.js" : "./network_worker_main.ts",
    import.meta.url,
  );
}
