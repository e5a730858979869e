/**
 * Opens the task store a config names (`tasks.store`): the run folder's SQLite file, or the
 * shared PostgreSQL schema whose URL is read only from the named environment variable.
 *
 * @module
 */

import * as nodePath from "node:path";
import { PostgresTaskStore } from "./postgres_task_store.ts";
import { SqliteTaskStore, TASK_STORE_FILE_NAME } from "./sqlite_task_store.ts";
import { DEFAULT_LEASE_MS, TaskStoreError } from "./task_model.ts";
import type { TaskStore } from "./task_store.ts";

/** `tasks.store` as loaded. */
export type TaskStoreConfig =
  | { kind: "sqlite" }
  | { kind: "postgres"; url_env: string; schema: string };

/** Options of {@linkcode openTaskStore}. */
export interface OpenTaskStoreOptions {
  config: TaskStoreConfig;
  /** The run folder: the SQLite store's file is `<runDir>/tasks.sqlite`. */
  runDir: string;
  /** Reads an environment variable (the PostgreSQL URL's). @default Deno.env.get */
  env?: (name: string) => string | undefined;
  /** Lease of a claim, in ms. @default 60000 */
  leaseMs?: number;
}

/**
 * The store `config` names. A PostgreSQL store connects in the background: the store answers at
 * once, and its first call waits for the connection (or rejects `store_failure` saying why).
 *
 * @throws {TaskStoreError} `store_failure` when the SQLite file cannot be opened.
 * @example
 * ```ts
 * import { openTaskStore } from "./open_task_store.ts";
 * const runDir = await Deno.makeTempDir();
 * const store = openTaskStore({ config: { kind: "sqlite" }, runDir });
 * console.assert((await store.listTasks()).length === 0);
 * await store.close();
 * await Deno.remove(runDir, { recursive: true });
 * ```
 */
export function openTaskStore(options: OpenTaskStoreOptions): TaskStore {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const config = options.config;
  if (config.kind === "sqlite") {
    return new SqliteTaskStore(nodePath.join(options.runDir, TASK_STORE_FILE_NAME), { leaseMs });
  }
  const url = (options.env ?? ((name) => Deno.env.get(name)))(config.url_env);
  const opening = url === undefined || url === ""
    ? Promise.reject(
      new TaskStoreError(
        "store_failure",
        `Cannot open the postgres task store: the variable "${config.url_env}" ` +
          "(tasks.store.url_env) is unset or empty",
        { url_env: config.url_env },
      ),
    )
    : PostgresTaskStore.open({ url, schema: config.schema, leaseMs });
  opening.catch(() => {}); // Reported by the first call.
  return deferredStore(opening);
}

/** A store whose every call waits for `opening` first. */
function deferredStore(opening: Promise<TaskStore>): TaskStore {
  const call = <T>(body: (store: TaskStore) => Promise<T>) => opening.then(body);
  return {
    createTask: (...parameters) => call((store) => store.createTask(...parameters)),
    getTask: (...parameters) => call((store) => store.getTask(...parameters)),
    listTasks: (...parameters) => call((store) => store.listTasks(...parameters)),
    updateTask: (...parameters) => call((store) => store.updateTask(...parameters)),
    querySteps: (...parameters) => call((store) => store.querySteps(...parameters)),
    claimStep: (...parameters) => call((store) => store.claimStep(...parameters)),
    renewLease: (...parameters) => call((store) => store.renewLease(...parameters)),
    updateStep: (...parameters) => call((store) => store.updateStep(...parameters)),
    closeTask: (...parameters) => call((store) => store.closeTask(...parameters)),
    close: () => opening.then((store) => store.close(), () => {}),
  };
}

/**
 * The shared task store of a config whose `tasks.store` is PostgreSQL and that defines agents,
 * else null. Called before the process gives up its net permission (`openNetworkBoundary`): the
 * store's Worker is created here, with net for the database's host and port only, and keeps it.
 *
 * @param config The loaded config's `tasks` and `agents`.
 * @param env Reads the URL's variable.
 */
export function openSharedTaskStore(
  config: {
    tasks?: { store: TaskStoreConfig; lease_ms: number };
    agents: Record<string, unknown>;
  },
  env: (name: string) => string | undefined,
): TaskStore | null {
  const tasks = config.tasks;
  if (tasks === undefined || tasks.store.kind !== "postgres") return null;
  if (Object.keys(config.agents).length === 0) return null;
  return openTaskStore({ config: tasks.store, runDir: "", env, leaseMs: tasks.lease_ms });
}
