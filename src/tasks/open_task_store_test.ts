import assert from "node:assert/strict";
import { openTaskStore } from "./open_task_store.ts";
import { TaskStoreError } from "./task_model.ts";
import { dropSchema, postgresIgnoreReason, requireDatabaseUrl } from "./_postgres_test_support.ts";

Deno.test("openTaskStore: sqlite is the run folder's file; postgres without its variable fails every call saying which", async () => {
  const runDir = await Deno.makeTempDir({ prefix: "kagent-open-store-" });
  try {
    const sqlite = openTaskStore({ config: { kind: "sqlite" }, runDir });
    await sqlite.createTask({ agent_id: "main", run_id: "r" }, {
      title: "T",
      steps: [{ id: "a", title: "A" }],
    });
    await sqlite.close();
    assert.ok((await Deno.stat(`${runDir}/tasks.sqlite`)).isFile);
    const missing = openTaskStore({
      config: { kind: "postgres", url_env: "KAGENT_NO_SUCH_URL", schema: "kagent" },
      runDir,
      env: () => undefined,
    });
    const error = await missing.listTasks().then(() => assert.fail("expected a failure"), (e) => e);
    assert.ok(error instanceof TaskStoreError && error.code === "store_failure");
    assert.match(
      error.message,
      /the variable "KAGENT_NO_SUCH_URL" \(tasks\.store\.url_env\) is unset/,
    );
    await missing.close();
  } finally {
    await Deno.remove(runDir, { recursive: true });
  }
});

Deno.test({
  name: "openTaskStore: postgres reads the URL from the named variable only",
  ignore: postgresIgnoreReason() !== false,
  fn: async () => {
    const url = requireDatabaseUrl();
    const runDir = await Deno.makeTempDir({ prefix: "kagent-open-store-" });
    const schema = `open_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    try {
      const store = openTaskStore({
        config: { kind: "postgres", url_env: "MY_TASKS_URL", schema },
        runDir,
        env: (name) => name === "MY_TASKS_URL" ? url : undefined,
      });
      assert.deepEqual(await store.listTasks(), []);
      await store.close();
      // Nothing of the shared store lands in the run folder.
      assert.deepEqual([...Deno.readDirSync(runDir)], []);
    } finally {
      await Deno.remove(runDir, { recursive: true });
      await dropSchema(url, schema);
    }
  },
});
