/**
 * The plan and task tools' handlers for one agent: they run on the main thread against the run's
 * task store, as that agent (its id is the owner of what it claims and the creator of what it
 * creates), and answer every call with a {@linkcode ToolOutcome}.
 *
 * @module
 */

import type { Redactor } from "../audit/mod.ts";
import type { z } from "zod";
import type { AgentType } from "../policy/mod.ts";
import { type ErrorType, failure, success, type ToolOutcome } from "../result/mod.ts";
import type { MainThreadTools } from "../runtime/mod.ts";
import { countsText, listText, stepText, taskHead, taskText } from "./_task_text.ts";
import { countStates } from "./task_graph.ts";
import { type NewStep, type Task, type TaskActor, TaskStoreError } from "./task_model.ts";
import type { TaskStore } from "./task_store.ts";
import { LeaseKeeper } from "./lease_keeper.ts";
import { machineName } from "./machine_name.ts";
import {
  CHILD_TASK_TOOL_NAMES,
  TASK_TOOL_NAMES,
  type TaskToolName,
} from "./task_tool_definitions.ts";
import {
  TASK_CANCEL,
  TASK_CLAIM_STEP,
  TASK_COMPLETE,
  TASK_CREATE,
  TASK_FAIL,
  TASK_GET,
  TASK_LIST,
  TASK_QUERY_STEPS,
  TASK_UPDATE,
  TASK_UPDATE_STEP,
} from "./task_tool_schemas.ts";
import { PLAN_SECTIONS, PLAN_TEMPLATE, TASK_EXAMPLE, TASK_RULES } from "./templates.ts";

/** Who calls the tools. */
export interface TaskToolsIdentity {
  /** Owner of claimed steps and creator of created tasks, e.g. `main`, `worker-1`. */
  agent_id: string;
  /** `sub`, `fork` and `worker` agents may call only `CHILD_TASK_TOOL_NAMES`. */
  agent_type: AgentType;
  /** The agent's run id, recorded beside ownership. */
  run_id: string;
  /** The machine the agent runs on, recorded beside ownership. @default machineName() */
  machine?: string;
}

/** Options of {@linkcode TaskTools}. */
export interface TaskToolsOptions {
  /**
   * Redacts the arguments before they reach the store, so the store file never holds a secret the
   * model wrote into a task (the run's redactor: `audit.secret_env` values and token shapes).
   * @default no redaction
   */
  redactor?: Pick<Redactor, "redactValue">;
  /**
   * How often the lease of a claimed step is renewed while the agent works on it, in ms.
   * @default 20000 (DEFAULT_RENEW_MS)
   */
  renewMs?: number;
}

const STORE_ERROR_TYPES: Readonly<Record<TaskStoreError["code"], ErrorType>> = {
  invalid_input: "invalid_arguments",
  not_found: "not_found",
  state_conflict: "state_conflict",
  not_owner: "not_owner",
  conflict: "state_conflict",
  store_failure: "io_error",
};

/**
 * Runs the plan and task tools for one agent (a {@linkcode MainThreadTools} for the runtime).
 *
 * Errors are failed outcomes, never throws: arguments outside the schema or a store bound →
 * `invalid_arguments`; an unknown task or step → `not_found`; a step claimed by another agent, not
 * ready, or a closed task → `state_conflict`; another agent's step or task → `not_owner`; the
 * store file failing → `io_error`; a tool a `sub`/`fork`/`worker` agent may not have →
 * `tool_not_available` (the policy removes those tools first; this is the second wall); an
 * aborted run → `aborted`.
 *
 * @example
 * ```ts
 * import { SqliteTaskStore, TaskTools } from "./mod.ts";
 * const folder = await Deno.makeTempDir();
 * const store = new SqliteTaskStore(`${folder}/tasks.sqlite`);
 * const main = new TaskTools(store, { agent_id: "main", agent_type: "main", run_id: "run-1" });
 * const created = await main.execute("agent.task_create", "call-1", {
 *   title: "Ship",
 *   steps: [{ id: "build", title: "Build" }],
 * }, undefined);
 * console.assert(created.ok && created.summary.startsWith("Created task task-1"));
 * await store.close();
 * await Deno.remove(folder, { recursive: true });
 * ```
 */
export class TaskTools implements MainThreadTools {
  readonly #store: TaskStore;
  readonly #identity: TaskToolsIdentity;
  readonly #actor: TaskActor;
  readonly #redactor: Pick<Redactor, "redactValue"> | null;
  readonly #leases: LeaseKeeper;

