/**
 * The network tool `net.fetch`: its definition and its main-thread runner.
 *
 * @module
 */

export { NET_FETCH_TOOL, netFetchDefinition, NetFetchTool } from "./net_fetch.ts";
