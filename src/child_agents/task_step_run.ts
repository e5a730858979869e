/**
 * One step of a shared task, worked by a worker agent in its own sealed run (issue 28,
 * `kagent-run worker`): claim the next ready step under a run id chosen beforehand, keep its lease
 * while the agent works, report the outcome under the claim's fencing token, and seal the rows
 * read and written (`task_rows.json`) with the run.
 *
 * @module
 */

import * as nodePath from "node:path";
import type { AgentOutcome } from "../agent/mod.ts";
import { assembleRun, type RunServices } from "../assembly/mod.ts";
import { createRunId } from "../audit/mod.ts";
import type { LoadedAgentDefinition, LoadedConfig } from "../config/mod.ts";
import {
  LeaseKeeper,
  MAX_RESULT_BYTES,
  type Step,
  type StepUpdate,
  type TaskActor,
  type TaskStore,
  TaskStoreError,
} from "../tasks/mod.ts";

/** The file of a worker's run folder holding the task rows it read and wrote (sealed). */
export const TASK_ROWS_FILE = "task_rows.json";

/** What {@linkcode runTaskStep} needs. */
export interface TaskStepOptions {
  config: LoadedConfig;
  /** The `agents` entry of type `worker` that works the step. */
  definition: LoadedAgentDefinition;
  /**
   * The services each step's run is assembled with (its provider made anew for each step: a
   * script replays from its start).
   */
  services: RunServices;
  store: TaskStore;
  taskId: string;
  /** The machine the worker runs on (`machineName()`). */
  machine: string;
  /** How often the lease is renewed, in ms. */
  renewMs: number;
  /** Aborts the agent (SIGINT, SIGTERM). */
  signal?: AbortSignal;
}

/** How one step went. */
export interface TaskStepResult {
  step: Step;
  run_id: string;
  run_dir: string;
  outcome: AgentOutcome;
  /** The store's answer to the report, or null when it was refused. */
  update: StepUpdate | null;
  /** Why the report was refused (`conflict`: the claim was superseded), or null. */
  refused: { code: string; message: string } | null;
}

/**
 * Claims the next ready step of the task (or one whose lease ran out) and works it in a new run.
 *
 * @returns null when no step could be claimed (none ready, or another worker was first).
 * @throws {TaskStoreError} when the store fails or the task is unknown or closed.
 */
export async function runTaskStep(options: TaskStepOptions): Promise<TaskStepResult | null> {
  const { config, definition, store, taskId } = options;
  const runId = createRunId(new Date());
  const actor: TaskActor = { agent_id: definition.id, run_id: runId, machine: options.machine };
  let step: Step;
  try {
    step = await store.claimStep(actor, taskId);
  } catch (error) {
    if (error instanceof TaskStoreError && error.code === "state_conflict") {
      if (error.details.task_state !== undefined) throw error;
      return null;
    }
    throw error;
  }
  const task = await store.getTask(taskId);
  const controller = new AbortController();
  const abort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", abort, { once: true });
  let lost: TaskStoreError | null = null;
  const leases = new LeaseKeeper(store, actor, {
    renewMs: options.renewMs,
    onLost: (_task, _step, error) => {
      lost = error;
      controller.abort(`the lease of step "${step.id}" was lost: ${error.message}`);
    },
  });
  leases.hold(taskId, step);
  const text = `Step "${step.id}" of task ${taskId} ("${task.title}"): ${step.title}` +
    (step.instructions === "" ? "" : `\n\n${step.instructions}`) +
    (task.description === "" ? "" : `\n\nThe task: ${task.description}`);
  try {
    const run = await assembleRun(config, options.services, {
      task: text,
      model: definition.model ?? config.model,
      runId,
      agentTools: false,
      agent: {
        agent_id: definition.id,
        role: "worker",
        definition: definition.id,
        depth: 1,
        parent: null,
      },
      allowedTools: definition.allowed_tools === null
        ? []
        : [{ source: `agent "${definition.id}" (config)`, patterns: definition.allowed_tools }],
      suggestedTools: definition.suggested_tools,
    });
    const session = run.session;
    const claimed = { task_id: taskId, step_id: step.id, fencing_token: step.fencing_token };
    let result: TaskStepResult;
    try {
      await session.recorder.event("task.step_claimed", {
        ...claimed,
        lease_until: step.lease_until,
        machine: options.machine,
        agent_id: definition.id,
      });
      const outcome = await run.loop({
        agent: { id: definition.id, name: definition.id },
        instructions: definition.instructions === null
          ? null
          : { path: `agents.${definition.id} (config)`, text: definition.instructions },
        maxTurns: definition.max_turns,
        signal: controller.signal,
      });
      const redactor = run.redactor;
      const report = {
        state: outcome.end_reason === "completed" ? "done" as const : "failed" as const,
        result: withinBytes(
          redactor.redactText(
            outcome.final_text ?? outcome.error ?? `the agent ended: ${outcome.end_reason}`,
          ),
          MAX_RESULT_BYTES,
        ),
        fencing_token: step.fencing_token,
      };
      let update: StepUpdate | null = null;
      let refused: { code: string; message: string } | null = null;
      try {
        update = await store.updateStep(actor, taskId, step.id, report);
      } catch (error) {
        if (!(error instanceof TaskStoreError) || error.code === "store_failure") throw error;
        refused = { code: error.code, message: error.message };
      }
      await Deno.writeTextFile(
        nodePath.join(session.folder.dir, TASK_ROWS_FILE),
        JSON.stringify(
          { task_id: taskId, task_title: task.title, claimed: step, reported: update, refused },
          null,
          2,
        ) + "\n",
      );
      await session.recorder.event("task.step_reported", {
        ...claimed,
        state: report.state,
        accepted: update !== null,
        refused,
        lease_lost: lost === null ? null : (lost as TaskStoreError).message,
      });
      await run.complete(outcome);
      result = {
        step,
        run_id: runId,
        run_dir: session.folder.dir,
        outcome,
        update,
        refused,
      };
    } finally {
      await run.close();
    }
    return result;
  } finally {
    leases.releaseAll();
    options.signal?.removeEventListener("abort", abort);
  }
}

/** `text` cut to at most `maxBytes` of UTF-8, never inside a character, marked when cut. */
function withinBytes(text: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return text;
  const marker = "\n[… cut to the store's limit]";
  const kept = new TextDecoder().decode(bytes.slice(0, maxBytes - 64));
  // A character cut in two decodes as U+FFFD at the end: drop it.
  return kept.replace(/\uFFFD$/, "") + marker;
}
