/**
 * The handlers of the agent tools and the task tools for one agent (a `MainThreadTools` the
 * session's runtime calls on the main thread): list definitions, start a sub-agent, a fork or a
 * worker (a whole child run, see {@linkcode runChild}), list workers, inspect a child; the task
 * tools go to a `TaskTools` for this agent's identity.
 *
 * @module
 */

import type { AgentRunParts, RunAgentTools } from "../assembly/mod.ts";
import type { LoadedAgentDefinition } from "../config/mod.ts";
import type { AgentType } from "../policy/mod.ts";
import { failure, type ToolOutcome } from "../result/mod.ts";
import { TaskTools } from "../tasks/mod.ts";
import { AGENT_TOOL_NAMES } from "../toolsets/agents/mod.ts";
import type { AgentTree } from "./agent_tree.ts";
import { type ChildRecord, childView } from "./child_outcome.ts";
import { forkHistory } from "./fork_history.ts";
import { type ChildRequest, runChild } from "./run_child.ts";

/** The agent whose tools these are: fixed before its session opens. */
export interface AgentSelf {
  /** `main`, or `<definition>-<n>`. */
  agent_id: string;
  role: AgentType;
  /** The main agent is 1. */
  depth: number;
  /** Run ids from the root down to the parent; [] for the main agent. */
  ancestors: string[];
}

const KIND_TYPES: Record<string, LoadedAgentDefinition["agent_type"]> = {
  "agent.create_sub_agent": "sub",
  "agent.fork_agent": "fork",
  "agent.dispatch_worker": "worker",
};

/**
 * The agent and task tools of one agent: a request's `agentTools`, which the run's assembly makes
 * the session's `mainThreadTools` and {@linkcode AgentTools.attach}es to the open run with its
 * task store. `execute` never rejects.
 *
 * @example
 * ```ts ignore
 * const tools = new AgentTools(tree, { agent_id: "main", role: "main", depth: 1, ancestors: [] });
 * const run = await assembleRun(config, services, { task, agentTools: tools });
 * ```
 */
export class AgentTools implements RunAgentTools {
  readonly tree: AgentTree;
  readonly self: AgentSelf;
  /** Children this agent started, by child run id, in start order. */
  readonly children = new Map<string, ChildRecord>();
  #started = 0;
  #run: AgentRunParts | null = null;
  #tasks: TaskTools | null = null;

  constructor(tree: AgentTree, self: AgentSelf) {
    this.tree = tree;
    this.self = self;
  }

