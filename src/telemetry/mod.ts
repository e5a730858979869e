/**
 * Tracing with OpenTelemetry (issue 15 §4): the GenAI spans of agents, model requests and tool
 * calls, emitted through `@opentelemetry/api` to Deno's built-in exporter (on with
 * `OTEL_DENO=true`; without it every span is a no-op), and the telemetry channel: where that
 * exporter would send, checked against `audit.trace_hosts`.
 *
 * @module
 */

export {
  type AgentEnd,
  AgentTracing,
  type AgentTracingOptions,
  type ChatAnswer,
} from "./agent_tracing.ts";
export { agentTracingFor, type AgentTracingSource } from "./agent_tracing_for.ts";
export { GEN_AI, genAiProviderName, KAGENT, TRACER_NAME } from "./gen_ai_names.ts";
export {
  DEFAULT_OTLP_ENDPOINT,
  type TelemetryChannel,
  telemetryChannel,
  type TelemetryEndpoint,
  telemetryProblems,
  type TelemetrySignal,
  telemetrySnapshot,
} from "./telemetry_channel.ts";
export {
  MAX_TRACE_NAME_BYTES,
  startToolSpan,
  ToolSpan,
  type ToolSpanOutcome,
  type ToolTracing,
} from "./tool_span.ts";
export { MAX_TRACE_CONTENT_BYTES, traceContent } from "./trace_content.ts";
