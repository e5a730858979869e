/**
 * The config file's `model` section (ARCHITECTURE §4), as zod schemas: the script replay, the two
 * own HTTP providers, and the providers reached through their Vercel AI SDK packages (Azure
 * OpenAI, Bedrock, Vertex, Gemini, Mistral, Groq, the OpenAI Responses API), a union on
 * `provider`. Re-exported by `config_schema.ts`.
 *
 * @module
 */

import { z } from "zod";

const pathString = (description: string) => z.string().min(1).describe(description);

/**
 * An http(s) URL: the network boundary derives `hostname:port` from it, so `file:`, `ftp:` or a
 * bare host are refused at load.
 */
const httpUrl = () => z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" });

/** `model` with `provider: "script"`: replays a JSONL plan, no network. */
export const ScriptModelConfigSchema = z.strictObject({
  provider: z.literal("script"),
  script: pathString("Path of the JSONL script to replay; must exist."),
});

/** `model.retry_truncated`, the same for every HTTP provider. */
function retryTruncated() {
  return z.boolean().optional().describe(
    "A turn cut off at the output limit never runs its tool calls. false: the run ends " +
      'model_error (reason "truncated"). true: the turn is asked again once with twice the ' +
      "limit (max_tokens, or twice the output tokens the cut-off answer used when no max_tokens " +
      "is set); cut off again, the run ends the same way. Default: false.",
  );
}

/** `model.stream`, the same for every HTTP provider. */
function streamOption() {
  return z.boolean().optional().describe(
    "Ask for the answer as server-sent events: the per-request timeout then applies until the " +
      "answer starts and between chunks, and model.responded records first_token_ms. A server " +
      "that answers JSON anyway is read as JSON. The Anthropic API refuses non-streamed " +
      "requests whose output could take over ten minutes. Default: true.",
  );
}

/** `model.pricing`: what the provider charges, for the cost in `--output json` and the summary. */
export const PricingSchema = z.strictObject({
  input_per_million_tokens: z.number().min(0).describe(
    "Price of a million input tokens (cache reads apart), in US dollars.",
  ),
  output_per_million_tokens: z.number().min(0).describe(
    "Price of a million output tokens (reasoning included), in US dollars.",
  ),
  cache_read_per_million_tokens: z.number().min(0).optional().describe(
    "Price of a million input tokens read from the prompt cache. Default: the input price.",
  ),
}).describe(
  "Prices in US dollars a million tokens; with them the run reports its cost_usd. Default: none " +
    "(no cost reported).",
);

/** `model` with `provider: "openai"`: any OpenAI-compatible Chat Completions endpoint. */
export const OpenAiModelConfigSchema = z.strictObject({
  provider: z.literal("openai"),
  model: z.string().min(1).describe('Model name, e.g. "gpt-5.5" or "llama3.1" (Ollama).'),
  base_url: httpUrl().optional().describe(
    'Endpoint up to /v1, e.g. "http://127.0.0.1:11434/v1" for Ollama. Default: ' +
      '"https://api.openai.com/v1".',
  ),
  api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional().describe(
    "NAME of the environment variable holding the API key (never the key itself); its value is " +
      "redacted everywhere. Omit it for local servers without keys.",
  ),
  temperature: z.number().min(0).max(2).optional().describe("Default: the server's."),
  max_tokens: z.int().min(1).optional().describe(
    "The output limit, sent as max_completion_tokens. Default: the server's.",
  ),
  pricing: PricingSchema.optional(),
  reasoning_effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"])
    .optional().describe(
      "reasoning_effort for reasoning models (which values a model takes is the server's " +
        "rule). Default: not sent (the server's).",
    ),
  stream: streamOption(),
  timeout_ms: z.int().min(1).max(600_000).optional().describe("Per request. Default: 120000."),
  retries: z.int().min(0).max(10).optional().describe(
    "On 408, 409, 429, 5xx, timeouts and connection errors (or as x-should-retry says), " +
      "after retry-after-ms / Retry-After when sent. Default: 3.",
  ),
  strict: z.boolean().optional().describe(
    "OpenAI strict mode (Structured Outputs for function calling): tool schemas are sent with " +
      '"strict": true, optional properties as required and nullable, so the model\'s arguments ' +
      "always match. A tool whose schema strict mode cannot express stops the run before the " +
      "first request. Default: false.",
  ),
  retry_truncated: retryTruncated(),
});

