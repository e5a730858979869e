/**
 * The model provider of a cloud `model` section (Azure OpenAI, Bedrock, Vertex, Gemini, Mistral,
 * Groq, the OpenAI Responses API), built for the CLI: the credentials read from exactly the
 * variables the config names (never the packages' own defaults), the endpoint the network
 * boundary admits, and the gateway's model-channel fetch. Private to the CLI folder.
 *
 * @module
 */

import { AiSdkProvider, type CloudCredentials, loadCloudModel } from "../agent/providers/mod.ts";
import type { ModelProvider } from "../agent/mod.ts";
import {
  CLOUD_PROVIDERS,
  type CloudProviderName,
  DEFAULT_AWS_CREDENTIAL_ENV,
  DEFAULT_MODEL,
  type LoadedConfig,
  modelBaseUrl,
  modelTokenUrl,
} from "../config/mod.ts";
import { type CommandIo, UsageError } from "./_common.ts";

/** A `model` section of a cloud provider. */
export type CloudModelConfig = Extract<
  NonNullable<LoadedConfig["model"]>,
  { provider: CloudProviderName }
>;

/** Whether `model` names a cloud provider. */
export function isCloudModel(model: NonNullable<LoadedConfig["model"]>): model is CloudModelConfig {
  return (CLOUD_PROVIDERS as readonly string[]).includes(model.provider);
}

/**
 * Builds the provider; its package is loaded now, and only this one.
 *
 * @throws {UsageError} when a credential variable the config names (or Bedrock's default AWS
 *   variables) is unset or empty.
 */
export async function cloudProviderFor(
  model: CloudModelConfig,
  io: CommandIo,
  gatewayFetch: typeof fetch,
): Promise<ModelProvider> {
  const read = (name: string, key: string) => {
    const value = io.env(name);
    if (value === undefined || value === "") {
      throw new UsageError(
        `Cannot run with model "${model.model}": the variable "${name}" named by "model.${key}" ` +
          "is not set",
      );
    }
    return value;
  };
  const loaded = await loadCloudModel({
    provider: model.provider,
    model: model.model,
    base_url: modelBaseUrl(model) as string,
    credentials: credentialsOf(model, read, io),
    fetch: gatewayFetch,
    timeout_ms: model.timeout_ms ?? DEFAULT_MODEL.timeout_ms,
    retries: model.retries ?? DEFAULT_MODEL.retries,
    ...(model.provider === "bedrock" ? { region: model.region } : {}),
    ...(model.provider === "azure"
      ? {
        azure: {
          ...(model.api === undefined ? {} : { api: model.api }),
          ...(model.api_version === undefined ? {} : { api_version: model.api_version }),
          ...(model.deployment_urls === undefined
            ? {}
            : { deployment_urls: model.deployment_urls }),
        },
      }
      : {}),
  });
  const effort = "reasoning_effort" in model ? model.reasoning_effort : undefined;
  return new AiSdkProvider({
    name: model.provider,
    model: loaded.model,
    timeout_ms: model.timeout_ms ?? DEFAULT_MODEL.timeout_ms,
    ...(model.max_tokens === undefined ? {} : { max_tokens: model.max_tokens }),
    ...(model.temperature === undefined ? {} : { temperature: model.temperature }),
    ...(effort === undefined ? {} : { reasoning: effort }),
    ...(loaded.provider_options === undefined ? {} : { provider_options: loaded.provider_options }),
  });
}

/** The credentials the config names, read through `read` (which refuses an unset variable). */
function credentialsOf(
  model: CloudModelConfig,
  read: (name: string, key: string) => string,
  io: CommandIo,
): CloudCredentials {
  if (model.provider === "bedrock" && model.role_arn_env !== undefined) {
    const tokenFileEnv = model.web_identity_token_file_env ??
      DEFAULT_AWS_CREDENTIAL_ENV.web_identity_token_file_env;
    return {
      kind: "aws_web_identity",
      role_arn: read(model.role_arn_env, "role_arn_env"),
      token_file: read(tokenFileEnv, "web_identity_token_file_env"),
      sts_url: modelTokenUrl(model) as string,
    };
  }
  if (model.provider === "bedrock" && model.api_key_env === undefined) {
    const sessionName = model.session_token_env ?? DEFAULT_AWS_CREDENTIAL_ENV.session_token_env;
    const session = io.env(sessionName);
    return {
      kind: "aws",
      access_key_id: read(
        model.access_key_id_env ?? DEFAULT_AWS_CREDENTIAL_ENV.access_key_id_env,
        "access_key_id_env",
      ),
      secret_access_key: read(
        model.secret_access_key_env ?? DEFAULT_AWS_CREDENTIAL_ENV.secret_access_key_env,
        "secret_access_key_env",
      ),
      ...(session === undefined || session === "" ? {} : { session_token: session }),
    };
  }
  if ("access_token_env" in model && model.access_token_env !== undefined) {
    return { kind: "access_token", access_token: read(model.access_token_env, "access_token_env") };
  }
  if (model.api_key_env === undefined) {
    throw new UsageError(
      `Cannot run with model "${model.model}": "model.api_key_env" names no variable`,
    );
  }
  return { kind: "api_key", api_key: read(model.api_key_env, "api_key_env") };
}
