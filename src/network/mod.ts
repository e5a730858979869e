/**
 * The network boundary: which hosts a run may reach, and the Worker that alone reaches them.
 *
 * @module
 */

export { hostPermission } from "./host_permission.ts";
export {
  type FetchAbortMessage,
  type FetchReplyMessage,
  type FetchRequestMessage,
  MessageFetchClient,
  ResponseTooLargeError,
} from "./message_fetch.ts";
export { FetchResponder } from "./fetch_responder.ts";
export { type NetworkChannels, networkChannels, NetworkGateway } from "./network_gateway.ts";
