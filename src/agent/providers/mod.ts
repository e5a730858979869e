/**
 * The model providers: the OpenAI-compatible and Anthropic HTTP providers (the scripted test
 * provider is exported by `agent/mod.ts`).
 *
 * @module
 */

export { OpenAiProvider } from "./openai_provider.ts";
export { AnthropicProvider, type AnthropicProviderOptions } from "./anthropic_provider.ts";
export {
  ANTHROPIC_VERSION,
  type AnthropicApiVersion,
  anthropicTemperatureWarning,
  rejectsTemperature,
} from "./anthropic_temperature.ts";
