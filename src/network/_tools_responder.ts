/**
 * The `tools` channel's responder, loaded only by the tools network Worker (its imports, the
 * config's host patterns among them, would slow the start of the model/memory/mcp Worker).
 *
 * @module
 */

import { HostAllowlist } from "../config/base/mod.ts";
import { FetchResponder } from "./fetch_responder.ts";
import type { FetchReplyMessage } from "./message_fetch.ts";
import { pinnedFetch } from "./pinned_fetch.ts";

/**
 * A responder that performs requests with {@linkcode pinnedFetch} over `init.hosts` (verifying
 * `https:` servers against `init.ca`) and answers whole bodies as bytes, capped at
 * `init.max_response_bytes`.
 */
export function toolsResponder(
  init: { hosts: readonly string[]; max_response_bytes: number; ca: readonly string[] },
  post: (reply: FetchReplyMessage) => void,
): FetchResponder {
  return new FetchResponder({
    post,
    maxBytes: init.max_response_bytes,
    binary: true,
    fetch: pinnedFetch({ allowlist: new HostAllowlist(init.hosts), ca: init.ca }),
    refuse: (request) =>
      request.channel === "tools"
        ? null
        : `Cannot send a ${request.channel} request from the tools network Worker`,
  });
}
