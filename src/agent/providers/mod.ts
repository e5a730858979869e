/**
 * The model providers: the OpenAI-compatible and Anthropic HTTP providers, and the adapter over
 * the Vercel AI SDK provider packages with their loader (the scripted test provider is exported by
 * `agent/mod.ts`).
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
export { AiSdkProvider, type AiSdkProviderOptions } from "./ai_sdk_provider.ts";
export {
  type CloudCredentials,
  type CloudModel,
  type CloudModelSettings,
  loadCloudModel,
} from "./cloud_models.ts";