  constructor(store: TaskStore, identity: TaskToolsIdentity, options: TaskToolsOptions = {}) {
    this.#store = store;
    this.#identity = identity;
    this.#actor = {
      agent_id: identity.agent_id,
      run_id: identity.run_id,
      machine: identity.machine ?? machineName(),
    };
    this.#redactor = options.redactor ?? null;
    this.#leases = new LeaseKeeper(store, this.#actor, {
      ...(options.renewMs === undefined ? {} : { renewMs: options.renewMs }),
    });
  }

  /** Stops renewing the leases of the steps this agent still holds (its run ended). */
  releaseLeases(): void {
    this.#leases.releaseAll();
  }

  /** Tells whether `name` is a plan or task tool. */
  handles(name: string): boolean {
    return (TASK_TOOL_NAMES as readonly string[]).includes(name);
  }

  /** Runs one call; never rejects. */
  async execute(
    name: string,
    _toolCallId: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<ToolOutcome> {
    if (!this.handles(name)) {
      return failure("tool_not_available", `Cannot run "${name}": it is not a task tool`, {
        tool: name,
      });
    }
    const tool = name as TaskToolName;
    const agentType = this.#identity.agent_type;
    if (agentType !== "main" && !CHILD_TASK_TOOL_NAMES.includes(tool)) {
      return failure(
        "tool_not_available",
        `Cannot run "${tool}" as a ${agentType} agent: a ${agentType} agent may use only ` +
          `${CHILD_TASK_TOOL_NAMES.join(", ")}`,
        { tool, agent_type: agentType },
      );
    }
    if (signal?.aborted === true) {
      return failure("aborted", `Cannot run "${tool}": the run was aborted`, {
        aborted: true,
        partial: false,
      });
    }
    try {
      return await this.#run(tool, args);
    } catch (error) {
      if (error instanceof TaskStoreError) {
        return failure(STORE_ERROR_TYPES[error.code], error.message, error.details);
      }
      const reason = error instanceof Error ? error.message : String(error);
      return failure("internal_error", `Cannot run "${tool}": ${reason}`, {});
    }
  }

  /**
   * The arguments checked against `schema` (again: a caller may skip the registry) and redacted.
   *
   * @throws {TaskStoreError} `invalid_input` listing every problem.
   */
  #parse<Schema extends z.ZodObject>(
    tool: TaskToolName,
    schema: Schema,
    args: Record<string, unknown>,
  ): z.output<Schema> {
    const parsed = schema.safeParse(args);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) =>
        `${issue.path.length === 0 ? "(arguments)" : issue.path.join(".")}: ${issue.message}`
      );
      throw new TaskStoreError(
        "invalid_input",
        `Cannot run "${tool}": the arguments do not fit its schema: ${problems.join("; ")}`,
        { problems },
      );
    }
    return (this.#redactor?.redactValue(parsed.data) ?? parsed.data) as z.output<Schema>;
  }

  async #run(tool: TaskToolName, args: Record<string, unknown>): Promise<ToolOutcome> {
    const store = this.#store;
    const actor = this.#actor;
    switch (tool) {
      case "agent.plan_template":
        return success("Plan template", PLAN_TEMPLATE, {
          template: PLAN_TEMPLATE,
          sections: PLAN_SECTIONS,
        });
      case "agent.task_template":
        return success(
          "Task template",
          `Example arguments of agent.task_create:\n${JSON.stringify(TASK_EXAMPLE, null, 2)}\n` +
            `Rules:\n${TASK_RULES.map((rule) => `- ${rule}`).join("\n")}`,
          { example: TASK_EXAMPLE, rules: TASK_RULES },
        );
      case "agent.task_create": {
        const input = this.#parse(tool, TASK_CREATE, args);
        const task = await store.createTask(actor, {
          title: input.title,
          ...defined({ description: input.description }),
          steps: input.steps.map(newStep),
        });
        return taskOutcome(`Created ${headOf(task)}`, task);
      }
      case "agent.task_get": {
        const input = this.#parse(tool, TASK_GET, args);
        const task = await store.getTask(input.task_id);
        return taskOutcome(headOf(task), task);
      }
      case "agent.task_list": {
        const input = this.#parse(tool, TASK_LIST, args);
        const tasks = await store.listTasks(
          defined({ states: input.states }),
        );
        return success(`Listed ${tasks.length} tasks`, listText(tasks), { tasks });
      }
      case "agent.task_update": {
        const input = this.#parse(tool, TASK_UPDATE, args);
        const task = await store.updateTask(actor, input.task_id, {
          ...defined({
            title: input.title,
            description: input.description,
            retry_steps: input.retry_steps,
          }),
          ...(input.add_steps === undefined ? {} : { add_steps: input.add_steps.map(newStep) }),
          ...(input.edit_steps === undefined ? {} : {
            edit_steps: input.edit_steps.map((edit) => ({
              id: edit.id,
              ...defined({ title: edit.title, instructions: edit.instructions }),
            })),
          }),
        });
        return taskOutcome(`Updated task ${input.task_id}`, task);
      }
      case "agent.task_query_steps": {
        const input = this.#parse(tool, TASK_QUERY_STEPS, args);
        const steps = await store.querySteps(input.task_id, {
          ...defined({ states: input.states }),
          ...(input.mine === true ? { owner: actor.agent_id } : {}),
        });
        const which = [
          ...(input.states === undefined ? [] : [`in state ${input.states.join(" or ")}`]),
          ...(input.mine === true ? [`claimed by you (${actor.agent_id})`] : []),
        ];
        const head = `${steps.length} steps of task ${input.task_id}` +
          (which.length === 0 ? "" : ` ${which.join(", ")}`);
        return success(
          head,
          steps.length === 0
            ? `No steps of task ${input.task_id} ${which.join(", ")}.`
            : `${head}:\n${steps.map((step) => stepText(step, true)).join("\n")}`,
          { task_id: input.task_id, steps },
        );
      }
      case "agent.task_claim_step": {
        const input = this.#parse(tool, TASK_CLAIM_STEP, args);
        const step = await store.claimStep(actor, input.task_id, input.step_id);
        this.#leases.hold(input.task_id, step);
        return success(
          `Claimed step ${step.id} of task ${input.task_id}`,
          `You claimed step "${step.id}" of task ${input.task_id}; no other agent can claim it.\n` +
            `${stepText(step, true)}\n` +
            "When you finish, report it with agent.task_update_step: state done with what you " +
            "did and found, or failed with why.",
          { task_id: input.task_id, step },
        );
      }
      case "agent.task_update_step": {
        const input = this.#parse(tool, TASK_UPDATE_STEP, args);
        const token = this.#leases.tokenOf(input.task_id, input.step_id);
        const update = await store.updateStep(actor, input.task_id, input.step_id, {
          state: input.state,
          result: input.result,
          ...(token === undefined ? {} : { fencing_token: token }),
        }).catch((error) => {
          // A refusal that ends the claim (superseded, not ours, not claimed) stops its renewal;
          // an invalid report or a store failure leaves the claim held for another try.
          if (
            error instanceof TaskStoreError &&
            ["conflict", "not_owner", "state_conflict"].includes(error.code)
          ) this.#leases.release(input.task_id, input.step_id);
          throw error;
        });
        this.#leases.release(input.task_id, input.step_id);
        const lines = [
          `Step "${update.step.id}" of task ${input.task_id} is ${update.step.state}.`,
        ];
        if (update.became_ready.length > 0) {
          lines.push(`Now ready: ${update.became_ready.join(", ")}.`);
        }
        if (update.all_done) lines.push("Every step is done: the task's creator can complete it.");
        return success(lines[0] as string, lines.join("\n"), { task_id: input.task_id, ...update });
      }
      case "agent.task_complete": {
        const input = this.#parse(tool, TASK_COMPLETE, args);
        return taskOutcome(
          `Completed task ${input.task_id}`,
          await store.closeTask(actor, input.task_id, "completed", input.summary ?? ""),
        );
      }
      case "agent.task_fail": {
        const input = this.#parse(tool, TASK_FAIL, args);
        return taskOutcome(
          `Failed task ${input.task_id}`,
          await store.closeTask(actor, input.task_id, "failed", input.reason),
        );
      }
      case "agent.task_cancel": {
        const input = this.#parse(tool, TASK_CANCEL, args);
        return taskOutcome(
          `Cancelled task ${input.task_id}`,
          await store.closeTask(actor, input.task_id, "cancelled", input.reason ?? ""),
        );
      }
    }
  }
}

/** `task task-1 "Ship" with 3 steps (1 ready, 2 pending)`. */
function headOf(task: Task): string {
  return `${taskHead(task).replace(/^Task/, "task")}: ${
    countsText(countStates(task.steps.map((step) => step.state)))
  }`;
}

/** `value` without its undefined fields (optional fields are absent, never undefined). */
function defined<T extends Record<string, unknown>>(
  value: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(
    Object.entries(value).filter(([, field]) => field !== undefined),
  ) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** A parsed step as the store takes it. */
function newStep(
  step: {
    id: string;
    title: string;
    instructions?: string | undefined;
    depends_on?: string[] | undefined;
  },
): NewStep {
  return {
    id: step.id,
    title: step.title,
    ...defined({ instructions: step.instructions, depends_on: step.depends_on }),
  };
}

function taskOutcome(summary: string, task: Task): ToolOutcome {
  return success(summary, taskText(task), { task });
}
