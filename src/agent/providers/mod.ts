/**
 * The model providers: the OpenAI-compatible and Anthropic HTTP providers, and the adapter over
 * the Vercel AI SDK provider packages with their loader (the scripted test provider is exported by
 * `agent/mod.ts`).
 *
 * @module
 */

export { OpenAiProvider } from "./openai_provider.ts";
export { AnthropicProvider } from "./anthropic_provider.ts";
export { anthropicTemperatureWarning } from "./anthropic_temperature.ts";
export { AiSdkProvider } from "./ai_sdk_provider.ts";
export { type CloudCredentials, loadCloudModel } from "./cloud_models.ts";
