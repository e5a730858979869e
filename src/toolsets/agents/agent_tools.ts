/**
 * The agent tools (issue 14; the design's canonical names): list the config's agent definitions,
 * start a sub-agent (fresh, with a task text), fork (a child with a copy of the conversation so
 * far), list and dispatch workers (which claim steps of a task), and inspect a child. Definitions
 * only: their handlers run on the main thread (`src/child_agents/`), where a call starts a whole
 * child agent run and answers with its final answer, end reason, usage and run id.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../tools/mod.ts";

const agentId = z.string().min(1).max(64).describe(
  "The id of an agent definition, as agent.list_agent_definitions lists it",
);
const allowedTools = z.array(z.string().min(1).max(200)).max(100).optional().describe(
  "Tool-name patterns the child's tool set is narrowed to (never widened). A worker gets a " +
    "write tool only when this list names it exactly and the policy allows it",
);
const task = z.string().min(1).max(32_768).describe("What the child should do, in words");

/** Input of `agent.create_sub_agent` and `agent.fork_agent`. */
export const ChildAgentInput = z.strictObject({
  agent_id: agentId,
  task,
  allowed_tools: allowedTools,
});

/** Input of `agent.dispatch_worker`. */
export const DispatchWorkerInput = z.strictObject({
  agent_id: agentId,
  task_id: z.string().min(1).max(200).describe("The task whose ready steps the worker claims"),
  instructions: z.string().min(1).max(32_768).optional().describe(
    "More guidance for the worker, besides the steps' own instructions",
  ),
  allowed_tools: allowedTools,
});

/** Input of `agent.inspect_agent`. */
export const InspectAgentInput = z.strictObject({
  child_run_id: z.string().min(1).max(200).describe(
    "The run id a create, fork or dispatch call answered with",
  ),
});

function mainThreadOnly(name: string): () => never {
  return () => {
    throw new Error(`Agent tool "${name}" runs on the main thread, not in the tool Worker`);
  };
}

/** Starting a child changes nothing outside the run by itself; each start is a new child. */
const annotations = {
  idempotent: false,
  risk_level: 1,
  category: "agent",
} as const;

/**
 * The six agent tools, in listing order. All are `readonly` (starting a child changes nothing by
 * itself: every call of the child goes through its own policy and approvals) and tagged `agent`.
 *
 * @example
 * ```ts
 * import { agentToolDefinitions } from "./agent_tools.ts";
 * console.assert(agentToolDefinitions().some((tool) => tool.name === "agent.dispatch_worker"));
 * ```
 */
export function agentToolDefinitions(): ToolDefinition[] {
  const empty = z.strictObject({});
  return [
    defineTool({
      name: "agent.list_agent_definitions",
      description: "Lists the agents you may start: id, type (sub, fork, worker), description, " +
        "suggested tools (a preference, not a grant) and model.",
      parameters: empty,
      permission: "readonly",
      tags: ["agent"],
      handler: mainThreadOnly("agent.list_agent_definitions"),
    }),
    defineTool({
      name: "agent.create_sub_agent",
      description: "Starts a sub-agent (a definition of type sub) with a fresh conversation " +
        "holding only the task text, runs it to its end and returns its final answer, end " +
        "reason, token usage and run id. Calls in one turn run in parallel.",
      parameters: ChildAgentInput,
      permission: "readonly",
      tags: ["agent"],
      annotations,
      handler: mainThreadOnly("agent.create_sub_agent"),
    }),
    defineTool({
      name: "agent.fork_agent",
      description: "Starts a fork (a definition of type fork) with a copy of this conversation " +
        "so far and the task text, runs it to its end and returns its final answer, end " +
        "reason, token usage and run id.",
      parameters: ChildAgentInput,
      permission: "readonly",
      tags: ["agent"],
      annotations,
      handler: mainThreadOnly("agent.fork_agent"),
    }),
    defineTool({
      name: "agent.list_workers",
      description: "Lists the worker definitions and the workers this run started, with their " +
        "state.",
      parameters: empty,
      permission: "readonly",
      tags: ["agent"],
      handler: mainThreadOnly("agent.list_workers"),
    }),
    defineTool({
      name: "agent.dispatch_worker",
      description: "Starts a worker (a definition of type worker) on a task: it claims ready " +
        "steps, does them and reports each; returns its final answer, end reason, token usage " +
        "and run id. Dispatch several in one turn to run them in parallel.",
      parameters: DispatchWorkerInput,
      permission: "readonly",
      tags: ["agent"],
      annotations,
      handler: mainThreadOnly("agent.dispatch_worker"),
    }),
    defineTool({
      name: "agent.inspect_agent",
      description: "Shows a child agent this run started: its definition, type, state, end " +
        "reason, usage, final answer and run folder.",
      parameters: InspectAgentInput,
      permission: "readonly",
      tags: ["agent"],
      handler: mainThreadOnly("agent.inspect_agent"),
    }),
  ];
}

/** Names of {@linkcode agentToolDefinitions}. */
export const AGENT_TOOL_NAMES: readonly string[] = [
  "agent.list_agent_definitions",
  "agent.create_sub_agent",
  "agent.fork_agent",
  "agent.list_workers",
  "agent.dispatch_worker",
  "agent.inspect_agent",
];
