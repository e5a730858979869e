/**
 * The network boundary: which hosts a run may reach, and the Worker that alone reaches them.
 *
 * @module
 */

export { hostPermission } from "./host_permission.ts";
export {
  answerFetch,
  DEFAULT_MAX_RESPONSE_BYTES,
  type FetchAbortMessage,
  type FetchReplyMessage,
  type FetchRequestMessage,
  FetchResponder,
  type FetchResponderOptions,
  MessageFetchClient,
} from "./message_fetch.ts";
export {
  DEFAULT_BASE_URLS,
  defaultNetworkWorkerEntry,
  type NetworkChannels,
  networkChannels,
  type NetworkConfig,
  NetworkGateway,
  type NetworkGatewayOptions,
} from "./network_gateway.ts";
