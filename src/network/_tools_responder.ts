/**
 * The `tools` channel's responder, loaded only by the tools network Worker (its imports, the
 * config's host patterns among them, would slow the start of the model/memory/mcp Worker).
 *
 * @module
 */

import { HostAllowlist } from "../config/mod.ts";
import { FetchResponder } from "./fetch_responder.ts";
import type { FetchReplyMessage } from "./message_fetch.ts";
import { pinnedFetch } from "./pinned_fetch.ts";

/**
 * A responder that performs requests with {@linkcode pinnedFetch} over `hosts` and answers whole
 * bodies as bytes, capped at `maxBytes`.
 */
export function toolsResponder(
  hosts: readonly string[],
  maxBytes: number,
  post: (reply: FetchReplyMessage) => void,
): FetchResponder {
  return new FetchResponder({
    post,
    maxBytes,
    binary: true,
    fetch: pinnedFetch({ allowlist: new HostAllowlist(hosts) }),
    refuse: (request) =>
      request.channel === "tools"
        ? null
        : `Cannot send a ${request.channel} request from the tools network Worker`,
  });
}
