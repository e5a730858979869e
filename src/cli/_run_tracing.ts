/**
 * The spans of a run's own agent, when Deno's OpenTelemetry is on.
 *
 * @module
 */

import { Redactor } from "../audit/mod.ts";
import type { LoadedConfig } from "../config/mod.ts";
import { type AgentTracing, agentTracingFor } from "../telemetry/mod.ts";

/**
 * The `invoke_agent` and `chat` spans of the run's main agent (`gen_ai.agent.id` and name
 * `main`), or null when the session's telemetry channel is off (`OTEL_DENO` is not `true`). With
 * `audit.trace_content` the spans' content is redacted with the session's secrets (the
 * `audit.secret_env` values and the MCP servers' expanded `${VAR}`).
 */
export function runTracing(
  session: { folder: { id: string }; telemetry: { enabled: boolean }; secrets: string[] },
  config: LoadedConfig,
  model: NonNullable<LoadedConfig["model"]>,
): AgentTracing | null {
  return agentTracingFor({
    enabled: session.telemetry.enabled,
    runId: session.folder.id,
    agent: { id: "main", name: "main" },
    model,
    content: config.audit.trace_content ? new Redactor({ secrets: session.secrets }) : null,
  });
}
