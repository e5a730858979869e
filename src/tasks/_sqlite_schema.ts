/**
 * The SQLite task store's tables, their migrations, and the reading and writing of their rows. Private to the
 * folder: the store's file format is not a public contract (only `TaskStore` is).
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { withLatestUpdate } from "./_task_rules.ts";
import type { Step, StepState, Task, TaskState } from "./task_model.ts";
import { TaskStoreError } from "./task_model.ts";

/**
 * `PRAGMA user_version` of the tables below; a file with a higher one is refused, a file of an
 * older one is migrated (version 1 had no leases: its claims keep no lease and never expire).
 */
export const SCHEMA_VERSION = 2;

const SCHEMA = `
CREATE TABLE tasks (
  number INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  description TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('open', 'completed', 'failed', 'cancelled')),
  created_by TEXT NOT NULL,
  created_by_run_id TEXT NOT NULL,
  result TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE steps (
  task_id TEXT NOT NULL REFERENCES tasks (id),
  id TEXT NOT NULL,
  position INTEGER NOT NULL,
  title TEXT NOT NULL,
  instructions TEXT NOT NULL,
  depends_on TEXT NOT NULL,
  state TEXT NOT NULL
    CHECK (state IN ('pending', 'ready', 'claimed', 'done', 'failed', 'cancelled')),
  owner TEXT,
  owner_run_id TEXT,
  result TEXT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (task_id, id)
) WITHOUT ROWID;
CREATE INDEX steps_by_state ON steps (task_id, state, position);
`;

/** The migrations from each version to the next: `MIGRATIONS[n - 1]` takes version n to n + 1. */
const MIGRATIONS = [
  `ALTER TABLE steps ADD COLUMN owner_machine TEXT;
   ALTER TABLE steps ADD COLUMN fencing_token INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE steps ADD COLUMN lease_until TEXT;`,
];

/**
 * Creates the tables in an empty file, migrates a file of an older version, accepts one at
 * {@linkcode SCHEMA_VERSION}, refuses any other. Runs inside the caller's write transaction, so
 * two processes opening a new file at once create the tables once.
 *
 * @throws {TaskStoreError} `store_failure` for a file of a newer version or of something else.
 */
export function ensureSchema(database: DatabaseSync, path: string): void {
  const row = database.prepare("PRAGMA user_version").get() as { user_version: number };
  let version = row.user_version;
  if (version === SCHEMA_VERSION) return;
  if (version > SCHEMA_VERSION) {
    throw new TaskStoreError(
      "store_failure",
      `Cannot open the task store "${path}": its schema version is ${version}, this ` +
        `kagent-run reads version ${SCHEMA_VERSION}; use a new file`,
      { path, schema_version: version },
    );
  }
  if (version === 0) {
    const tables = database.prepare("SELECT COUNT(*) AS count FROM sqlite_schema").get() as {
      count: number;
    };
    if (tables.count !== 0) {
      throw new TaskStoreError(
        "store_failure",
        `Cannot open the task store "${path}": the file is an SQLite database of something else`,
        { path },
      );
    }
    database.exec(SCHEMA);
    version = 1;
  }
  for (; version < SCHEMA_VERSION; version++) {
    database.exec(MIGRATIONS[version - 1] as string);
  }
  database.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
}

/** The task `taskId` with its steps, or null when there is none. */
export function readTask(database: DatabaseSync, taskId: string): Task | null {
  const row = database.prepare("SELECT * FROM tasks WHERE id = ?").get(taskId);
  if (row === undefined) return null;
  const steps = database.prepare("SELECT * FROM steps WHERE task_id = ? ORDER BY position")
    .all(taskId) as unknown as StepRow[];
  return taskOf(row as unknown as TaskRow, steps);
}

/** Every task with its steps, oldest first. */
export function readTasks(database: DatabaseSync): Task[] {
  const rows = database.prepare("SELECT * FROM tasks ORDER BY number").all() as unknown[];
  const steps = database.prepare("SELECT * FROM steps ORDER BY task_id, position")
    .all() as unknown as StepRow[];
  return (rows as TaskRow[]).map((row) =>
    taskOf(row, steps.filter((step) => step.task_id === row.id))
  );
}

