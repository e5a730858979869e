/**
 * The PostgreSQL task store's side inside its Worker: each store operation as one transaction that locks the rows it needs, reads
 * the task, applies the shared task rules and writes what they changed. Claims lock the step with
 * `SELECT … FOR UPDATE SKIP LOCKED`, so concurrent claimers each take a different step without
 * waiting on each other; changes to a task's steps that decide readiness (reports, the creator's
 * changes, closing) lock the task's row, so two reports never both miss a dependent.
 *
 * @module
 */

import type postgres from "postgres";
import {
  claimRule,
  renewRule,
  reportRule,
  type RuleChange,
  type RuleClock,
} from "./_step_rules.ts";
import {
  changeRule,
  closeRule,
  createRule,
  filterSteps,
  summaryOf,
  taskNotFound,
  withLatestUpdate,
} from "./_task_rules.ts";
import type { Step, StepState, Task, TaskActor, TaskState } from "./task_model.ts";
import type { TaskStoreRequest } from "./_postgres_messages.ts";

type Sql = postgres.Sql;
type Transaction = postgres.TransactionSql;
type Row = Record<string, unknown>;

/** Runs one store request as one transaction; its answer, or a `TaskStoreError` thrown. */
export async function runRequest(
  sql: Sql,
  schema: string,
  request: TaskStoreRequest,
): Promise<unknown> {
  const rows = new Rows(schema);
  const clock = { time: request.time, lease_ms: request.lease_ms };
  const time = request.time;
  switch (request.operation) {
    case "createTask": {
      const [actor, input] = request.arguments;
      return await sql.begin(async (transaction) => {
        // One creator at a time numbers the tasks; claims (row locks) are not held up.
        await transaction.unsafe(`LOCK TABLE ${rows.schema}.tasks IN SHARE ROW EXCLUSIVE MODE`);
        const [count] = await transaction.unsafe(
          `SELECT COUNT(*)::integer AS tasks, COALESCE(MAX(number), 0)::integer AS last
           FROM ${rows.schema}.tasks`,
        );
        const last = Number((count as Row).last);
        const task = createRule(actor, input, {
          tasks: Number((count as Row).tasks),
          last,
          name: `postgres schema "${schema}"`,
        }, time);
        await rows.insertTask(transaction, task, last + 1);
        return task;
      });
    }
    case "getTask":
      return await sql.begin(
        "ISOLATION LEVEL REPEATABLE READ",
        (transaction) => rows.task(transaction, request.arguments[0]),
      );
    case "listTasks":
      return await sql.begin("ISOLATION LEVEL REPEATABLE READ", async (transaction) => {
        const tasks = await rows.tasks(transaction);
        return tasks.flatMap((task) => summaryOf(task, request.arguments[0]) ?? []);
      });
    case "querySteps":
      return await sql.begin("ISOLATION LEVEL REPEATABLE READ", async (transaction) => {
        const [taskId, filter] = request.arguments;
        return filterSteps(await rows.task(transaction, taskId), filter);
      });
    case "updateTask": {
      const [actor, taskId, changes] = request.arguments;
      return await rows.apply(
        sql,
        taskId,
        "UPDATE",
        null,
        (task) => changeRule(task, actor, changes, time),
      );
    }
    case "closeTask": {
      const [actor, taskId, state, note] = request.arguments;
      return await rows.apply(
        sql,
        taskId,
        "UPDATE",
        null,
        (task) => closeRule(task, actor, state, note, time),
      );
    }
    case "updateStep": {
      const [actor, taskId, stepId, report] = request.arguments;
      return await rows.apply(
        sql,
        taskId,
        "UPDATE",
        null,
        (task) => reportRule(task, actor, stepId, report, time),
      );
    }
    case "renewLease": {
      const [actor, taskId, stepId, token] = request.arguments;
      return await rows.apply(
        sql,
        taskId,
        "SHARE",
        { stepId },
        (task) => renewRule(task, actor, stepId, token, clock),
      );
    }
    case "claimStep": {
      const [actor, taskId, stepId] = request.arguments;
      if (stepId === undefined) return await rows.claimNext(sql, taskId, actor, clock);
      return await rows.apply(
        sql,
        taskId,
        "SHARE",
        { stepId },
        (task) => claimRule(task, actor, stepId, clock),
      );
    }
  }
}

/** `"name"`, for a schema name already checked against the pattern of identifiers. */
export function quote(schema: string): string {
  return `"${schema}"`;
}

/** Reading and writing the rows of one schema. */
class Rows {
  /** The quoted schema. */
  readonly schema: string;

  constructor(schema: string) {
    this.schema = quote(schema);
  }

  /**
   * A claim of the first claimable step: the task's row locked beside other claimers (`FOR
   * SHARE`), the step locked by `SKIP LOCKED` (another claimer's in-flight row is passed over),
   * and only that step read and written; the task's other steps are read only to say why nothing
   * could be claimed.
   */
  claimNext(sql: Sql, taskId: string, actor: TaskActor, clock: RuleClock): Promise<Step> {
    return sql.begin(async (transaction) => {
      const [row] = await transaction.unsafe(
        `SELECT * FROM ${this.schema}.tasks WHERE id = $1 FOR SHARE`,
        [taskId],
      );
      if (row === undefined) throw taskNotFound(taskId);
      const [candidate] = await transaction.unsafe(
        `SELECT * FROM ${this.schema}.steps
         WHERE task_id = $1 AND (state = 'ready'
           OR (state = 'claimed' AND lease_until IS NOT NULL AND lease_until <= $2))
         ORDER BY position LIMIT 1 FOR UPDATE SKIP LOCKED`,
        [taskId, clock.time],
      );
      const task = candidate === undefined || (row as Row).state !== "open"
        ? await this.task(transaction, taskId)
        : taskOf(row as Row, [candidate as Row]);
      const change = claimRule(
        task,
        actor,
        undefined,
        clock,
        candidate === undefined ? null : String((candidate as Row).id),
      );
      // Only the claimed step's row changes (its position is never rewritten).
      await this.write(transaction, change);
      return change.result;
    }) as Promise<Step>;
  }