  /** Binds the agent's open run; calls before it fail `internal_error`. */
  attach(run: AgentRunParts): void {
    this.#run = run;
    // The root run's store (its tasks.sqlite, or the shared PostgreSQL one): the tree's.
    this.tree.useStore(run.store);
    this.#tasks = new TaskTools(run.store, {
      agent_id: this.self.agent_id,
      agent_type: this.self.role,
      run_id: run.run_id,
    }, {
      redactor: run.redactor,
      // A config built in code (tests) may lack the tasks section: the default renewal then.
      ...(this.tree.config.tasks === undefined ? {} : { renewMs: this.tree.config.tasks.renew_ms }),
    });
  }

  /** The agent's run once attached. */
  get run(): AgentRunParts | null {
    return this.#run;
  }

  handles(name: string): boolean {
    return AGENT_TOOL_NAMES.includes(name) || (this.#tasks?.handles(name) ?? isTaskTool(name));
  }

  async execute(
    name: string,
    toolCallId: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<ToolOutcome> {
    const run = this.#run;
    const tasks = this.#tasks;
    if (run === null || tasks === null) {
      return failure("internal_error", `Cannot call tool "${name}": the agent's run is not open`);
    }
    try {
      if (!AGENT_TOOL_NAMES.includes(name)) {
        return await tasks.execute(name, toolCallId, args, signal);
      }
      if (name === "agent.list_agent_definitions") return this.#listDefinitions();
      if (name === "agent.list_workers") return this.#listWorkers();
      if (name === "agent.inspect_agent") return this.#inspect(String(args.child_run_id));
      return await this.#start(name, toolCallId, args, run, signal);
    } catch (error) {
      return failure(
        "internal_error",
        `Cannot call tool "${name}": ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  async #start(
    name: string,
    toolCallId: string,
    args: Record<string, unknown>,
    run: AgentRunParts,
    signal: AbortSignal | undefined,
  ): Promise<ToolOutcome> {
    const wanted = KIND_TYPES[name] as LoadedAgentDefinition["agent_type"];
    const id = String(args.agent_id);
    const definition = this.tree.definition(id);
    if (definition === undefined) {
      const known = this.tree.definitions.map((item) => item.id);
      return failure(
        "not_found",
        `Cannot start agent "${id}": no agent definition has this id (known: ${
          known.join(", ") || "none"
        }); see agent.list_agent_definitions`,
        { agent_id: id, known },
      );
    }
    if (definition.agent_type !== wanted) {
      return failure(
        "invalid_arguments",
        `Cannot start agent "${id}" with ${name}: it is a ${definition.agent_type} agent; use ${
          Object.entries(KIND_TYPES).find(([, type]) => type === definition.agent_type)?.[0]
        }`,
        { agent_id: id, agent_type: definition.agent_type },
      );
    }
    if (definition.agent_type === "worker") {
      try {
        await this.tree.store.getTask(String(args.task_id));
      } catch (error) {
        return failure(
          "not_found",
          `Cannot dispatch worker "${id}": task "${String(args.task_id)}" cannot be read (${
            error instanceof Error ? error.message : String(error)
          })`,
          { task_id: String(args.task_id) },
        );
      }
    }
    // From the limits' check to the count taken, nothing awaits: calls started together in one
    // turn cannot all pass the check before one of them counts.
    const { max_depth: maxDepth, max_children_per_run: maxChildren } = this.tree.config.agent;
    if (this.self.depth + 1 > maxDepth) {
      return failure(
        "agent_limit",
        `Cannot start agent "${id}": it would be at level ${this.self.depth + 1} of the agent ` +
          `tree, past "agent.max_depth" (${maxDepth})`,
        { limit: "agent.max_depth", value: maxDepth },
      );
    }
    if (this.#started >= maxChildren) {
      return failure(
        "agent_limit",
        `Cannot start agent "${id}": this run has started ${this.#started} child agents, ` +
          `"agent.max_children_per_run" (${maxChildren})`,
        { limit: "agent.max_children_per_run", value: maxChildren },
      );
    }
    const allowed = Array.isArray(args.allowed_tools) ? args.allowed_tools.map(String) : null;
    const request: ChildRequest = {
      definition,
      tool_call_id: toolCallId,
      task: definition.agent_type === "worker" ? workerTask(args) : String(args.task),
      allowed_tools: allowed,
      history: definition.agent_type === "fork" ? forkHistory(run.conversation()) : [],
    };
    this.#started += 1;
    return await runChild(this, run, request, signal);
  }

  #listDefinitions(): ToolOutcome {
    const definitions = this.tree.definitions.map((definition) => ({
      id: definition.id,
      agent_type: definition.agent_type,
      description: definition.description,
      suggested_tools: definition.suggested_tools,
      allowed_tools: definition.allowed_tools,
      model: definition.model === null ? null : {
        provider: definition.model.provider,
        model: "model" in definition.model ? definition.model.model : null,
      },
    }));
    const lines = definitions.map((definition) =>
      `${definition.id} (${definition.agent_type}): ${definition.description}` +
      (definition.suggested_tools.length > 0
        ? ` [suggested tools: ${definition.suggested_tools.join(", ")}]`
        : "")
    );
    return {
      ok: true,
      summary: `${definitions.length} agent definitions`,
      output: lines.join("\n") || 'No agent definitions: the config has no "agents".',
      data: { definitions },
      error: null,
    };
  }

  #listWorkers(): ToolOutcome {
    const definitions = this.tree.definitions.filter((item) => item.agent_type === "worker");
    const workers = [...this.children.values()]
      .filter((record) => record.agent_type === "worker")
      .map((record) => childView(record));
    const lines = [
      ...definitions.map((item) => `definition ${item.id}: ${item.description}`),
      ...workers.map((item) =>
        `worker ${item.agent_id} (run ${item.child_run_id}): ${item.state}${
          item.end_reason === null ? "" : `, ${item.end_reason}`
        }`
      ),
    ];
    return {
      ok: true,
      summary: `${definitions.length} worker definitions, ${workers.length} workers started`,
      output: lines.join("\n") || "No worker definitions and no workers started.",
      data: { definitions: definitions.map((item) => item.id), workers },
      error: null,
    };
  }

  #inspect(childRunId: string): ToolOutcome {
    const record = this.children.get(childRunId);
    if (record === undefined) {
      return failure(
        "not_found",
        `Cannot inspect agent run "${childRunId}": this agent started no child with that run id`,
        { child_run_id: childRunId, known: [...this.children.keys()] },
      );
    }
    const view = childView(record);
    return {
      ok: true,
      summary: `${view.agent_id} (${view.agent_type}): ${view.state}`,
      output: JSON.stringify(view, null, 2),
      data: view,
      error: null,
    };
  }
}

/** The task text a worker gets: which task, how to work it, and the dispatch's guidance. */
function workerTask(args: Record<string, unknown>): string {
  const taskId = String(args.task_id);
  return [
    `Work on task "${taskId}". Repeat: claim a ready step with agent.task_claim_step ` +
    `(task_id "${taskId}"), do what it says, then report it with agent.task_update_step ` +
    "(done with what you did, or failed with why). Stop when no step is ready, and answer with " +
    "what you did.",
    ...(typeof args.instructions === "string" ? [args.instructions] : []),
  ].join("\n\n");
}

function isTaskTool(name: string): boolean {
  return name === "agent.plan_template" || name.startsWith("agent.task_");
}
