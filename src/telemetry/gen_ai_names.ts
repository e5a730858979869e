/**
 * The names spans are written with: the OpenTelemetry GenAI semantic conventions (development
 * status; the agent, inference and tool-execution spans as published in
 * open-telemetry/semantic-conventions-genai, with `gen_ai.provider.name`, which replaced
 * `gen_ai.system`), and kagent-run's own `kagent.*` attributes.
 *
 * @module
 */

import { trace, type Tracer } from "@opentelemetry/api";

/** The instrumentation scope of every kagent-run span. */
export const TRACER_NAME = "kagent-run";

/** The tracer of the process's provider (a no-op one unless Deno's OpenTelemetry is on). */
export function kagentTracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/** Attribute names of the GenAI conventions that kagent-run sets. */
export const GEN_AI = Object.freeze({
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  agentId: "gen_ai.agent.id",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  requestMaxTokens: "gen_ai.request.max_tokens",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  outputMessages: "gen_ai.output.messages",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  errorType: "error.type",
  serverAddress: "server.address",
  serverPort: "server.port",
});

/** kagent-run's own attributes. */
export const KAGENT = Object.freeze({
  runId: "kagent.run_id",
  decision: "kagent.decision",
  rule: "kagent.rule",
  layer: "kagent.layer",
  approval: "kagent.approval",
  riskLevel: "kagent.risk_level",
  exitCode: "kagent.exit_code",
  endReason: "kagent.end_reason",
  turns: "kagent.turns",
  stopReason: "kagent.stop_reason",
  toolCalls: "kagent.tool_calls",
});

/**
 * `gen_ai.provider.name` of a kagent-run model provider: the convention's well-known value for
 * `openai` and `anthropic` (an OpenAI-compatible `base_url` stays `openai`: the convention asks for
 * the client's best knowledge) and the clouds (`azure.ai.openai`, `aws.bedrock`, `gcp.vertex_ai`,
 * `gcp.gemini`, `mistral_ai`, `groq`; `openai-responses` is `openai`), `kagent.script` for the
 * script provider.
 *
 * @example
 * ```ts
 * import { genAiProviderName } from "./gen_ai_names.ts";
 * console.assert(genAiProviderName("script") === "kagent.script");
 * ```
 */
export function genAiProviderName(provider: string): string {
  return GEN_AI_PROVIDER_NAMES[provider] ?? `kagent.${provider}`;
}

/** The convention's well-known `gen_ai.provider.name` values of kagent-run's providers. */
const GEN_AI_PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: "openai",
  "openai-responses": "openai",
  anthropic: "anthropic",
  azure: "azure.ai.openai",
  bedrock: "aws.bedrock",
  vertex: "gcp.vertex_ai",
  google: "gcp.gemini",
  mistral: "mistral_ai",
  groq: "groq",
};
