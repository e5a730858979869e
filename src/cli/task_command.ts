/**
 * `kagent-run task show TASK_ID --config FILE [--run RUN_FOLDER] [--json]`: prints a task's graph
 * with each step's state, dependencies, owner, owner run, machine, fencing token and lease (issue
 * 28), read from the config's task store: the shared PostgreSQL one, or a run folder's
 * `tasks.sqlite` (`--run`). `kagent-run task verify TASK_ID --runs DIR`: the store against the
 * sealed reports of the worker runs (a rewrite of a step after its run is found).
 *
 * @module
 */

import * as nodePath from "node:path";
import { TASK_ROWS_FILE } from "../child_agents/mod.ts";
import { verifyRun } from "../verify/mod.ts";
import {
  PostgresTaskStore,
  SqliteTaskStore,
  type Step,
  type Task,
  TASK_STORE_FILE_NAME,
  type TaskStore,
  TaskStoreError,
} from "../tasks/mod.ts";
import {
  type CommandIo,
  EXIT,
  guarded,
  loadConfigFromOptions,
  parseOptions,
  UsageError,
} from "./_common.ts";

/** Help text of `kagent-run task --help`. */
export const TASK_HELP =
  `Usage: kagent-run task show TASK_ID [--config FILE] [--run RUN_FOLDER] [--json]

Prints the task's steps: state, dependencies, owner agent, owner run, machine, fencing token and
lease. The store is the config's tasks.store: the shared PostgreSQL one, or with the default
{"kind": "sqlite"} the tasks.sqlite of the run folder given with --run.

Options:
  --config FILE      The config (default: agent.jsonc)
  --run RUN_FOLDER   The run folder whose tasks.sqlite to read (sqlite store)
  --json             The task as JSON (the store's Task shape)
`;

/** Runs the `task` command. @returns the exit status. */
export function taskCommand(args: string[], io: CommandIo): Promise<number> {
  return guarded(io, async () => {
    const { values, positionals } = parseOptions("task", args, {
      config: { type: "string" },
      run: { type: "string" },
      runs: { type: "string", multiple: true },
      json: { type: "boolean" },
    });
    if (values.help) {
      io.stdout(TASK_HELP);
      return EXIT.ok;
    }
    const [action, taskId, ...rest] = positionals;
    if ((action !== "show" && action !== "verify") || taskId === undefined || rest.length > 0) {
      throw new UsageError(
        'Cannot run "kagent-run task": expected "task show TASK_ID" or "task verify TASK_ID ' +
          '--runs RUNS_DIR"; see "kagent-run task --help"',
      );
    }
    const runsDirs = (values.runs ?? []) as unknown as string[];
    if (action === "verify" && runsDirs.length === 0) {
      throw new UsageError('Cannot verify the task: name the worker runs with "--runs RUNS_DIR"');
    }
    const store = await openStore(values, io);
    try {
      const task = await store.getTask(taskId);
      if (action === "verify") {
        const { problems, checked } = await compareWithRuns(task, runsDirs);
        for (const problem of problems) io.stdout(`${problem}\n`);
        io.stdout(
          `${problems.length === 0 ? "verified" : "tampered"}: ${checked} sealed step reports ` +
            `of ${task.id} compared with the store, ${problems.length} problems\n`,
        );
        return problems.length === 0 ? EXIT.ok : EXIT.tampered;
      }
      io.stdout(values.json ? `${JSON.stringify(task, null, 2)}\n` : taskGraphText(task));
      return EXIT.ok;
    } catch (error) {
      if (error instanceof TaskStoreError) {
        io.stderr(`kagent-run: ${error.message}\n`);
        return error.code === "not_found" ? EXIT.usage : EXIT.failed;
      }
      throw error;
    } finally {
      await store.close();
    }
  });
}

/**
 * The task as lines: its head, then one line a step (`build  done  owner worker (run …, machine …)
 * token 2`), in task order.
 */
