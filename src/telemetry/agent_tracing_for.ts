/**
 * The {@linkcode AgentTracing} of an agent from its model config: the request model and the
 * model's server ({@linkcode modelBaseUrl}) for every remote provider, none for `script`.
 *
 * @module
 */

import type { Context } from "@opentelemetry/api";
import type { Redactor } from "../audit/mod.ts";
import { modelBaseUrl, type ModelEndpointConfig } from "../config/base/mod.ts";
import { AgentTracing } from "./agent_tracing.ts";

/** What {@linkcode agentTracingFor} builds an agent's tracing from. */
export interface AgentTracingSource {
  /** Deno's OpenTelemetry is on (`TelemetryChannel.enabled`); off: no tracing. */
  enabled: boolean;
  /** The agent's own run id (a child agent's run folder id). */
  runId: string;
  /** `main` for a run's own agent; a child's definition id. */
  agent: { id: string; name: string };
  /** The agent's model as configured: `provider`, and `model` and `base_url` for remote ones. */
  model: ModelEndpointConfig & { model?: string };
  /** Redacts span content (`audit.trace_content`); null: no content. */
  content: Redactor | null;
  /** @default the active context (inside a tool call: that call's span) */
  parent?: Context;
}

/**
 * The agent's tracing, or null when telemetry is off.
 *
 * @example
 * ```ts
 * import { agentTracingFor } from "./agent_tracing_for.ts";
 * const off = agentTracingFor({
 *   enabled: false,
 *   runId: "r1",
 *   agent: { id: "main", name: "main" },
 *   model: { provider: "script" },
 *   content: null,
 * });
 * console.assert(off === null);
 * ```
 */
export function agentTracingFor(source: AgentTracingSource): AgentTracing | null {
  if (!source.enabled) return null;
  const { provider } = source.model;
  const baseUrl = modelBaseUrl(source.model);
  return new AgentTracing({
    runId: source.runId,
    agent: source.agent,
    provider,
    model: baseUrl === null ? null : source.model.model ?? null,
    baseUrl,
    content: source.content,
    ...(source.parent === undefined ? {} : { parent: source.parent }),
  });
}
