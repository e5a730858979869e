/**
 * The network boundary: which hosts a run may reach, and the Worker that alone reaches them.
 *
 * @module
 */

export { hostPermission } from "./host_permission.ts";
export {
  DEFAULT_MAX_RESPONSE_BYTES,
  type FetchAbortMessage,
  type FetchReplyMessage,
  type FetchRequestMessage,
  MessageFetchClient,
  ResponseTooLargeError,
} from "./message_fetch.ts";
export { answerFetch, FetchResponder, type FetchResponderOptions } from "./fetch_responder.ts";
export {
  DEFAULT_BASE_URLS,
  defaultNetworkWorkerEntry,
  hostCaCertificates,
  type NetworkChannels,
  networkChannels,
  type NetworkConfig,
  NetworkGateway,
  type NetworkGatewayOptions,
} from "./network_gateway.ts";
