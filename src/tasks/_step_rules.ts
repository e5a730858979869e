/**
 * The rules of work on steps as pure functions over a task's rows: a claim (with its lease and
 * fencing token), a lease renewal, and the owner's report with the readiness of dependents. Each
 * takes the task as the store read it inside its transaction and returns the rows to write; the
 * store supplies only the reading, the writing and the transaction.
 *
 * @module
 */

import { checkActor, checkTextBytes, countStates, waitingState } from "./task_graph.ts";
import {
  MAX_RESULT_BYTES,
  type Step,
  type StepReport,
  type StepState,
  type Task,
  type TaskActor,
  TaskStoreError,
} from "./task_model.ts";
import type { StepUpdate } from "./task_store.ts";

/** What a rule changed: the rows the store writes in the same transaction, and its answer. */
export interface RuleChange<T> {
  /** The task after the rule. */
  task: Task;
  /** The task's own row changed (title, description, state, result, updated_at). */
  taskChanged: boolean;
  /** Ids of the steps to write (changed or added), in task order. */
  steps: string[];
  result: T;
}

/** The clock and lease of one transaction. */
export interface RuleClock {
  /** ISO 8601 time of every change in the transaction. */
  time: string;
  /** How long a claim or renewal holds the step, in ms. */
  lease_ms: number;
}

/**
 * Tells whether `step` may be claimed at `time`: it is `ready`, or `claimed` with a lease that has
 * run out (its owner stopped renewing: a dead worker).
 */
export function claimable(step: Step, time: string): boolean {
  return step.state === "ready" ||
    (step.state === "claimed" && step.lease_until !== null && step.lease_until <= time);
}

/**
 * Claims `stepId` (or the first claimable step) of an open task for `actor`, with a lease of
 * `clock.lease_ms` and the next fencing token.
 *
 * @param free For a store whose claimers run at once (PostgreSQL's `SKIP LOCKED`): the step the
 *   store locked for this claim among the claimable ones, or null when none was free. Absent, the
 *   first claimable step is taken (the store's transaction is exclusive).
 * @throws {TaskStoreError} `not_found`, `state_conflict` (closed task, no claimable step, step not
 *   ready or held under a live lease, naming its owner).
 */
export function claimRule(
  task: Task,
  actor: TaskActor,
  stepId: string | undefined,
  clock: RuleClock,
  free?: string | null,
): RuleChange<Step> {
  checkActor(actor);
  const named = stepId === undefined ? undefined : stepOf(task, stepId);
  const chosen = named ??
    (free === undefined
      ? task.steps.find((step) => claimable(step, clock.time))
      : free === null
      ? undefined
      : stepOf(task, free));
  const what = chosen === undefined
    ? `Cannot claim a step of task "${task.id}"`
    : `Cannot claim step "${chosen.id}" of task "${task.id}"`;
  if (task.state !== "open") {
    throw new TaskStoreError("state_conflict", `${what}: the task is ${task.state}`, {
      task_id: task.id,
      task_state: task.state,
    });
  }
  if (chosen === undefined) {
    throw new TaskStoreError("state_conflict", `${what}: no step is ready (${tally(task)})`, {
      task_id: task.id,
      step_counts: countStates(task.steps.map((step) => step.state)),
    });
  }
  if (!claimable(chosen, clock.time)) {
    throw new TaskStoreError(
      "state_conflict",
      `${what}: ${notReadyReason(chosen, task.steps, actor)}`,
      { task_id: task.id, step_id: chosen.id, state: chosen.state, owner: chosen.owner },
    );
  }
  const claimed: Step = {
    ...chosen,
    state: "claimed",
    owner: actor.agent_id,
    owner_run_id: actor.run_id,
    owner_machine: actor.machine ?? null,
    fencing_token: chosen.fencing_token + 1,
    lease_until: leaseEnd(clock),
    result: null,
    updated_at: clock.time,
  };
  return { ...replaced(task, [claimed]), result: claimed };
}

/**
 * Extends the lease of `actor`'s claim on a step to `clock.lease_ms` from now.
 *
 * @throws {TaskStoreError} `conflict` (the step was claimed again or retried since `token`),
 *   `not_owner`, `state_conflict` (not claimed, task closed), `not_found`.
 */
export function renewRule(
  task: Task,
  actor: TaskActor,
  stepId: string,
  token: number,
  clock: RuleClock,
): RuleChange<Step> {
  checkActor(actor);
  const step = stepOf(task, stepId);
  checkHolder(task, step, actor, token, `Cannot renew the lease of step "${stepId}"`);
  const renewed: Step = { ...step, lease_until: leaseEnd(clock) };
  return { ...replaced(task, [renewed]), result: renewed };
}

/**
 * Records the owner's report on its claimed step; when `done`, makes ready the dependents whose
 * dependencies are now all done.
 *
 * @throws {TaskStoreError} `not_found`, `conflict` (the report's fencing token is stale: the step
 *   was claimed again after the lease ran out, or retried), `state_conflict` (the step is not
 *   claimed, or the task was closed), `not_owner` (another agent or run claimed it),
 *   `invalid_input` (result too long).
 */
