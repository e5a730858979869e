/**
 * Where a configured model is reached and which environment variables hold its credentials: one
 * answer for the network boundary (the model channel admits exactly this URL's host), the
 * provider (it is given this URL, never left to find its own) and the audit (these variables are
 * secrets). No zod here: the network Worker's side reaches it through `base/mod.ts`.
 *
 * @module
 */

import { DEFAULT_MODEL } from "./defaults.ts";

/** The providers reached through the Vercel AI SDK provider packages (`@ai-sdk/*`). */
export const CLOUD_PROVIDERS = [
  "openai-responses",
  "azure",
  "bedrock",
  "vertex",
  "google",
  "mistral",
  "groq",
] as const;

/** One of {@linkcode CLOUD_PROVIDERS}. */
export type CloudProviderName = typeof CLOUD_PROVIDERS[number];

/** The fields of a `model` section this module reads (every provider's, all optional). */
export interface ModelEndpointConfig {
  provider: string;
  base_url?: string | undefined;
  /** `azure`: the resource name (`https://<resource>.openai.azure.com/openai`). */
  resource?: string | undefined;
  /** `bedrock`: the AWS region, e.g. `us-east-1`. */
  region?: string | undefined;
  /** `vertex`: the Google Cloud project id. */
  project?: string | undefined;
  /** `vertex`: the location, e.g. `us-central1`, `global`, `eu`, `us`. */
  location?: string | undefined;
  api_key_env?: string | undefined;
  /** `azure` (Entra ID) and `vertex`: the variable holding a bearer access token. */
  access_token_env?: string | undefined;
  /** `bedrock`: the variables holding the AWS credentials. */
  access_key_id_env?: string | undefined;
  secret_access_key_env?: string | undefined;
  session_token_env?: string | undefined;
  /** `bedrock`: the variable holding the role to assume with the OIDC token file. */
  role_arn_env?: string | undefined;
  /** `bedrock` with `role_arn_env`: the variable naming the token file. */
  web_identity_token_file_env?: string | undefined;
  /** `bedrock` with `role_arn_env`: the STS endpoint. */
  sts_base_url?: string | undefined;
}

/**
 * The default AWS credential variables of `bedrock` (as `aws-actions/configure-aws-credentials`
 * exports them after assuming the runner's OIDC role), used unless `api_key_env` is set.
 */
export const DEFAULT_AWS_CREDENTIAL_ENV = {
  access_key_id_env: "AWS_ACCESS_KEY_ID",
  secret_access_key_env: "AWS_SECRET_ACCESS_KEY",
  session_token_env: "AWS_SESSION_TOKEN",
  /** With `role_arn_env`: the variable naming the OIDC token file. */
  web_identity_token_file_env: "AWS_WEB_IDENTITY_TOKEN_FILE",
} as const;

/** Vertex AI express mode (an API key, no project): its fixed endpoint. */
export const VERTEX_EXPRESS_BASE_URL = "https://aiplatform.googleapis.com/v1/publishers/google";

const FIXED_BASE_URLS: Readonly<Record<string, string>> = {
  openai: DEFAULT_MODEL.base_urls.openai,
  anthropic: DEFAULT_MODEL.base_urls.anthropic,
  "openai-responses": DEFAULT_MODEL.base_urls.openai,
  google: "https://generativelanguage.googleapis.com/v1beta",
  mistral: "https://api.mistral.ai/v1",
  groq: "https://api.groq.com/openai/v1",
};

/**
 * The URL the provider's requests go to (its host is the model channel's): `base_url` when
 * set, else the provider's endpoint built from the config as its SDK builds it: Azure
 * `https://<resource>.openai.azure.com/openai`, Bedrock
 * `https://bedrock-runtime.<region>.amazonaws.com`, Vertex
 * `https://<location>-aiplatform.googleapis.com/v1beta1/projects/<project>/locations/<location>/publishers/google`
 * (`global`: no prefix; `eu`/`us`: `aiplatform.<location>.rep.googleapis.com`; with an API key
 * and no project: {@linkcode VERTEX_EXPRESS_BASE_URL}); `null` for `script`.
 *
 * @throws {TypeError} when a field the URL needs is missing (the config schema requires it
 *   first): `Cannot reach model provider "azure": it needs "resource" or "base_url"`.
 * @example
 * ```ts
 * import { modelBaseUrl } from "./model_endpoint.ts";
 * const url = modelBaseUrl({ provider: "bedrock", region: "eu-west-1" });
 * console.assert(url === "https://bedrock-runtime.eu-west-1.amazonaws.com");
 * ```
 */
