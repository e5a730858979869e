/**
 * The SQLite task store's tables and the mapping of their rows to the model. Private to the
 * folder: the store's file format is not a public contract (only `TaskStore` is).
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import type { Step, StepState, Task, TaskState } from "./task_model.ts";
import { TaskStoreError } from "./task_model.ts";

/** `PRAGMA user_version` of the tables below; a file with a higher one is refused. */
export const SCHEMA_VERSION = 1;

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

/**
 * Creates the tables in an empty file, accepts a file at {@linkcode SCHEMA_VERSION}, refuses any
 * other. Runs inside the caller's write transaction, so two processes opening a new file at once
 * create the tables once.
 *
 * @throws {TaskStoreError} `store_failure` for a file of another version.
 */
export function ensureSchema(database: DatabaseSync, path: string): void {
  const row = database.prepare("PRAGMA user_version").get() as { user_version: number };
  if (row.user_version === SCHEMA_VERSION) return;
  if (row.user_version !== 0) {
    throw new TaskStoreError(
      "store_failure",
      `Cannot open the task store "${path}": its schema version is ${row.user_version}, this ` +
        `kagent-run reads version ${SCHEMA_VERSION}; use a new file`,
      { path, schema_version: row.user_version },
    );
  }
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
  database.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
}

/** A row of `tasks`. */
export interface TaskRow {
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
export interface StepRow {
  task_id: string;
  id: string;
  position: number;
  title: string;
  instructions: string;
  depends_on: string;
  state: string;
  owner: string | null;
  owner_run_id: string | null;
  result: string | null;
  updated_at: string;
}

/** A `steps` row as a {@linkcode Step}. */
export function stepOf(row: StepRow): Step {
  return {
    id: row.id,
    title: row.title,
    instructions: row.instructions,
    depends_on: JSON.parse(row.depends_on) as string[],
    state: row.state as StepState,
    owner: row.owner,
    owner_run_id: row.owner_run_id,
    result: row.result,
    updated_at: row.updated_at,
  };
}

/** A `tasks` row and its steps' rows as a {@linkcode Task}. */
export function taskOf(row: TaskRow, steps: readonly StepRow[]): Task {
  return {
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
  };
}
