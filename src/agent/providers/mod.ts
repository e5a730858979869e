/**
 * The model providers: the OpenAI-compatible and Anthropic HTTP providers (the scripted test
 * provider is exported by `agent/mod.ts`).
 *
 * @module
 */

export { OpenAiProvider } from "./openai_provider.ts";
export { AnthropicProvider } from "./anthropic_provider.ts";
