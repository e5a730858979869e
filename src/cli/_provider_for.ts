/**
 * The model provider a run's config names, built for the CLI. Private to the CLI folder.
 *
 * @module
 */

import { ModelError, type ModelProvider, ScriptProvider } from "../agent/mod.ts";
import {
  AnthropicProvider,
  anthropicTemperatureWarning,
  OpenAiProvider,
} from "../agent/providers/mod.ts";
import { DEFAULT_MODEL, type LoadedConfig } from "../config/mod.ts";
import { cloudProviderFor, isCloudModel } from "./_cloud_provider_for.ts";
import type { NetworkGateway } from "../network/mod.ts";
import { type CommandIo, UsageError } from "./_common.ts";

/**
 * The model provider the config names: a script replayed from a file, an OpenAI-compatible or
 * Anthropic endpoint whose API key is read from the variable \`api_key_env\` names, or a cloud
 * provider through its AI SDK package (`_cloud_provider_for.ts`).
 *
 * @throws {UsageError} for an unreadable script or an unset API key variable.
 */
export async function providerFor(
  model: NonNullable<LoadedConfig["model"]>,
  io: CommandIo,
  gateway: NetworkGateway | null,
): Promise<ModelProvider> {
  if (model.provider === "script") {
    try {
      return await ScriptProvider.fromFile(model.script);
    } catch (error) {
      if (error instanceof ModelError) throw new UsageError(error.message);
      throw error;
    }
  }
  if (isCloudModel(model)) {
    if (gateway === null) {
      throw new Error(`Cannot call provider "${model.provider}": the network boundary is not open`);
    }
    return await cloudProviderFor(model, io, gateway.fetchFor("model"));
  }
  let apiKey: string | null = null;
  if (model.api_key_env !== undefined) {
    apiKey = io.env(model.api_key_env) ?? null;
    if (apiKey === null || apiKey === "") {
      throw new UsageError(
        `Cannot run with model "${model.model}": the variable "${model.api_key_env}" named by ` +
          `"model.api_key_env" is not set`,
      );
    }
  }
  if (gateway === null) {
    throw new Error(`Cannot call provider "${model.provider}": the network boundary is not open`);
  }
  const fetch = gateway.fetchFor("model");
  if (model.provider === "anthropic") {
    const options = {
      fetch,
      model: model.model,
      base_url: model.base_url ?? DEFAULT_MODEL.base_urls.anthropic,
      api_key: apiKey,
      max_tokens: model.max_tokens ?? DEFAULT_MODEL.anthropic_max_tokens,
      ...(model.temperature === undefined ? {} : { temperature: model.temperature }),
      ...(model.api_version === undefined ? {} : { api_version: model.api_version }),
      stream: model.stream ?? DEFAULT_MODEL.stream,
      timeout_ms: model.timeout_ms ?? DEFAULT_MODEL.timeout_ms,
      retries: model.retries ?? DEFAULT_MODEL.retries,
    };
    const warning = anthropicTemperatureWarning(options);
    if (warning !== null) io.stderr(`kagent-run: warning: ${warning}\n`);
    return new AnthropicProvider(options);
  }
  return new OpenAiProvider({
    fetch,
    model: model.model,
    ...(model.strict === undefined ? {} : { strict: model.strict }),
    base_url: model.base_url ?? DEFAULT_MODEL.base_urls.openai,
    api_key: apiKey,
    ...(model.temperature === undefined ? {} : { temperature: model.temperature }),
    ...(model.max_tokens === undefined ? {} : { max_tokens: model.max_tokens }),
    ...(model.reasoning_effort === undefined ? {} : { reasoning_effort: model.reasoning_effort }),
    stream: model.stream ?? DEFAULT_MODEL.stream,
    timeout_ms: model.timeout_ms ?? DEFAULT_MODEL.timeout_ms,
    retries: model.retries ?? DEFAULT_MODEL.retries,
  });
}
