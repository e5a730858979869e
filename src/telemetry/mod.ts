/**
 * Tracing with OpenTelemetry (issue 15 §4): the GenAI spans of agents, model requests and tool
 * calls, emitted through `@opentelemetry/api` to Deno's built-in exporter (on with
 * `OTEL_DENO=true`; without it every span is a no-op), and the telemetry channel: where that
 * exporter would send, checked against `audit.trace_hosts`.
 *
 * @module
 */

export { AgentTracing } from "./agent_tracing.ts";
export { agentTracingFor } from "./agent_tracing_for.ts";

export {
  type TelemetryChannel,
  telemetryChannel,
  telemetryProblems,
  telemetrySnapshot,
} from "./telemetry_channel.ts";
export { startToolSpan, type ToolTracing } from "./tool_span.ts";