/** `model` with `provider: "anthropic"`: the Anthropic Messages API. */
export const AnthropicModelConfigSchema = z.strictObject({
  provider: z.literal("anthropic"),
  model: z.string().min(1).describe('Model name, e.g. "claude-sonnet-5-5".'),
  base_url: httpUrl().optional().describe('Default: "https://api.anthropic.com/v1".'),
  api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional().describe(
    'NAME of the environment variable holding the API key, e.g. "ANTHROPIC_API_KEY".',
  ),
  temperature: z.number().min(0).max(1).optional().describe(
    'Sent only with api_version "2023-06-01" and to a model that still takes it (not Claude ' +
      "Opus 4.7 or later, nor Claude 5 models); otherwise left out with a warning. Default: the " +
      "API's.",
  ),
  api_version: z.enum(["2026-10-21", "2023-06-01"]).optional().describe(
    'The anthropic-version header. "2026-10-21" refuses temperature on every model. Default: ' +
      '"2026-10-21".',
  ),
  max_tokens: z.int().min(1).optional().describe("Default: 4096."),
  pricing: PricingSchema.optional(),
  stream: streamOption(),
  timeout_ms: z.int().min(1).max(600_000).optional().describe("Per request. Default: 120000."),
  retries: z.int().min(0).max(10).optional().describe(
    "On 408, 409, 429, 5xx (529 included), timeouts and connection errors (or as " +
      "x-should-retry says), after retry-after-ms / Retry-After when sent. Default: 3.",
  ),
  retry_truncated: retryTruncated(),
});

const envName = (description: string) =>
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).describe(
    `NAME of the environment variable holding ${description} (never the value itself); its ` +
      "value is a secret of the run: redacted everywhere, never passed to a tool.",
  );

/**
 * The keys every provider reached through its Vercel AI SDK package shares: the model, the
 * output limit, sampling, timeouts and retries (the run's own, around the package's requests).
 */
function cloudModelKeys(modelExample: string) {
  return {
    model: z.string().min(1).describe(modelExample),
    base_url: httpUrl().optional().describe(
      "Endpoint override (a gateway or proxy). Default: the provider's endpoint built from the " +
        "other keys; the network boundary admits exactly its host.",
    ),
    max_tokens: z.int().min(1).optional().describe(
      "The output limit (maxOutputTokens). Default: the provider's.",
    ),
    temperature: z.number().min(0).max(2).optional().describe("Default: the provider's."),
    timeout_ms: z.int().min(1).max(600_000).optional().describe(
      "Per request, until the answer starts and then between stream parts. Default: 120000.",
    ),
    retries: z.int().min(0).max(10).optional().describe(
      "On 408, 409, 429, 5xx, timeouts and connection errors, as for openai. Default: 3.",
    ),
    retry_truncated: retryTruncated(),
    pricing: PricingSchema.optional(),
  };
}

const reasoningEffort = () =>
  z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]).optional().describe(
    "Reasoning effort for reasoning models. Default: the provider's.",
  );

/** `provider: "openai-responses"`: the OpenAI Responses API (`@ai-sdk/openai`). */
export const OpenAiResponsesModelConfigSchema = z.strictObject({
  provider: z.literal("openai-responses"),
  ...cloudModelKeys('Model name, e.g. "gpt-5.5".'),
  api_key_env: envName('the API key, e.g. "OPENAI_API_KEY"'),
  reasoning_effort: reasoningEffort(),
});

/** `provider: "azure"`: Azure OpenAI (`@ai-sdk/azure`), by resource and deployment. */
export const AzureModelConfigSchema = z.strictObject({
  provider: z.literal("azure"),
  ...cloudModelKeys('The deployment name, e.g. "gpt-5-mini-prod".'),
  resource: z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i).optional().describe(
    "The Azure OpenAI resource name: https://<resource>.openai.azure.com/openai. Required " +
      "unless base_url is set.",
  ),
  api: z.enum(["responses", "chat"]).optional().describe(
    'Which API: "responses" (the Responses API) or "chat" (Chat Completions). Default: ' +
      '"responses".',
  ),
  api_version: z.string().min(1).optional().describe(
    'The api-version query parameter, e.g. "2025-04-01-preview". Default: "v1".',
  ),
  deployment_urls: z.boolean().optional().describe(
    "Use the deployment URLs /deployments/<deployment>/...?api-version=... (older API " +
      "versions). Default: false (the v1 API).",
  ),
  api_key_env: envName('the API key (sent as the "api-key" header)').optional(),
  access_token_env: envName(
    "a Microsoft Entra ID access token (sent as a bearer token), e.g. from azure/login",
  ).optional(),
}).refine((model) => model.resource !== undefined || model.base_url !== undefined, {
  message: 'needs "resource" or "base_url"',
}).refine((model) => (model.api_key_env === undefined) !== (model.access_token_env === undefined), {
  message: 'needs exactly one of "api_key_env" and "access_token_env"',
});

