/**
 * A model provider whose every request runs inside a `chat` span of the agent's tracing (token
 * usage, finish reason, and with `audit.trace_content` the redacted answer).
 *
 * @module
 */

import type { AgentTracing } from "../telemetry/mod.ts";
import type { ModelProvider } from "./model_provider.ts";

/**
 * Wraps `provider` so that each `complete` runs in {@linkcode AgentTracing.chat}; `name` and
 * `checkTools` are the provider's own. Rejections pass through unchanged (the span records them).
 *
 * @example
 * ```ts
 * import { AgentTracing } from "../telemetry/mod.ts";
 * import { tracedProvider } from "./traced_provider.ts";
 * const tracing = new AgentTracing({
 *   runId: "r1",
 *   agent: { id: "main", name: "main" },
 *   provider: "script",
 *   model: null,
 *   content: null,
 * });
 * const provider = tracedProvider({
 *   name: "script",
 *   checkTools: () => [],
 *   complete: () => Promise.resolve({ text: "done", tool_calls: [], usage: null }),
 * }, tracing);
 * console.assert((await provider.complete({
 *   system: "",
 *   messages: [],
 *   tools: [],
 *   run: { run_id: "r1", workspace: "/w", deliverables: "/d", scratch: "/s" },
 * })).text === "done");
 * ```
 */
export function tracedProvider(provider: ModelProvider, tracing: AgentTracing): ModelProvider {
  return {
    name: provider.name,
    checkTools: (tools) => provider.checkTools(tools),
    complete: (request, signal) =>
      tracing.chat(
        request.max_tokens === undefined ? {} : { maxTokens: request.max_tokens },
        () => provider.complete(request, signal),
      ),
  };
}