export function taskGraphText(task: Task): string {
  const lines = [
    `Task ${task.id} "${task.title}" (${task.state}, created by ${task.created_by} in run ` +
    `${task.created_by_run_id})`,
  ];
  for (const step of task.steps) {
    const parts = [`  ${step.id}: ${step.state}`];
    if (step.depends_on.length > 0) parts.push(`after ${step.depends_on.join(", ")}`);
    if (step.owner !== null) {
      parts.push(
        `owner ${step.owner} (run ${step.owner_run_id}, machine ${
          step.owner_machine ?? "unknown"
        })`,
      );
    }
    if (step.fencing_token > 0) parts.push(`fencing token ${step.fencing_token}`);
    if (step.lease_until !== null) parts.push(`lease until ${step.lease_until}`);
    lines.push(parts.join("; "));
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The sealed step reports of the task under `runsDirs` against the store: each run folder with a
 * `task_rows.json` of this task is verified first (its seal), then the step it reported (when the
 * store took the report) must still be the same in the store, unless a later claim (a higher
 * fencing token) took the step since.
 */
export async function compareWithRuns(
  task: Task,
  runsDirs: readonly string[],
): Promise<{ problems: string[]; checked: number }> {
  const problems: string[] = [];
  let checked = 0;
  for (const runsDir of runsDirs) {
    for await (const entry of Deno.readDir(runsDir)) {
      if (!entry.isDirectory) continue;
      const runDir = nodePath.join(runsDir, entry.name);
      let rows: { task_id: string; reported: { step: Step } | null };
      try {
        rows = JSON.parse(await Deno.readTextFile(nodePath.join(runDir, TASK_ROWS_FILE)));
      } catch {
        continue; // Not a worker run (or killed before it reported).
      }
      if (rows.task_id !== task.id) continue;
      const report = await verifyRun(runDir);
      if (report.verdict !== "verified") {
        problems.push(`${runDir}: the run folder is ${report.verdict} (kagent-run verify)`);
        continue;
      }
      const sealed = rows.reported?.step;
      if (sealed === undefined) continue;
      checked++;
      const live = task.steps.find((step) => step.id === sealed.id);
      if (live === undefined) {
        problems.push(`step ${sealed.id}: sealed by run ${entry.name}, gone from the store`);
        continue;
      }
      // A later claim took the step, or its creator retried the failed step: no rewrite.
      if (live.fencing_token > sealed.fencing_token) continue;
      if (sealed.state === "failed" && live.owner === null && live.state !== "failed") continue;
      for (const field of STEP_FIELDS) {
        if (JSON.stringify(live[field]) !== JSON.stringify(sealed[field])) {
          problems.push(
            `step ${sealed.id}: the store says ${field} ${JSON.stringify(live[field])}, run ` +
              `${entry.name} sealed ${JSON.stringify(sealed[field])}`,
          );
        }
      }
    }
  }
  return { problems, checked };
}

/** The fields of a reported step a later change must not rewrite. */
const STEP_FIELDS = [
  "owner",
  "owner_run_id",
  "owner_machine",
  "state",
  "result",
  "fencing_token",
] as const satisfies readonly (keyof Step)[];

async function openStore(
  values: Record<string, string | boolean | undefined>,
  io: CommandIo,
): Promise<TaskStore> {
  if (typeof values.run === "string") {
    try {
      return new SqliteTaskStore(nodePath.join(values.run, TASK_STORE_FILE_NAME));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  const config = await loadConfigFromOptions(values);
  const store = config.tasks.store;
  if (store.kind !== "postgres") {
    throw new UsageError(
      `Cannot show the task: "${config.configPath}" keeps tasks in each run folder (tasks.store ` +
        'kind "sqlite"); name the run folder with --run',
    );
  }
  const url = io.env(store.url_env);
  if (url === undefined || url === "") {
    throw new UsageError(
      `Cannot show the task: the variable "${store.url_env}" (tasks.store.url_env) is unset or empty`,
    );
  }
  try {
    return await PostgresTaskStore.open({ url, schema: store.schema });
  } catch (error) {
    if (error instanceof TaskStoreError) throw new UsageError(error.message);
    throw error;
  }
}