/** `provider: "bedrock"`: Amazon Bedrock's Converse API, streamed (`@ai-sdk/amazon-bedrock`). */
export const BedrockModelConfigSchema = z.strictObject({
  provider: z.literal("bedrock"),
  ...cloudModelKeys(
    'The model or inference profile id, e.g. "us.anthropic.claude-sonnet-5-5-v1:0".',
  ),
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/).describe(
    'The AWS region, e.g. "us-east-1" (the endpoint bedrock-runtime.<region>.amazonaws.com).',
  ),
  access_key_id_env: envName('the AWS access key id. Default: "AWS_ACCESS_KEY_ID"').optional(),
  secret_access_key_env: envName(
    'the AWS secret access key. Default: "AWS_SECRET_ACCESS_KEY"',
  ).optional(),
  session_token_env: envName(
    "the AWS session token, sent when set (temporary credentials, e.g. an OIDC role). " +
      'Default: "AWS_SESSION_TOKEN"',
  ).optional(),
  api_key_env: envName(
    "a Bedrock API key (a bearer token) instead of the AWS credentials",
  ).optional(),
  role_arn_env: envName(
    "the IAM role ARN to assume with the runner's OIDC token (STS AssumeRoleWithWebIdentity, " +
      'as EKS or a CI that writes a token file sets up), e.g. "AWS_ROLE_ARN"; with it the ' +
      "credentials come from STS, not from the access key variables",
  ).optional(),
  web_identity_token_file_env: envName(
    'the path of the OIDC token file (with role_arn_env). Default: "AWS_WEB_IDENTITY_TOKEN_FILE"',
  ).optional(),
  sts_base_url: httpUrl().optional().describe(
    "The STS endpoint (with role_arn_env). Default: https://sts.<region>.amazonaws.com; the " +
      "network boundary admits its host on the model channel.",
  ),
}).refine((model) => model.role_arn_env === undefined || model.api_key_env === undefined, {
  message: 'needs at most one of "role_arn_env" and "api_key_env"',
});

/** `provider: "vertex"`: Gemini on Google Vertex AI (`@ai-sdk/google-vertex`). */
export const VertexModelConfigSchema = z.strictObject({
  provider: z.literal("vertex"),
  ...cloudModelKeys('Model name, e.g. "gemini-3-pro".'),
  project: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/).optional().describe(
    "The Google Cloud project id. Required with access_token_env.",
  ),
  location: z.string().regex(/^[a-z0-9-]+$/).optional().describe(
    'The location, e.g. "us-central1", "global". Required with access_token_env.',
  ),
  access_token_env: envName(
    "an OAuth access token (e.g. google-github-actions/auth with token_format access_token)",
  ).optional(),
  api_key_env: envName("a Vertex AI express mode API key").optional(),
}).refine((model) => (model.api_key_env === undefined) !== (model.access_token_env === undefined), {
  message: 'needs exactly one of "access_token_env" and "api_key_env"',
}).refine(
  (model) =>
    model.access_token_env === undefined || model.base_url !== undefined ||
    (model.project !== undefined && model.location !== undefined),
  { message: 'with "access_token_env" needs "project" and "location" (or "base_url")' },
);

/** `provider: "google"`, `"mistral"`, `"groq"`: an API key and the provider's endpoint. */
function keyedModelSchema<const Name extends string>(provider: Name, example: string) {
  return z.strictObject({
    provider: z.literal(provider),
    ...cloudModelKeys(example),
    api_key_env: envName("the API key"),
  });
}

/** `provider: "google"`: the Gemini API (`@ai-sdk/google`). */
export const GoogleModelConfigSchema = keyedModelSchema("google", 'e.g. "gemini-3-flash".');
/** `provider: "mistral"`: La Plateforme (`@ai-sdk/mistral`). */
export const MistralModelConfigSchema = keyedModelSchema("mistral", 'e.g. "mistral-large-latest".');
/** `provider: "groq"`: GroqCloud (`@ai-sdk/groq`). */
export const GroqModelConfigSchema = keyedModelSchema("groq", 'e.g. "openai/gpt-oss-120b".');

/** `model`: which model drives the agent, a union on `provider`. */
export const ModelConfigSchema = z.discriminatedUnion("provider", [
  ScriptModelConfigSchema,
  OpenAiModelConfigSchema,
  AnthropicModelConfigSchema,
  OpenAiResponsesModelConfigSchema,
  AzureModelConfigSchema,
  BedrockModelConfigSchema,
  VertexModelConfigSchema,
  GoogleModelConfigSchema,
  MistralModelConfigSchema,
  GroqModelConfigSchema,
])
  .describe("The model that proposes tool calls. Optional: tools run without one.");
