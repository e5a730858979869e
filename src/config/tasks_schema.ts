/**
 * The `tasks` section of the config file (issue 28): where the task graph is kept — the run
 * folder's SQLite file, or a PostgreSQL schema shared by many machines — and the lease of a claim.
 *
 * @module
 */

import { z } from "zod";

/** The lease and renewal defaults, in ms (the task store's `DEFAULT_LEASE_MS`, `DEFAULT_RENEW_MS`). */
export const DEFAULT_TASKS = { lease_ms: 60_000, renew_ms: 20_000 } as const;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `tasks`: the store of the task graph and the lease of a claim. */
export const TasksConfigSchema = z.strictObject({
  store: z.discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("sqlite") }),
    z.strictObject({
      kind: z.literal("postgres"),
      url_env: z.string().regex(ENV_NAME, { error: "must be an environment variable's name" })
        .describe(
          "The variable holding the database URL (postgres://user:password@host:port/database); " +
            "read only from there, and redacted like every audit.secret_env value.",
        ),
      schema: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, {
        error: "must be a lower-case SQL identifier (letters, digits and _, at most 63)",
      }).optional().describe('The schema of the store\'s tables. Default: "kagent".'),
    }),
  ]).optional().describe(
    'Where the task graph lives: {"kind": "sqlite"} (the default: tasks.sqlite in the run ' +
      'folder, one machine) or {"kind": "postgres", "url_env": "KAGENT_TASKS_DATABASE_URL"} ' +
      "(one graph shared by every machine that opens the same database and schema).",
  ),
  lease_ms: z.int().min(100).max(86_400_000).optional().describe(
    "How long a claim holds its step without a renewal, in ms; after it another worker may " +
      `claim the step. Default: ${DEFAULT_TASKS.lease_ms}.`,
  ),
  renew_ms: z.int().min(50).max(86_400_000).optional().describe(
    "How often a worker renews the lease of the step it works on, in ms; keep it well under " +
      `lease_ms. Default: ${DEFAULT_TASKS.renew_ms}.`,
  ),
});

/** `tasks` after loading: every key filled. */
export interface LoadedTasks {
  store: { kind: "sqlite" } | { kind: "postgres"; url_env: string; schema: string };
  /** Milliseconds. */
  lease_ms: number;
  /** Milliseconds. */
  renew_ms: number;
}

/** Fills `tasks` with {@linkcode DEFAULT_TASKS}. */
export function resolveTasks(tasks: z.output<typeof TasksConfigSchema> | undefined): LoadedTasks {
  const store = tasks?.store;
  return {
    store: store === undefined || store.kind === "sqlite"
      ? { kind: "sqlite" }
      : { kind: "postgres", url_env: store.url_env, schema: store.schema ?? "kagent" },
    lease_ms: tasks?.lease_ms ?? DEFAULT_TASKS.lease_ms,
    renew_ms: tasks?.renew_ms ?? DEFAULT_TASKS.renew_ms,
  };
}
