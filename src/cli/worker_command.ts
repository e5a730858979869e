/**
 * `kagent-run worker --config FILE --task TASK_ID [--agent NAME] [--max-steps N]`: a process that
 * works the steps of one shared task (issue 28): it claims the next ready step in the config's
 * PostgreSQL task store, runs the worker agent on it in a new sealed run folder, reports it under
 * the claim's fencing token, and goes on until no step is ready or claimed (or `--max-steps`).
 * Many such processes, on many machines, share one task graph.
 *
 * @module
 */

import { runTaskStep, type TaskStepResult } from "../child_agents/mod.ts";
import type { LoadedAgentDefinition, LoadedConfig } from "../config/mod.ts";
import { machineName, PostgresTaskStore, type TaskStore, TaskStoreError } from "../tasks/mod.ts";
import {
  APPROVAL_HELP,
  APPROVAL_OPTIONS,
  approverFor,
  type CommandIo,
  EXIT,
  guarded,
  loadConfigFromOptions,
  openNetworkBoundary,
  parseOptions,
  UsageError,
} from "./_common.ts";
import { cliRunServices } from "./_run_services.ts";

/** Help text of `kagent-run worker --help`. */
export const WORKER_HELP =
  `Usage: kagent-run worker --config FILE --task TASK_ID [--agent NAME] [--max-steps N]

Works the steps of one shared task: claims the next ready step in the config's PostgreSQL task
store (tasks.store {"kind": "postgres", "url_env": ...}), runs the worker agent NAME (an "agents"
entry of type worker; default: the only one) on it in a new run folder under runs_dir, reports it
done or failed, and goes on until no step of the task is ready or claimed by another worker.
While a step runs its lease is renewed every tasks.renew_ms; a worker that dies stops renewing,
and after tasks.lease_ms another worker claims the step again. Each run folder names the task, the
step and the claim's fencing token, and seals the rows it read and wrote (task_rows.json).

Options:
  --config FILE     The config (default: agent.jsonc)
  --task TASK_ID    The task to work on, e.g. task-1 (created by a main agent's agent.task_create)
  --agent NAME      The worker definition under "agents" (default: the only worker one)
  --max-steps N     Stop after N steps (default: no limit)
  --workspace DIR   Override the config's workspace
  --quiet           Print only the summary line
${APPROVAL_HELP}
Exit status: 0 every step this worker ran was done; 1 a step failed or its report was refused
(its claim was superseded); 2 usage or config error, or the store cannot be reached.
`;

/** How long to wait between looks at a task whose steps are all claimed by others, in ms. */
const POLL_MS = 500;

/** Runs the `worker` command. @returns the exit status. */
export function workerCommand(args: string[], io: CommandIo): Promise<number> {
  return guarded(io, async () => {
    const { values, positionals } = parseOptions("worker", args, {
      config: { type: "string" },
      task: { type: "string" },
      agent: { type: "string" },
      "max-steps": { type: "string" },
      workspace: { type: "string" },
      quiet: { type: "boolean" },
      ...APPROVAL_OPTIONS,
    });
    if (values.help) {
      io.stdout(WORKER_HELP);
      return EXIT.ok;
    }
    if (positionals.length > 0) {
      throw new UsageError(
        `Cannot run the worker: unexpected argument "${
          positionals[0]
        }"; see "kagent-run worker --help"`,
      );
    }
    const taskId = typeof values.task === "string" ? values.task : null;
    if (taskId === null) {
      throw new UsageError(
        'Cannot run the worker: --task is missing; name the task, e.g. "task-1"',
      );
    }
    const maxSteps = parseMaxSteps(values["max-steps"]);
    const config = await loadConfigFromOptions(values);
    const definition = workerDefinition(config, values.agent);
    const model = definition.model ?? config.model;
    if (model === null) {
      throw new UsageError(
        `Cannot run the worker "${definition.id}": neither agents.${definition.id}.model nor ` +
          `"model" is set in "${config.configPath}"`,
      );
    }
    // The store's Worker starts (with net for the database alone) before the process gives up
    // its own net permission.
    const store = await openStore(config, io);
    try {
      const gateway = await openNetworkBoundary(config, io);
      try {
        return await workSteps(config, definition, store, taskId, maxSteps, io, values, gateway);
      } finally {
        gateway?.close();
      }
    } finally {
      await store.close();
    }
  });
}