export function reportRule(
  task: Task,
  actor: TaskActor,
  stepId: string,
  report: StepReport,
  time: string,
): RuleChange<StepUpdate> {
  checkActor(actor);
  const step = stepOf(task, stepId);
  checkHolder(
    task,
    step,
    actor,
    report.fencing_token,
    `Cannot mark step "${stepId}" of task "${task.id}" ${report.state}`,
  );
  checkTextBytes(`result of step "${stepId}"`, report.result, MAX_RESULT_BYTES);
  const reported: Step = {
    ...step,
    state: report.state,
    result: report.result,
    lease_until: null,
    updated_at: time,
  };
  let after = replaced(task, [reported]);
  const becameReady: Step[] = [];
  if (report.state === "done") {
    const states = new Map(after.task.steps.map((row) => [row.id, row.state]));
    for (const row of after.task.steps) {
      if (row.state !== "pending") continue;
      if (waitingState(row.depends_on, (id) => states.get(id)) === "ready") {
        becameReady.push({ ...row, state: "ready", updated_at: time });
      }
    }
    after = replaced(task, [reported, ...becameReady]);
  }
  return {
    ...after,
    result: {
      step: reported,
      became_ready: becameReady.map((row) => row.id),
      all_done: after.task.steps.every((row) => row.state === "done"),
    },
  };
}

/** The step `stepId` of `task`; `not_found` naming the task's steps. */
export function stepOf(task: Task, stepId: string): Step {
  const step = task.steps.find((row) => row.id === stepId);
  if (step !== undefined) return step;
  const ids = task.steps.map((row) => row.id);
  throw new TaskStoreError(
    "not_found",
    `Cannot find step "${stepId}" of task "${task.id}": its steps are ${ids.join(", ")}`,
    { task_id: task.id, step_id: stepId, steps: ids },
  );
}

/** `task` with `changed` steps in place of theirs, as a change writing exactly those. */
export function replaced(
  task: Task,
  changed: readonly Step[],
): Omit<RuleChange<never>, "result"> {
  const byId = new Map(changed.map((step) => [step.id, step]));
  return {
    task: { ...task, steps: task.steps.map((step) => byId.get(step.id) ?? step) },
    taskChanged: false,
    steps: task.steps.filter((step) => byId.has(step.id)).map((step) => step.id),
  };
}

/**
 * Refuses a report or renewal unless `actor` holds the step's current claim: a stale token first
 * (`conflict`: someone else's claim superseded it), then the state, then the owner.
 */
function checkHolder(
  task: Task,
  step: Step,
  actor: TaskActor,
  token: number | undefined,
  what: string,
): void {
  const details = { task_id: task.id, step_id: step.id, state: step.state, owner: step.owner };
  if (token !== undefined && token !== step.fencing_token) {
    throw new TaskStoreError(
      "conflict",
      `${what}: your claim (fencing token ${token}) was superseded by claim ${step.fencing_token}` +
        `${step.owner === null ? "" : ` of "${step.owner}" (run "${step.owner_run_id}")`}, made ` +
        "after your lease ran out or the step was retried; your work on it is not recorded",
      { ...details, fencing_token: token, current_fencing_token: step.fencing_token },
    );
  }
  if (step.state !== "claimed") {
    const reason = task.state !== "open"
      ? `the task is ${task.state}`
      : `it is ${step.state}${step.state === "ready" ? "; claim it first" : ""}`;
    throw new TaskStoreError("state_conflict", `${what}: ${reason}`, {
      ...details,
      task_state: task.state,
    });
  }
  if (step.owner !== actor.agent_id || step.owner_run_id !== actor.run_id) {
    throw new TaskStoreError(
      "not_owner",
      `${what}: it is claimed by "${step.owner}" (run "${step.owner_run_id}"), not by ` +
        `"${actor.agent_id}" (run "${actor.run_id}")`,
      { ...details, agent_id: actor.agent_id, run_id: actor.run_id },
    );
  }
}

function leaseEnd(clock: RuleClock): string {
  return new Date(Date.parse(clock.time) + clock.lease_ms).toISOString();
}

/** `2 pending, 1 claimed`. */
function tally(task: Task): string {
  return Object.entries(countStates(task.steps.map((step) => step.state)))
    .map(([state, count]) => `${count} ${state}`).join(", ");
}

/** Why a step cannot be claimed, for the message. */
function notReadyReason(step: Step, steps: readonly Step[], actor: TaskActor): string {
  if (step.state === "claimed") {
    return `it is already claimed by "${step.owner}"${
      step.owner === actor.agent_id ? " (you)" : ""
    } until ${step.lease_until} (lease)`;
  }
  if (step.state === "pending") {
    const waiting = steps.filter((other) =>
      step.depends_on.includes(other.id) && other.state !== "done"
    );
    return `it is not ready: it waits on ${
      waiting.map((other) => `"${other.id}" (${other.state satisfies StepState})`).join(", ")
    }`;
  }
  return `it is ${step.state}`;
}
