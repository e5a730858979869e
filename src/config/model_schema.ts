/**
 * The config file's `model` section (ARCHITECTURE §4), as zod schemas: the script replay and the
 * two HTTP providers, a union on `provider`. Re-exported by `config_schema.ts`.
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

/** `model`: which model drives the agent, a union on `provider`. */
export const ModelConfigSchema = z.discriminatedUnion("provider", [
  ScriptModelConfigSchema,
  OpenAiModelConfigSchema,
  AnthropicModelConfigSchema,
])
  .describe("The model that proposes tool calls. Optional: tools run without one.");
