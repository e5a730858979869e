/**
 * Entry module of the PostgreSQL task store's Worker: the only code that holds the database
 * connection, started with net permission for the database's `host:port` alone (no read, write,
 * run or other net). It creates or migrates the schema, then answers each store request as one
 * transaction. The compile task includes it (`--include src/tasks/postgres_worker_main.ts`).
 *
 * @module
 */

import { storeSessionParameters } from "./_postgres_session.ts";
import postgres from "postgres";
import { runRequest } from "./_postgres_rows.ts";
import { ensurePostgresSchema } from "./_postgres_schema.ts";
import type { PostgresReplyMessage, PostgresRequestMessage } from "./_postgres_messages.ts";
import { TaskStoreError } from "./task_model.ts";

interface WorkerScope {
  onmessage: ((event: MessageEvent<PostgresRequestMessage>) => void) | null;
  postMessage(message: PostgresReplyMessage): void;
  close(): void;
}

const scope = globalThis as unknown as WorkerScope;
let sql: postgres.Sql | null = null;
let schema = "";

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === "init") return void start(message);
  if (message.type === "close") return void stop();
  const connection = sql;
  if (connection === null) return;
  runRequest(connection, schema, message.request).then(
    (value) => scope.postMessage({ type: "reply", id: message.id, ok: true, value }),
    (error) =>
      scope.postMessage({
        type: "reply",
        id: message.id,
        ok: false,
        error: error instanceof TaskStoreError
          ? { code: error.code, message: error.message, details: error.details }
          : { code: "store_failure", message: reasonOf(error), details: {} },
      }),
  );
};

async function start(message: Extract<PostgresRequestMessage, { type: "init" }>): Promise<void> {
  try {
    const url = new URL(message.url);
    schema = message.schema;
    // Every option the driver would otherwise read from PG* variables is given, so the Worker
    // needs no env permission beyond the two the driver always reads (PGAPPNAME and
    // PGTARGETSESSIONATTRS).
    sql = postgres({
      host: url.hostname,
      port: url.port === "" ? 5432 : Number(url.port),
      user: decodeURIComponent(url.username),
      pass: url.password === "" ? "-" : decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username),
      max: message.max_connections,
      ssl: sslOf(url),
      sslnegotiation: null,
      idle_timeout: 0,
      connect_timeout: message.connect_timeout_seconds,
      max_lifetime: null,
      max_pipeline: 100,
      backoff: () => 0.2,
      keep_alive: 60,
      prepare: true,
      debug: false,
      fetch_types: false,
      publications: "alltables",
      target_session_attrs: undefined,
      // A worker paused mid-transaction must not hold its row locks for ever.
      connection: storeSessionParameters(message.idle_in_transaction_timeout_ms),
      onnotice: () => {},
    } as postgres.Options<Record<string, never>>);
    await ensurePostgresSchema(sql, schema);
    scope.postMessage({ type: "ready" });
  } catch (error) {
    scope.postMessage({ type: "failed", message: reasonOf(error) });
  }
}

async function stop(): Promise<void> {
  const connection = sql;
  sql = null;
  try {
    await connection?.end({ timeout: 5 });
  } finally {
    scope.postMessage({ type: "closed" });
  }
}

/** `?sslmode=require` (or `verify-full`) asks for TLS; anything else connects in the clear. */
function sslOf(url: URL): false | "require" | "verify-full" {
  const mode = url.searchParams.get("sslmode");
  return mode === "require" || mode === "verify-full" ? mode : false;
}

/** The error's message, never its stack. */
function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
