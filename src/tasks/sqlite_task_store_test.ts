import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SqliteTaskStore } from "./sqlite_task_store.ts";
import { MAIN, rejection, SHIP, testTaskStoreContract, WORKER_1 } from "./_task_store_contract.ts";
import { TaskStoreError } from "./task_model.ts";

/** Runs `body` with a store on a new file in a temporary folder, removed afterwards. */
async function withStore(
  body: (store: SqliteTaskStore, path: string) => Promise<void>,
): Promise<void> {
  const folder = await Deno.makeTempDir({ prefix: "kagent-tasks-" });
  const path = `${folder}/tasks.sqlite`;
  const store = new SqliteTaskStore(path, { now: () => new Date("2026-11-23T10:00:00.000Z") });
  try {
    await body(store, path);
  } finally {
    await store.close();
    await Deno.remove(folder, { recursive: true });
  }
}

testTaskStoreContract("SqliteTaskStore", async ({ now, leaseMs }) => {
  const folder = await Deno.makeTempDir({ prefix: "kagent-tasks-" });
  const path = `${folder}/tasks.sqlite`;
  const store = new SqliteTaskStore(path, { now, leaseMs });
  const others: SqliteTaskStore[] = [];
  return {
    store,
    another: () => {
      const other = new SqliteTaskStore(path, { now, leaseMs });
      others.push(other);
      return Promise.resolve(other);
    },
    async [Symbol.asyncDispose]() {
      for (const other of others) await other.close();
      await store.close();
      await Deno.remove(folder, { recursive: true });
    },
  };
});

Deno.test("tasks persist across closing and reopening the file; a closed store refuses", async () => {
  await withStore(async (store, path) => {
    const { id } = await store.createTask(MAIN, SHIP);
    await store.claimStep(WORKER_1, id, "build");
    await store.close();
    await store.close();
    await rejection(store.getTask(id), "store_failure");
    const reopened = new SqliteTaskStore(path);
    try {
      const task = await reopened.getTask(id);
      assert.equal(task.steps[0]?.owner, "worker-1");
      assert.equal((await reopened.createTask(MAIN, SHIP)).id, "task-2");
    } finally {
      await reopened.close();
    }
  });
});

Deno.test("opening a file that is not a task store fails store_failure naming it", async () => {
  const folder = await Deno.makeTempDir({ prefix: "kagent-tasks-" });
  try {
    await Deno.writeTextFile(
      `${folder}/garbage.sqlite`,
      "not a database at all, just text\n".repeat(40),
    );
    assert.throws(
      () => new SqliteTaskStore(`${folder}/garbage.sqlite`),
      (error: unknown) =>
        error instanceof TaskStoreError && error.code === "store_failure" &&
        error.message.includes("garbage.sqlite"),
    );
    const other = new DatabaseSync(`${folder}/other.sqlite`);
    other.exec("CREATE TABLE notes (text TEXT)");
    other.close();
    assert.throws(
      () => new SqliteTaskStore(`${folder}/other.sqlite`),
      /an SQLite database of something else/,
    );
    assert.throws(() => new SqliteTaskStore(`${folder}/missing/tasks.sqlite`), TaskStoreError);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("a version 1 file (no leases) is migrated: its claims keep no lease, new claims get one", async () => {
  const folder = await Deno.makeTempDir({ prefix: "kagent-tasks-" });
  try {
    const path = `${folder}/tasks.sqlite`;
    const old = new DatabaseSync(path);
    old.exec(`CREATE TABLE tasks (number INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
      title TEXT NOT NULL, description TEXT NOT NULL, state TEXT NOT NULL,
      created_by TEXT NOT NULL, created_by_run_id TEXT NOT NULL, result TEXT,
      created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE TABLE steps (task_id TEXT NOT NULL REFERENCES tasks (id), id TEXT NOT NULL,
      position INTEGER NOT NULL, title TEXT NOT NULL, instructions TEXT NOT NULL,
      depends_on TEXT NOT NULL, state TEXT NOT NULL, owner TEXT, owner_run_id TEXT, result TEXT,
      updated_at TEXT NOT NULL, PRIMARY KEY (task_id, id)) WITHOUT ROWID;
    INSERT INTO tasks VALUES (1, 'task-1', 'Old', '', 'open', 'main', 'run-main', NULL,
      '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
    INSERT INTO steps VALUES ('task-1', 'a', 0, 'A', '', '[]', 'claimed', 'worker-1', 'run-w1',
      NULL, '2026-01-01T00:00:00.000Z');
    INSERT INTO steps VALUES ('task-1', 'b', 1, 'B', '', '[]', 'ready', NULL, NULL, NULL,
      '2026-01-01T00:00:00.000Z');
    PRAGMA user_version = 1;`);
    old.close();
    const store = new SqliteTaskStore(path);
    try {
      const [a] = (await store.getTask("task-1")).steps;
      assert.deepEqual([a?.state, a?.lease_until, a?.fencing_token], ["claimed", null, 0]);
      // A claim of version 1 never expires (it had no lease): only the owner or a retry ends it.
      const b = await store.claimStep(WORKER_1, "task-1");
      assert.deepEqual([b.id, b.fencing_token, b.lease_until === null], ["b", 1, false]);
    } finally {
      await store.close();
    }
    const version = new DatabaseSync(path);
    assert.equal(version.prepare("PRAGMA user_version").get()?.user_version, 2);
    version.close();
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