  /**
   * One rule in one transaction: lock the task's row (`UPDATE`: alone; `SHARE`: beside claims),
   * lock the named step (waiting for another holder), read the task, apply the rule, write what it
   * changed.
   */
  apply<T>(
    sql: Sql,
    taskId: string,
    taskLock: "UPDATE" | "SHARE",
    step: { stepId: string } | null,
    rule: (task: Task) => RuleChange<T>,
  ): Promise<T> {
    return sql.begin(async (transaction) => {
      const locked = await transaction.unsafe(
        `SELECT id FROM ${this.schema}.tasks WHERE id = $1 FOR ${taskLock}`,
        [taskId],
      );
      if (locked.length === 0) throw taskNotFound(taskId);
      if (step !== null) {
        await transaction.unsafe(
          `SELECT id FROM ${this.schema}.steps WHERE task_id = $1 AND id = $2 FOR UPDATE`,
          [taskId, step.stepId],
        );
      }
      const change = rule(await this.task(transaction, taskId));
      await this.write(transaction, change);
      return change.result;
    }) as Promise<T>;
  }

  /** The task with its steps; `not_found` when there is none. */
  async task(transaction: Transaction, taskId: string): Promise<Task> {
    const [row] = await transaction.unsafe(`SELECT * FROM ${this.schema}.tasks WHERE id = $1`, [
      taskId,
    ]);
    if (row === undefined) throw taskNotFound(taskId);
    const steps = await transaction.unsafe(
      `SELECT * FROM ${this.schema}.steps WHERE task_id = $1 ORDER BY position`,
      [taskId],
    );
    return taskOf(row as Row, steps as unknown as Row[]);
  }

  /** Every task with its steps, oldest first. */
  async tasks(transaction: Transaction): Promise<Task[]> {
    const rows = await transaction.unsafe(`SELECT * FROM ${this.schema}.tasks ORDER BY number`);
    const steps = await transaction.unsafe(
      `SELECT * FROM ${this.schema}.steps ORDER BY task_id, position`,
    ) as unknown as Row[];
    return (rows as unknown as Row[]).map((row) =>
      taskOf(row, steps.filter((step) => step.task_id === row.id))
    );
  }

  async insertTask(transaction: Transaction, task: Task, number: number): Promise<void> {
    await transaction.unsafe(
      `INSERT INTO ${this.schema}.tasks (number, id, title, description, state, created_by,
         created_by_run_id, result, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        number,
        task.id,
        task.title,
        task.description,
        task.state,
        task.created_by,
        task.created_by_run_id,
        task.result,
        task.created_at,
        task.updated_at,
      ],
    );
    await this.writeSteps(transaction, task, task.steps.map((step) => step.id));
  }

  async write(
    transaction: Transaction,
    change: { task: Task; taskChanged: boolean; steps: readonly string[] },
  ): Promise<void> {
    const task = change.task;
    if (change.taskChanged) {
      await transaction.unsafe(
        `UPDATE ${this.schema}.tasks SET title = $1, description = $2, state = $3, result = $4,
           updated_at = $5 WHERE id = $6`,
        [task.title, task.description, task.state, task.result, task.updated_at, task.id],
      );
    }
    await this.writeSteps(transaction, task, change.steps);
  }

  async writeSteps(transaction: Transaction, task: Task, ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const position = task.steps.findIndex((step) => step.id === id);
      const step = task.steps[position] as Step;
      await transaction.unsafe(
        `INSERT INTO ${this.schema}.steps (task_id, id, position, title, instructions, depends_on,
           state, owner, owner_run_id, owner_machine, fencing_token, lease_until, result,
           updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         ON CONFLICT (task_id, id) DO UPDATE SET title = excluded.title,
           instructions = excluded.instructions, state = excluded.state, owner = excluded.owner,
           owner_run_id = excluded.owner_run_id, owner_machine = excluded.owner_machine,
           fencing_token = excluded.fencing_token, lease_until = excluded.lease_until,
           result = excluded.result, updated_at = excluded.updated_at`,
        [
          task.id,
          step.id,
          position,
          step.title,
          step.instructions,
          JSON.stringify(step.depends_on),
          step.state,
          step.owner,
          step.owner_run_id,
          step.owner_machine,
          step.fencing_token,
          step.lease_until,
          step.result,
          step.updated_at,
        ],
      );
    }
  }
}

function stepOf(row: Row): Step {
  return {
    id: String(row.id),
    title: String(row.title),
    instructions: String(row.instructions),
    depends_on: JSON.parse(String(row.depends_on)) as string[],
    state: row.state as StepState,
    owner: row.owner as string | null,
    owner_run_id: row.owner_run_id as string | null,
    owner_machine: row.owner_machine as string | null,
    fencing_token: Number(row.fencing_token),
    lease_until: row.lease_until as string | null,
    result: row.result as string | null,
    updated_at: String(row.updated_at),
  };
}

function taskOf(row: Row, steps: readonly Row[]): Task {
  return withLatestUpdate({
    id: String(row.id),
    title: String(row.title),
    description: String(row.description),
    state: row.state as TaskState,
    created_by: String(row.created_by),
    created_by_run_id: String(row.created_by_run_id),
    result: row.result as string | null,
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
    steps: steps.map(stepOf),
  });
}
