/**
 * The agent tools' definitions (their handlers run on the main thread, in `src/child_agents/`).
 *
 * @module
 */

export { AGENT_TOOL_NAMES, agentToolDefinitions } from "./agent_tools.ts";
