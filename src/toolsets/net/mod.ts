/**
 * The network tool `net.fetch`: its definition and its main-thread runner.
 *
 * @module
 */

export {
  NET_FETCH_TOOL,
  netFetchDefinition,
  NetFetchInput,
  NetFetchTool,
  type NetFetchToolOptions,
} from "./net_fetch.ts";
