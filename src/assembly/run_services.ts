/**
 * What a run is assembled with that is not its config: the services the process provides once
 * (issue 26, "one way to assemble a run"). `kagent-run run`, `resume`, `mcp`, `call` and `worker`
 * build one record each; a child agent's run gets its root's, with the root's task store.
 *
 * @module
 */

import type { ModelProvider, TokenBudget } from "../agent/mod.ts";
import type { Approver } from "../approval/mod.ts";
import type { ModelConfig } from "../config/mod.ts";
import type { NetworkGateway } from "../network/mod.ts";
import type { SessionOptions } from "../session/mod.ts";
import type { TaskStore } from "../tasks/mod.ts";
import { type AgentTracing, agentTracingFor } from "../telemetry/mod.ts";

/** What {@linkcode RunServices.tracer} builds an agent's spans from. */
export type AgentTracingSource = Parameters<typeof agentTracingFor>[0];

/**
 * The session options that are the same for every run of a process: test knobs (a Worker entry
 * serving extra tools, a bubblewrap probe that says no, a clock) and library hooks. The CLI gives
 * none.
 */
export type SessionDefaults = Pick<
  SessionOptions,
  | "workerEntry"
  | "tools"
  | "probeBubblewrap"
  | "environmentNames"
  | "handlerTimeoutMs"
  | "hooks"
  | "now"
  | "approvalTimeoutMs"
>;

/** The services a run is assembled with (see {@linkcode assembleRun}). */
export interface RunServices {
  /** Reads an environment variable; undefined when unset or not permitted. */
  env: (name: string) => string | undefined;
  /**
   * Makes the provider of a model config (the CLI's goes through the network gateway's model
   * channel). Called once per agent run: a script provider replays its plan from its start.
   *
   * @throws what building the provider throws (an unreadable script, an unset API key variable):
   *   the run does not start.
   */
  providerFor(model: ModelConfig): Promise<ModelProvider>;
  /**
   * The task store the agent tools share: the config's PostgreSQL store opened before the network
   * boundary, or a child run's root store; null: a root run opens `tasks.sqlite` in its folder.
   */
  taskStore: TaskStore | null;
  /** Who answers asks; null: nobody (every ask ends `approval_required` with its grant). */
  approver: Approver | null;
  /**
   * Makes an agent's spans (`invoke_agent`, `chat`), or null when telemetry is off.
   * @default agentTracingFor (Deno's built-in OpenTelemetry)
   */
  tracer?: (source: AgentTracingSource) => AgentTracing | null;
  /**
   * The network boundary: its memory, mcp and tools channels are the run's fetches, and its
   * channels are measured into `network_boundary.measured`. Null: no boundary (library use and
   * tests; HTTP MCP servers and `net.fetch` then fail closed).
   */
  gateway: NetworkGateway | null;
  /**
   * The run tree's token budget (`limits.max_total_tokens` of the root run): every agent of the
   * tree, children included, spends its turns' tokens from it. @default null: no budget
   */
  tokenBudget?: TokenBudget | null;
  /** @default {} */
  session?: SessionDefaults;
}

/** The session options the services give every run: environment, approver, fetches, defaults. */
export function servicesSessionOptions(services: RunServices): SessionOptions {
  const gateway = services.gateway;
  return {
    ...services.session,
    env: services.env,
    approver: services.approver,
    ...(gateway === null ? {} : {
      memoryFetch: gateway.fetchFor("memory"),
      mcpFetch: gateway.fetchFor("mcp"),
      toolsFetch: gateway.fetchFor("tools"),
    }),
  };
}

/** The services' tracer, or the default one. */
export function tracerOf(
  services: RunServices,
): (source: AgentTracingSource) => AgentTracing | null {
  return services.tracer ?? agentTracingFor;
}