export function modelBaseUrl(model: ModelEndpointConfig): string | null {
  if (model.provider === "script") return null;
  if (model.base_url !== undefined) return model.base_url.replace(/\/+$/, "");
  const fixed = FIXED_BASE_URLS[model.provider];
  if (fixed !== undefined) return fixed;
  const needs = (fields: string) =>
    new TypeError(`Cannot reach model provider "${model.provider}": it needs ${fields}`);
  switch (model.provider) {
    case "azure":
      if (model.resource === undefined) throw needs('"resource" or "base_url"');
      return `https://${model.resource}.openai.azure.com/openai`;
    case "bedrock":
      if (model.region === undefined) throw needs('"region" or "base_url"');
      return `https://bedrock-runtime.${model.region}.amazonaws.com`;
    case "vertex": {
      if (model.project === undefined && model.api_key_env !== undefined) {
        return VERTEX_EXPRESS_BASE_URL;
      }
      if (model.project === undefined || model.location === undefined) {
        throw needs('"project" and "location" (or "base_url")');
      }
      const location = model.location;
      const host = location === "global"
        ? "aiplatform.googleapis.com"
        : location === "eu" || location === "us"
        ? `aiplatform.${location}.rep.googleapis.com`
        : `${location}-aiplatform.googleapis.com`;
      return `https://${host}/v1beta1/projects/${model.project}/locations/${location}/publishers/google`;
    }
    default:
      throw new TypeError(`Cannot reach model provider "${model.provider}": unknown provider`);
  }
}

/**
 * The URL of the token exchange the provider makes before its requests, or `null`: Bedrock with
 * `role_arn_env` asks STS (`sts_base_url`, else `https://sts.<region>.amazonaws.com`) for
 * credentials. Its host is admitted on the model channel beside the endpoint's.
 *
 * @example
 * ```ts
 * import { modelTokenUrl } from "./model_endpoint.ts";
 * const url = modelTokenUrl({ provider: "bedrock", region: "us-east-1", role_arn_env: "AWS_ROLE_ARN" });
 * console.assert(url === "https://sts.us-east-1.amazonaws.com");
 * ```
 */
export function modelTokenUrl(model: ModelEndpointConfig): string | null {
  if (model.provider !== "bedrock" || model.role_arn_env === undefined) return null;
  if (model.sts_base_url !== undefined) return model.sts_base_url.replace(/\/+$/, "");
  if (model.region === undefined) {
    throw new TypeError('Cannot reach model provider "bedrock": it needs "region"');
  }
  return `https://sts.${model.region}.amazonaws.com`;
}

/**
 * The environment variables that hold the model's credentials, each a secret of the run (its
 * value redacted everywhere, never passed to a tool): `api_key_env`, `access_token_env`, and for
 * `bedrock` without `api_key_env` or `role_arn_env` the AWS credential variables (their names as
 * configured, else {@linkcode DEFAULT_AWS_CREDENTIAL_ENV}). With `role_arn_env`: it and the token
 * file's variable; the credentials then come from STS at run time and are never written anywhere.
 *
 * @example
 * ```ts
 * import { modelCredentialEnv } from "./model_endpoint.ts";
 * const names = modelCredentialEnv({ provider: "bedrock", region: "us-east-1" });
 * console.assert(names.includes("AWS_SECRET_ACCESS_KEY"));
 * ```
 */
export function modelCredentialEnv(model: ModelEndpointConfig): string[] {
  const names = [model.api_key_env, model.access_token_env, model.role_arn_env];
  if (model.role_arn_env !== undefined) {
    names.push(
      model.web_identity_token_file_env ?? DEFAULT_AWS_CREDENTIAL_ENV.web_identity_token_file_env,
    );
  }
  if (
    model.provider === "bedrock" && model.api_key_env === undefined &&
    model.role_arn_env === undefined
  ) {
    names.push(
      model.access_key_id_env ?? DEFAULT_AWS_CREDENTIAL_ENV.access_key_id_env,
      model.secret_access_key_env ?? DEFAULT_AWS_CREDENTIAL_ENV.secret_access_key_env,
      model.session_token_env ?? DEFAULT_AWS_CREDENTIAL_ENV.session_token_env,
    );
  }
  return [...new Set(names.filter((name): name is string => name !== undefined))];
}