async function workSteps(
  config: LoadedConfig,
  definition: LoadedAgentDefinition,
  store: TaskStore,
  taskId: string,
  maxSteps: number,
  io: CommandIo,
  values: Record<string, string | boolean | undefined>,
  gateway: Awaited<ReturnType<typeof openNetworkBoundary>>,
): Promise<number> {
  const machine = machineName();
  const controller = new AbortController();
  const listener = () => controller.abort("interrupted by a signal");
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, listener);
  const results: TaskStepResult[] = [];
  try {
    while (results.length < maxSteps && !controller.signal.aborted) {
      let result: TaskStepResult | null;
      try {
        result = await runTaskStep({
          config,
          definition,
          // Each step's run is assembled with the worker's services, the shared store among them.
          services: cliRunServices(io, gateway, approverFor(values, io), store),
          store,
          taskId,
          machine,
          renewMs: config.tasks.renew_ms,
          signal: controller.signal,
        });
      } catch (error) {
        // The task was closed (or the store failed): no more steps for this worker.
        if (!(error instanceof TaskStoreError)) throw error;
        io.stderr(`kagent-run: ${error.message}\n`);
        if (error.code !== "state_conflict") return EXIT.failed;
        break;
      }
      if (result !== null) {
        results.push(result);
        if (!values.quiet) io.stderr(stepLine(result));
        continue;
      }
      // Nothing claimable: wait while other workers hold steps (their leases may run out, their
      // reports may make dependents ready); stop when none is ready or claimed.
      const steps = await store.querySteps(taskId, { states: ["ready", "claimed"] });
      if (steps.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      Deno.removeSignalListener(signal, listener);
    }
  }
  const done = results.filter((result) => result.update?.step.state === "done").length;
  io.stderr(
    `kagent-run: worker "${definition.id}" on ${machine} ran ${results.length} steps of ` +
      `${taskId}: ${done} done, ${results.length - done} failed or refused\n`,
  );
  return done === results.length ? EXIT.ok : EXIT.failed;
}

/** `kagent-run: step build of task-1 done (token 1) in runs/<id>`. */
function stepLine(result: TaskStepResult): string {
  const state = result.refused !== null
    ? `refused: ${result.refused.message}`
    : result.update?.step.state ?? "unknown";
  return `kagent-run: step ${result.step.id} (fencing token ${result.step.fencing_token}) ` +
    `${state}; run ${result.run_id}\n`;
}

function parseMaxSteps(value: string | boolean | undefined): number {
  if (value === undefined) return Number.POSITIVE_INFINITY;
  const count = Number(value);
  if (typeof value !== "string" || !Number.isInteger(count) || count < 1) {
    throw new UsageError(
      `Cannot run the worker: --max-steps "${String(value)}" is not a whole number of 1 or more`,
    );
  }
  return count;
}

/** The `agents` entry of type worker named by `--agent`, or the only one. */
function workerDefinition(
  config: LoadedConfig,
  name: string | boolean | undefined,
): LoadedAgentDefinition {
  const workers = Object.values(config.agents).filter((agent) => agent.agent_type === "worker");
  if (typeof name === "string") {
    const named = Object.hasOwn(config.agents, name) ? config.agents[name] : undefined;
    if (named?.agent_type !== "worker") {
      throw new UsageError(
        `Cannot run the worker "${name}": "${config.configPath}" has no agents.${name} of ` +
          `agent_type "worker" (workers: ${workers.map((agent) => agent.id).join(", ") || "none"})`,
      );
    }
    return named;
  }
  if (workers.length !== 1) {
    throw new UsageError(
      `Cannot choose the worker: "${config.configPath}" defines ${workers.length} agents of ` +
        `agent_type "worker"${
          workers.length === 0 ? "" : ` (${workers.map((agent) => agent.id).join(", ")})`
        }; name one with --agent`,
    );
  }
  return workers[0] as LoadedAgentDefinition;
}

/** The config's PostgreSQL store, opened; usage errors say what to set. */
async function openStore(config: LoadedConfig, io: CommandIo): Promise<TaskStore> {
  const store = config.tasks.store;
  if (store.kind !== "postgres") {
    throw new UsageError(
      `Cannot run the worker: "${config.configPath}" keeps tasks in the run folder (tasks.store ` +
        'kind "sqlite"); workers on other machines need a shared store: set tasks.store to ' +
        '{"kind": "postgres", "url_env": "KAGENT_TASKS_DATABASE_URL"}',
    );
  }
  const url = io.env(store.url_env);
  if (url === undefined || url === "") {
    throw new UsageError(
      `Cannot run the worker: the variable "${store.url_env}" (tasks.store.url_env) is unset or ` +
        "empty; set it to postgres://user:password@host:port/database",
    );
  }
  try {
    return await PostgresTaskStore.open({
      url,
      schema: store.schema,
      leaseMs: config.tasks.lease_ms,
    });
  } catch (error) {
    if (error instanceof TaskStoreError) throw new UsageError(error.message);
    throw error;
  }
}
