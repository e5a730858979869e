/**
 * The events of a `kagent-run worker` step run (issue 28), members of `AuditEvent`.
 *
 * @module
 */

/** A `kagent-run worker` run claimed the step it works on (issue 28). */
export interface TaskStepClaimedEvent {
  type: "task.step_claimed";
  task_id: string;
  step_id: string;
  /** The claim's fencing token: its report is refused once a newer claim exists. */
  fencing_token: number;
  /** ISO 8601 end of the claim's lease (renewed while the agent works). */
  lease_until: string | null;
  /** The machine (host name) the worker runs on. */
  machine: string;
  agent_id: string;
}

/** The worker reported the step to the shared store, after the agent's end (issue 28). */
export interface TaskStepReportedEvent {
  type: "task.step_reported";
  task_id: string;
  step_id: string;
  fencing_token: number;
  /** `done` when the agent completed, else `failed`. */
  state: "done" | "failed";
  /** The store took the report. */
  accepted: boolean;
  /** The store's refusal (`conflict`: the claim was superseded), or null. */
  refused: { code: string; message: string } | null;
  /** Why the lease was lost while the agent worked (the agent was then aborted), or null. */
  lease_lost: string | null;
}
