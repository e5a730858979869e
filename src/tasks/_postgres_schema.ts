/**
 * The PostgreSQL task store's schema: its tables, created and migrated in a transaction under an
 * advisory lock, with the version in a `schema_version` table. Runs inside the store's Worker.
 *
 * @module
 */

import type postgres from "postgres";
import { quote } from "./_postgres_rows.ts";

type Row = Record<string, unknown>;

/** The schema version the code below reads and writes; a newer one is refused. */
export const POSTGRES_SCHEMA_VERSION = 1;

/** Migrations: `MIGRATIONS[n]` takes version n to n + 1 (`$S` is the quoted schema). */
const MIGRATIONS = [
  `CREATE TABLE $S.tasks (
     number integer PRIMARY KEY,
     id text NOT NULL UNIQUE,
     title text NOT NULL,
     description text NOT NULL,
     state text NOT NULL CHECK (state IN ('open', 'completed', 'failed', 'cancelled')),
     created_by text NOT NULL,
     created_by_run_id text NOT NULL,
     result text,
     created_at text NOT NULL,
     updated_at text NOT NULL
   );
   CREATE TABLE $S.steps (
     task_id text NOT NULL REFERENCES $S.tasks (id),
     id text NOT NULL,
     position integer NOT NULL,
     title text NOT NULL,
     instructions text NOT NULL,
     depends_on text NOT NULL,
     state text NOT NULL
       CHECK (state IN ('pending', 'ready', 'claimed', 'done', 'failed', 'cancelled')),
     owner text,
     owner_run_id text,
     owner_machine text,
     fencing_token integer NOT NULL DEFAULT 0,
     lease_until text,
     result text,
     updated_at text NOT NULL,
     PRIMARY KEY (task_id, id)
   );
   CREATE INDEX steps_claimable ON $S.steps (task_id, state, position);`,
];

/**
 * Creates the schema and its tables, or migrates them to {@linkcode POSTGRES_SCHEMA_VERSION},
 * in one transaction under an advisory lock (two workers starting at once migrate once).
 *
 * @throws {Error} a schema of a newer version (the caller makes it `store_failure`).
 */
export async function ensurePostgresSchema(sql: postgres.Sql, schema: string): Promise<void> {
  const quoted = quote(schema);
  await sql.begin(async (transaction) => {
    await transaction.unsafe("SELECT pg_advisory_xact_lock(hashtext($1))", [
      `kagent-run tasks ${schema}`,
    ]);
    await transaction.unsafe(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await transaction.unsafe(
      `CREATE TABLE IF NOT EXISTS ${quoted}.schema_version (version integer NOT NULL)`,
    );
    const rows = await transaction.unsafe(`SELECT version FROM ${quoted}.schema_version`);
    let version = rows.length === 0 ? 0 : Number((rows[0] as Row).version);
    if (version > POSTGRES_SCHEMA_VERSION) {
      throw new Error(
        `its schema version is ${version}, this kagent-run reads version ` +
          `${POSTGRES_SCHEMA_VERSION}; use another schema`,
      );
    }
    for (; version < POSTGRES_SCHEMA_VERSION; version++) {
      await transaction.unsafe((MIGRATIONS[version] as string).replaceAll("$S", quoted));
    }
    await transaction.unsafe(`DELETE FROM ${quoted}.schema_version`);
    await transaction.unsafe(`INSERT INTO ${quoted}.schema_version (version) VALUES ($1)`, [
      POSTGRES_SCHEMA_VERSION,
    ]);
  });
}
