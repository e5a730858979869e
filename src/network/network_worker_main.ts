/**
 * Entry module of the network Worker: the only code of a run that holds Deno net permission, and
 * only for the hosts of the configured model provider, memory service and HTTP MCP servers. Each
 * request names its channel and is refused unless its `hostname:port` is one of that channel's
 * hosts, so the model channel cannot reach the memory service or an MCP server, and so on. The
 * tools Worker (started with a `tools` allowlist) serves the `tools` channel of `net.fetch` through
 * `pinned_fetch.ts` (allowlist, address check, pinned connection). The compile task includes it
 * (`--include src/network/network_worker_main.ts`).
 *
 * @module
 */

import { hostPermission } from "./host_permission.ts";
import type { FetchAbortMessage, FetchReplyMessage, FetchRequestMessage } from "./message_fetch.ts";
import { FetchResponder } from "./fetch_responder.ts";
import type { NetworkWorkerInit } from "./network_gateway.ts";

interface WorkerScope {
  onmessage:
    | ((event: MessageEvent<NetworkWorkerInit | FetchRequestMessage | FetchAbortMessage>) => void)
    | null;
  postMessage(message: FetchReplyMessage | { type: "ready" }): void;
}

const scope = globalThis as unknown as WorkerScope;
let responder: FetchResponder | null = null;

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type !== "init") return void responder?.handle(message);
  const post = (reply: FetchReplyMessage) => scope.postMessage(reply);
  const tools = message.tools;
  if (tools === undefined) {
    const channels = new Map(Object.entries(message.channels));
    responder = new FetchResponder({
      post,
      maxBytes: message.max_response_bytes,
      refuse: (request) => refusal(channels, request),
    });
    return scope.postMessage({ type: "ready" });
  }
  // The tools Worker: the tools channel alone, loaded only here.
  import("./_tools_responder.ts").then((module) => {
    responder = module.toolsResponder(tools, post);
    scope.postMessage({ type: "ready" });
  }).catch((error) => {
    // Thrown outside the promise, so the gateway's onerror hears of it instead of waiting.
    setTimeout(() => {
      throw error;
    });
  });
};
/** Why a request may not leave, or null when its host is one of its channel's. */
function refusal(channels: Map<string, string[]>, request: FetchRequestMessage): string | null {
  const hosts = channels.get(request.channel) ?? [];
  let host: string;
  try {
    host = hostPermission(request.url);
  } catch (error) {
    return `Cannot send a ${request.channel} request: ${(error as Error).message}`;
  }
  if (hosts.includes(host)) return null;
  return `Cannot reach "${host}" from the ${request.channel} channel: it may reach only ${
    hosts.length === 0 ? "no host" : hosts.map((name) => `"${name}"`).join(", ")
  } (derived from the config)`;
}
