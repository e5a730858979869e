/**
 * The test database of the PostgreSQL tests: its URL from `KAGENT_TEST_DATABASE_URL` (printed by
 * `.ci/start_postgres.sh`), and fresh schemas dropped afterwards. Without the variable the tests
 * are ignored with the reason printed, except under `CI=true`, where a missing database fails
 * unless `.ci/run` found that the package itself could not be installed.
 *
 * @module
 */

import postgres from "postgres";

/** The variable holding the test database's URL. */
export const TEST_DATABASE_URL_VARIABLE = "KAGENT_TEST_DATABASE_URL";

/** Why PostgreSQL could not be installed (set by `.ci/run`), when it could not. */
const UNAVAILABLE_VARIABLE = "KAGENT_TEST_DATABASE_UNAVAILABLE";

/** The test database's URL, or null when the variable is unset. */
export function testDatabaseUrl(): string | null {
  const url = Deno.env.get(TEST_DATABASE_URL_VARIABLE);
  return url === undefined || url === "" ? null : url;
}

/**
 * Why the PostgreSQL tests cannot run here (printed), or false when they can. Under `CI=true` a
 * missing database is not a reason: the tests run and fail, saying so.
 */
export function postgresIgnoreReason(): string | false {
  // `.ci/run` sets this only when the package itself could not be installed (issue 28: the one
  // case where the tests skip in CI, with the reason printed).
  const unavailable = Deno.env.get(UNAVAILABLE_VARIABLE);
  if (unavailable !== undefined && unavailable !== "" && testDatabaseUrl() === null) {
    console.log(`PostgreSQL tests ignored: ${unavailable}`);
    return unavailable;
  }
  if (testDatabaseUrl() !== null || Deno.env.get("CI") === "true") return false;
  const reason = `${TEST_DATABASE_URL_VARIABLE} is unset (run .ci/start_postgres.sh and export ` +
    "the URL it prints)";
  console.log(`PostgreSQL tests ignored: ${reason}`);
  return reason;
}

/** The URL, or a thrown error naming the variable (CI without a database). */
export function requireDatabaseUrl(): string {
  const url = testDatabaseUrl();
  if (url === null) {
    throw new Error(
      `Cannot run the PostgreSQL tests: ${TEST_DATABASE_URL_VARIABLE} is unset under CI=true ` +
        "(.ci/run starts the database with .ci/start_postgres.sh)",
    );
  }
  return url;
}

/** A new unique schema name, e.g. `test_1a2b3c4d`. */
export function freshSchema(prefix = "test"): string {
  return `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
}

/** Drops a test schema with everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Runs `query` against the test database (for tests that tamper with rows). */
export async function runSql(url: string, query: string, parameters: unknown[] = []) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await sql.unsafe(query, parameters as never[]);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
