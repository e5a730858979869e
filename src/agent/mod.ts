/**
 * The agent loop and its model providers.
 *
 * @module
 */

export * from "./model_provider.ts";
export * from "./agent_loop.ts";
export * from "./system_prompt.ts";
export * from "./providers/script_provider.ts";