/** The number of tasks and the highest task number. */
export function countTasks(database: DatabaseSync): { tasks: number; last: number } {
  const { count, last } = database.prepare(
    "SELECT COUNT(*) AS count, COALESCE(MAX(number), 0) AS last FROM tasks",
  ).get() as { count: number; last: number };
  return { tasks: count, last };
}

/** Inserts a new task (numbered `number`) with its steps. */
export function insertTask(database: DatabaseSync, task: Task, number: number): void {
  database.prepare(
    `INSERT INTO tasks (number, id, title, description, state, created_by,
       created_by_run_id, result, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
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
  );
  writeSteps(database, task, task.steps.map((step) => step.id));
}

/** Writes what a rule changed: the task's row when it changed, and the named steps' rows. */
export function writeChange(
  database: DatabaseSync,
  change: { task: Task; taskChanged: boolean; steps: readonly string[] },
): void {
  const task = change.task;
  if (change.taskChanged) {
    database.prepare(
      `UPDATE tasks SET title = ?, description = ?, state = ?, result = ?, updated_at = ?
       WHERE id = ?`,
    ).run(task.title, task.description, task.state, task.result, task.updated_at, task.id);
  }
  writeSteps(database, task, change.steps);
}

function writeSteps(database: DatabaseSync, task: Task, ids: readonly string[]): void {
  const upsert = database.prepare(
    `INSERT INTO steps (task_id, id, position, title, instructions, depends_on, state, owner,
       owner_run_id, owner_machine, fencing_token, lease_until, result, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (task_id, id) DO UPDATE SET title = excluded.title,
       instructions = excluded.instructions, state = excluded.state, owner = excluded.owner,
       owner_run_id = excluded.owner_run_id, owner_machine = excluded.owner_machine,
       fencing_token = excluded.fencing_token, lease_until = excluded.lease_until,
       result = excluded.result, updated_at = excluded.updated_at`,
  );
  for (const id of ids) {
    const position = task.steps.findIndex((step) => step.id === id);
    const step = task.steps[position] as Step;
    upsert.run(
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
    );
  }
}

/** A row of `tasks`. */
interface TaskRow {
  number: number;
  id: string;
  title: string;
  description: string;
  state: string;
  created_by: string;
  created_by_run_id: string;
  result: string | null;
  created_at: string;
  updated_at: string;
}

/** A row of `steps`. */
interface StepRow {
  task_id: string;
  id: string;
  position: number;
  title: string;
  instructions: string;
  depends_on: string;
  state: string;
  owner: string | null;
  owner_run_id: string | null;
  owner_machine: string | null;
  fencing_token: number;
  lease_until: string | null;
  result: string | null;
  updated_at: string;
}

/** A `steps` row as a {@linkcode Step}. */
function stepOf(row: StepRow): Step {
  return {
    id: row.id,
    title: row.title,
    instructions: row.instructions,
    depends_on: JSON.parse(row.depends_on) as string[],
    state: row.state as StepState,
    owner: row.owner,
    owner_run_id: row.owner_run_id,
    owner_machine: row.owner_machine,
    fencing_token: Number(row.fencing_token),
    lease_until: row.lease_until,
    result: row.result,
    updated_at: row.updated_at,
  };
}

/** A `tasks` row and its steps' rows as a {@linkcode Task}, `updated_at` the latest of them. */
function taskOf(row: TaskRow, steps: readonly StepRow[]): Task {
  return withLatestUpdate({
    id: row.id,
    title: row.title,
    description: row.description,
    state: row.state as TaskState,
    created_by: row.created_by,
    created_by_run_id: row.created_by_run_id,
    result: row.result,
    created_at: row.created_at,
    updated_at: row.updated_at,
    steps: steps.map(stepOf),
  });
}
