/**
 * The language models of the providers kagent-run reaches through their Vercel AI SDK packages,
 * each package loaded only when a run is configured with it (a dynamic import: a run with another
 * provider never loads one). Every package is given everything explicitly, so none reads the
 * process environment or picks its own endpoint: the base URL the network boundary admits
 * (`modelBaseUrl` of the config), the credentials the caller read from the variables the config
 * names, and a `fetch` that retries as the own clients do and leaves through the gateway's model
 * channel.
 *
 * @module
 */

import type { LanguageModelV4, SharedV4ProviderOptions } from "@ai-sdk/provider";
import type { CloudProviderName } from "../../config/base/mod.ts";
import { webIdentityCredentials } from "./_aws_web_identity.ts";
import { retryingFetch } from "./_http.ts";

/** The credentials of one provider, read from the environment variables its config names. */
export type CloudCredentials =
  | { kind: "api_key"; api_key: string }
  | { kind: "access_token"; access_token: string }
  | {
    kind: "aws";
    access_key_id: string;
    secret_access_key: string;
    /** Temporary credentials (an assumed role) have one. */
    session_token?: string;
  }
  | {
    /** Bedrock: assume `role_arn` with the OIDC token in `token_file` (STS at `sts_url`). */
    kind: "aws_web_identity";
    role_arn: string;
    token_file: string;
    sts_url: string;
  };

/** What {@linkcode loadCloudModel} builds a model from. */
export interface CloudModelSettings {
  provider: CloudProviderName;
  /** The model id (Azure: the deployment name). */
  model: string;
  /** The endpoint, `modelBaseUrl` of the config: the only host the model channel admits. */
  base_url: string;
  credentials: CloudCredentials;
  /** The fetch requests leave through (the network gateway's model channel). */
  fetch: typeof fetch;
  /** Per-attempt timeout of a request until its answer starts, in ms. */
  timeout_ms: number;
  /** Retries after the first attempt (see `_http.ts`). */
  retries: number;
  /** `bedrock`: the region requests are signed for. */
  region?: string;
  /** `azure`: the API (`responses` by default), `api-version`, deployment URLs. */
  azure?: { api?: "responses" | "chat"; api_version?: string; deployment_urls?: boolean };
  /** For tests: the first backoff wait in ms. @default 500 */
  backoff_ms?: number;
}

/** A loaded model and the provider options every call of it carries. */
export interface CloudModel {
  model: LanguageModelV4;
  provider_options?: SharedV4ProviderOptions;
}

/**
 * Loads the provider's package and builds its model. The Responses API (OpenAI and Azure) runs
 * with `store: false`, so reasoning comes back as encrypted content the run keeps and sends back
 * itself, and nothing of the run is stored at the provider.
 *
 * @throws {TypeError} when the credentials do not fit the provider (the caller checks first).
 */
export async function loadCloudModel(settings: CloudModelSettings): Promise<CloudModel> {
  const fetch = retryingFetch(settings.fetch, {
    timeoutMs: settings.timeout_ms,
    retries: settings.retries,
    ...(settings.backoff_ms === undefined ? {} : { backoffMs: settings.backoff_ms }),
  });
  const { model, base_url: baseURL, credentials } = settings;
  const apiKey = () => {
    if (credentials.kind === "api_key") return credentials.api_key;
    throw new TypeError(`Cannot build provider "${settings.provider}": it needs an API key`);
  };
  const notStored = { store: false };
  switch (settings.provider) {
    case "openai-responses": {
      const { createOpenAI } = await import("@ai-sdk/openai");
      return {
        model: createOpenAI({ apiKey: apiKey(), baseURL, fetch }).responses(model),
        provider_options: { openai: notStored },
      };
    }
    case "azure": {
      const { createAzure } = await import("@ai-sdk/azure");
      const azure = settings.azure ?? {};
      const provider = createAzure({
        baseURL,
        fetch,
        ...(credentials.kind === "access_token"
          ? { tokenProvider: () => Promise.resolve(credentials.access_token) }
          : { apiKey: apiKey() }),
        ...(azure.api_version === undefined ? {} : { apiVersion: azure.api_version }),
        ...(azure.deployment_urls === true ? { useDeploymentBasedUrls: true } : {}),
      });
      return azure.api === "chat"
        ? { model: provider.chat(model) }
        : { model: provider.responses(model), provider_options: { azure: notStored } };
    }
    case "bedrock": {
      const { createAmazonBedrock } = await import("@ai-sdk/amazon-bedrock");
      const credentialProvider = awsCredentials(credentials, fetch);
      return {
        model: createAmazonBedrock({
          baseURL,
          fetch,
          ...(settings.region === undefined ? {} : { region: settings.region }),
          // An empty key means "none": the package would read AWS_BEARER_TOKEN_BEDROCK itself.
          apiKey: credentialProvider === null ? apiKey() : "",
          ...(credentialProvider === null ? {} : { credentialProvider }),
        })(model),
      };
    }
    case "vertex": {
      if (credentials.kind === "api_key") {
        const { createVertex } = await import("@ai-sdk/google-vertex/edge");
        return { model: createVertex({ apiKey: credentials.api_key, baseURL, fetch })(model) };
      }
      if (credentials.kind !== "access_token") {
        throw new TypeError('Cannot build provider "vertex": it needs an access token or API key');
      }
      // The Gemini model @ai-sdk/google-vertex builds, with the token the run was given (the
      // package's own token path would load google-auth-library and fetch outside the gateway).
      const { GoogleLanguageModel } = await import("@ai-sdk/google/internal");
      return {
        model: new GoogleLanguageModel(model, {
          provider: "google.vertex.chat",
          baseURL,
          headers: { authorization: `Bearer ${credentials.access_token}` },
          fetch,
          generateId: () => crypto.randomUUID(),
        }),
      };
    }
    case "google": {
      const { createGoogle } = await import("@ai-sdk/google");
      return { model: createGoogle({ apiKey: apiKey(), baseURL, fetch })(model) };
    }
    case "mistral": {
      const { createMistral } = await import("@ai-sdk/mistral");
      return { model: createMistral({ apiKey: apiKey(), baseURL, fetch })(model) };
    }
    case "groq": {
      const { createGroq } = await import("@ai-sdk/groq");
      return { model: createGroq({ apiKey: apiKey(), baseURL, fetch })(model) };
    }
  }
}

/** Bedrock's SigV4 credentials: static ones, or those STS gives for the OIDC token; else null. */
function awsCredentials(
  credentials: CloudCredentials,
  fetch: typeof globalThis.fetch,
): (() => Promise<{ accessKeyId: string; secretAccessKey: string; sessionToken?: string }>) | null {
  if (credentials.kind === "aws_web_identity") {
    return webIdentityCredentials({
      sts_url: credentials.sts_url,
      role_arn: credentials.role_arn,
      token_file: credentials.token_file,
      fetch,
    });
  }
  if (credentials.kind !== "aws") return null;
  const { access_key_id, secret_access_key, session_token } = credentials;
  return () =>
    Promise.resolve({
      accessKeyId: access_key_id,
      secretAccessKey: secret_access_key,
      ...(session_token === undefined ? {} : { sessionToken: session_token }),
    });
}
