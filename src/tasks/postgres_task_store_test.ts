import assert from "node:assert/strict";
import {
  dropSchema,
  freshSchema,
  postgresIgnoreReason,
  requireDatabaseUrl,
  runSql,
} from "./_postgres_test_support.ts";
import { MAIN, SHIP, testTaskStoreContract, WORKER_1 } from "./_task_store_contract.ts";
import {
  idleInTransactionTimeoutMs,
  postgresHost,
  PostgresTaskStore,
} from "./postgres_task_store.ts";
import { storeSessionParameters } from "./_postgres_session.ts";
import { TaskStoreError } from "./task_model.ts";

const ignore = postgresIgnoreReason();

testTaskStoreContract("PostgresTaskStore", async ({ now, leaseMs }) => {
  const url = requireDatabaseUrl();
  const schema = freshSchema();
  const store = await PostgresTaskStore.open({ url, schema, now, leaseMs });
  const others: PostgresTaskStore[] = [];
  return {
    store,
    another: async () => {
      const other = await PostgresTaskStore.open({ url, schema, now, leaseMs });
      others.push(other);
      return other;
    },
    async [Symbol.asyncDispose]() {
      for (const other of others) await other.close();
      await store.close();
      await dropSchema(url, schema);
    },
  };
}, { ignore });

Deno.test({
  name: "PostgresTaskStore creates its schema at version 1 once, and refuses a newer one",
  ignore: ignore !== false,
  fn: async () => {
    const url = requireDatabaseUrl();
    const schema = freshSchema();
    try {
      // Two stores opening a new schema at once: the advisory lock lets one create it.
      const [first, second] = await Promise.all([
        PostgresTaskStore.open({ url, schema }),
        PostgresTaskStore.open({ url, schema }),
      ]);
      const { id } = await first.createTask(MAIN, SHIP);
      assert.equal((await second.claimStep(WORKER_1, id)).id, "build");
      await first.close();
      await second.close();
      const versions = await runSql(url, `SELECT version FROM "${schema}".schema_version`);
      assert.deepEqual(versions.map((row) => row.version), [1]);
      await runSql(url, `UPDATE "${schema}".schema_version SET version = 99`);
      const error = await PostgresTaskStore.open({ url, schema }).then(
        () => assert.fail("expected store_failure"),
        (error) => error,
      );
      assert.ok(error instanceof TaskStoreError && error.code === "store_failure");
      assert.match(error.message, /schema version is 99, this kagent-run reads version 1/);
    } finally {
      await dropSchema(url, schema);
    }
  },
});

Deno.test({
  name: "PostgresTaskStore's errors never repeat the URL's password",
  ignore: ignore !== false,
  fn: async () => {
    const url = new URL(requireDatabaseUrl());
    url.username = "nobody_here";
    url.password = "hunter2-secret";
    const error = await PostgresTaskStore.open({
      url: url.href,
      schema: freshSchema(),
      connectTimeoutMs: 5_000,
    }).then(() => assert.fail("expected store_failure"), (error) => error);
    assert.ok(error instanceof TaskStoreError && error.code === "store_failure", String(error));
    assert.doesNotMatch(`${error.message} ${JSON.stringify(error.details)}`, /hunter2/);
    assert.match(error.message, /Cannot open the task store postgres 127\.0\.0\.1:\d+ schema/);
  },
});

Deno.test("postgresHost gives the Worker's one net permission and never echoes the URL", () => {
  assert.equal(postgresHost("postgres://u:p@db.example:6543/tasks"), "db.example:6543");
  assert.equal(postgresHost("postgresql://u@10.0.0.5/tasks"), "10.0.0.5:5432");
  for (const bad of ["https://u:secretpw@db/x", "not a url secretpw", "postgres:///x"]) {
    assert.throws(
      () => postgresHost(bad),
      (error: unknown) =>
        error instanceof TaskStoreError && error.code === "invalid_input" &&
        !error.message.includes("secretpw"),
    );
  }
});

Deno.test({
  name: "a store session paused inside a transaction is ended by the server: its row lock does " +
    "not stall another worker (near miss: without the parameter the claim waits)",
  ignore: ignore !== false,
  fn: async () => {
    const url = requireDatabaseUrl();
    const schema = freshSchema();
    const store = await PostgresTaskStore.open({ url, schema });
    // A worker stopped mid-transaction: psql takes a step's row lock, then sends nothing more
    // (its standard input stays open), with the given session parameters.
    const claimBehindPause = async (parameters: Record<string, string | number>) => {
      const { id } = await store.createTask(MAIN, SHIP);
      const options = Object.entries(parameters).map(([name, value]) => `-c ${name}=${value}`);
      const child = new Deno.Command("psql", {
        args: ["-q", url],
        env: { PGOPTIONS: options.join(" ") },
        stdin: "piped",
        stdout: "null",
        stderr: "null",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(
        new TextEncoder().encode(
          `BEGIN;\nSELECT id FROM "${schema}".steps WHERE task_id = '${id}' AND id = 'build' ` +
            "FOR UPDATE;\n",
        ),
      );
      try {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const started = performance.now();
        const claim = store.claimStep(WORKER_1, id, "build");
        const waited = await Promise.race([
          claim.then(() => performance.now() - started),
          new Promise<null>((resolve) => setTimeout(() => resolve(null), 4_000)),
        ]);
        return { waited, claim };
      } finally {
        await writer.close().catch(() => {});
        await child.status;
      }
    };
    try {
      const paused = await claimBehindPause(
        storeSessionParameters(idleInTransactionTimeoutMs(2_000)),
      );
      assert.notEqual(paused.waited, null, "the claim waited behind the paused session");
      assert.equal((await paused.claim).id, "build");
      // Near miss: a session without the parameter keeps its lock: the claim still waits after
      // 4 s, and goes through once that session ends.
      const plain = await claimBehindPause({ application_name: "a-paused-worker" });
      assert.equal(plain.waited, null, "the claim went through a held row lock");
      assert.equal((await plain.claim).id, "build");
    } finally {
      await store.close();
      await dropSchema(url, schema);
    }
  },
});
